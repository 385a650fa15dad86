"""dirty-equals matchers for the random parts of wire shapes, for snapshots.

Use them inside ``inline_snapshot.snapshot(...)`` values: the snapshot keeps
every fixed field literal, so a wire change is one reviewable diff, while IDs
(and, with ``IsNow(unix_number=True)``, timestamps) match by shape.
"""

from __future__ import annotations

from typing import Any

from dirty_equals import IsStr


def an_id(prefix: str) -> IsStr:
    """An OpenAI-style ID: ``<prefix>_`` and 32 lowercase hex digits."""
    return IsStr(regex=rf"{prefix}_[0-9a-f]{{32}}")


def failed_message(reply: Any) -> str:
    """The client's text of a generic run failure: it names the reply's request ID."""
    request_id = reply.headers["x-request-id"]
    return (
        f"The graph run failed. Quote the request ID {request_id} to the "
        "server's operator: it is on the log line with the cause."
    )
