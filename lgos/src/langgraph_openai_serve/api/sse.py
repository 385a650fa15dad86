"""Server-Sent Events framing and the streaming response type."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import orjson
from sse_starlette import EventSourceResponse
from starlette.types import Receive, Scope, Send

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


class _ClosingEventSourceResponse(EventSourceResponse):
    """An ``EventSourceResponse`` that awaits ``on_close`` however it ends."""

    def __init__(
        self,
        body: AsyncIterator[bytes],
        on_close: Callable[[], Awaitable[None]],
        **kwargs: Any,
    ) -> None:
        super().__init__(body, **kwargs)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):
                await self._on_close()


def sse_response(
    body: AsyncIterator[bytes],
    on_close: Callable[[], Awaitable[None]] | None = None,
) -> EventSourceResponse:
    """Stream pre-framed SSE bytes; a client disconnect cancels ``body``.

    Args:
        body: The framed events.
        on_close: Awaited once the response is over, however it ended: also
            when the client left before ``body`` was ever iterated (so a
            ``finally`` in ``body`` never ran). Shielded from cancellation.

    """
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if on_close is None:
        return EventSourceResponse(body, headers=headers)
    return _ClosingEventSourceResponse(body, on_close, headers=headers)
