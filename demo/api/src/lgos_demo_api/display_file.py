"""The `display_file` client function: one definition for graphs and clients.

A graph that produces a file uploads the bytes to the Files API and calls the
client-owned function `display_file` with the file's ID; the client downloads
the file with its own Files API key, shows it in its native UI, and sends a
small `function_call_output` back. Neither the bytes nor a download URL ever
enter the transcript.

Clients offer the function exactly as `DISPLAY_FILE_TOOL` (a Responses flat
function tool; `DISPLAY_FILE_CHAT_TOOL` is the same for Chat Completions).
The arguments are strict: an object with exactly `file_id`, `filename` and
`mime_type`, all strings.

The output the client sends back is free-form; the demo graphs understand
`DISPLAY_FILE_OK` (`{"displayed": true}`) and a failure such as
`{"displayed": false, "error": "Download failed"}`.

This module imports nothing heavy, so a UI can import it (or copy the JSON).
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = [
    "DISPLAY_FILE",
    "DISPLAY_FILE_CHAT_TOOL",
    "DISPLAY_FILE_OK",
    "DISPLAY_FILE_PARAMETERS",
    "DISPLAY_FILE_TOOL",
    "display_file_arguments",
    "display_file_failure",
]

DISPLAY_FILE: Final = "display_file"
"""The function's name, as advertised in `lgos.client_tools`."""

_DESCRIPTION = (
    "Show the user a file from the Files API, such as a chart or a table the "
    "assistant just made. The client downloads the file by its ID and displays "
    "it; the result says whether it was shown."
)

DISPLAY_FILE_PARAMETERS: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "file_id": {
            "type": "string",
            "description": "The Files API ID of the file, e.g. file-abc123.",
        },
        "filename": {
            "type": "string",
            "description": "The name to show and save the file under, e.g. chart.png.",
        },
        "mime_type": {
            "type": "string",
            "description": "The file's media type, e.g. image/png or text/csv.",
        },
    },
    "required": ["file_id", "filename", "mime_type"],
    "additionalProperties": False,
}
"""The strict JSON Schema of the arguments."""

DISPLAY_FILE_TOOL: Final[dict[str, Any]] = {
    "type": "function",
    "name": DISPLAY_FILE,
    "description": _DESCRIPTION,
    "parameters": DISPLAY_FILE_PARAMETERS,
    "strict": True,
}
"""The function as a Responses `tools` entry (`client.responses.create`)."""

DISPLAY_FILE_CHAT_TOOL: Final[dict[str, Any]] = {
    "type": "function",
    "function": {
        "name": DISPLAY_FILE,
        "description": _DESCRIPTION,
        "parameters": DISPLAY_FILE_PARAMETERS,
        "strict": True,
    },
}
"""The function as a Chat Completions `tools` entry."""

DISPLAY_FILE_OK: Final = json.dumps({"displayed": True})
"""The output a client sends back once the file is shown."""


def display_file_arguments(
    file_id: str, filename: str, mime_type: str
) -> dict[str, str]:
    """Return the arguments of one `display_file` call.

    Args:
        file_id: The uploaded file's ID.
        filename: The name to show, e.g. `revenue-by-month.png`.
        mime_type: The media type, e.g. `image/png`.

    Returns:
        `{"file_id": ..., "filename": ..., "mime_type": ...}`.

    """
    return {"file_id": file_id, "filename": filename, "mime_type": mime_type}


def display_file_failure(output: str) -> str | None:
    """Tell whether a `display_file` output reports a failure.

    Args:
        output: The `function_call_output` the client sent.

    Returns:
        The reason (the `error` value, or a generic one) when the output is
        JSON with `displayed: false` or an `error`; else None, meaning the
        file was shown.

    """
    try:
        value = json.loads(output)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    error = value.get("error")
    if error or value.get("displayed") is False:
        return str(error or "the client could not display it")
    return None
