"""Server-Sent Events framing and the streaming response type."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
from sse_starlette import EventSourceResponse

__all__ = ["FinalChunk", "data_bytes", "event_bytes", "sse_response"]


class FinalChunk(bytes):
    """The last chunk of an event stream, holding its terminal event(s).

    An encoder yields its terminal events (``response.completed``,
    ``response.failed``, Chat's ``[DONE]`` …) as one ``FinalChunk``, as its
    last chunk. The route then closes the encoder and releases the run (an
    interrupt run's lease and checkpoint clean-up) before sending it, so a
    client that acts on the terminal event, for instance by resuming a paused
    run on another server at once, never finds the run still held. Every
    other chunk is sent as soon as it is yielded.
    """

    __slots__ = ()


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
