"""Server-Sent Events framing and the streaming response type."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
from sse_starlette import EventSourceResponse

__all__ = ["data_bytes", "event_bytes", "sse_response"]


def event_bytes(event: dict[str, Any]) -> bytes:
    """Frame a Responses stream event: ``event: <type>`` plus its JSON data."""
    return b"event: %s\ndata: %s\n\n" % (
        event["type"].encode(),
        orjson.dumps(event),
    )


def data_bytes(payload: dict[str, Any] | str) -> bytes:
    """Frame a Chat Completions chunk (``data: <json>``) or ``[DONE]``."""
    body = payload.encode() if isinstance(payload, str) else orjson.dumps(payload)
    return b"data: %s\n\n" % body


def sse_response(body: AsyncIterator[bytes]) -> EventSourceResponse:
    """Stream pre-framed SSE bytes; a client disconnect cancels ``body``."""
    return EventSourceResponse(
        body,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
