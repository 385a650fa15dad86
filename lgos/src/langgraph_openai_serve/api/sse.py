"""Server-Sent Events framing and the streaming response type."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import orjson
from sse_starlette import EventSourceResponse
from starlette.types import Message, Receive, Scope, Send

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


class _EventStream(EventSourceResponse):
    """An ``EventSourceResponse`` that sends without a needless cancel scope.

    sse-starlette wraps every send in ``anyio.move_on_after(send_timeout)``;
    with no timeout (LGOS sets none) that scope can never fire, yet costs a
    ``CancelScope`` per message. Sends with a timeout keep sse-starlette's
    behaviour (``SendTimeoutError``).
    """

    async def _send_with_timeout(self, send: Send, message: Message) -> None:
        if self.send_timeout is None:
            await send(message)
        else:
            await super()._send_with_timeout(send, message)


class _ClosingEventSourceResponse(_EventStream):
    """An event stream that awaits ``on_close`` however it ends."""

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
        return _EventStream(body, headers=headers)
    return _ClosingEventSourceResponse(body, on_close, headers=headers)
