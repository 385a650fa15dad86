"""The `display_file` client function, as the demo graphs use it.

The definition is the client core's (`lgos_client.display_file`): the graphs
and both chat UIs share it, so what a graph expects and what a UI offers are
one object. A graph calls `display_file` with `display_file_arguments(...)`
and reads the client's answer with `display_file_error(output)`; clients offer
`DISPLAY_FILE_TOOL` (Responses) or `DISPLAY_FILE_CHAT_TOOL` (Chat Completions)
and answer `DISPLAY_FILE_OK` or `display_file_failure(reason)`.
"""

from __future__ import annotations

from lgos_client.display_file import (
    DISPLAY_FILE,
    DISPLAY_FILE_CHAT_TOOL,
    DISPLAY_FILE_OK,
    DISPLAY_FILE_PARAMETERS,
    DISPLAY_FILE_TOOL,
    display_file_arguments,
    display_file_error,
    display_file_failure,
)

__all__ = [
    "DISPLAY_FILE",
    "DISPLAY_FILE_CHAT_TOOL",
    "DISPLAY_FILE_OK",
    "DISPLAY_FILE_PARAMETERS",
    "DISPLAY_FILE_TOOL",
    "display_file_arguments",
    "display_file_error",
    "display_file_failure",
]
