"""LGOS's event-stream response keeps sse-starlette's behaviour.

Its sends skip sse-starlette's per-message cancel scope when no send timeout
is set; the end of the body, a disconnect, pings, a cancellation from
outside, a server shutdown, HEAD and a send timeout behave as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sse_starlette.sse import AppStatus, SendTimeoutError
from starlette.types import Message

from langgraph_openai_serve.api.sse import sse_response
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

SCOPE = {"type": "http", "method": "POST", "headers": []}


class Client:
    """ASGI ``receive``/``send`` of a client that may disconnect."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.left = asyncio.Event()

    async def receive(self) -> Message:
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.sent.append(message)

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent)


class Body:
    """A body that yields ``chunks`` then waits for ``go`` (or forever)."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks
        self.go = asyncio.Event()
        self.closed = asyncio.Event()

    async def __call__(self) -> AsyncIterator[bytes]:
        try:
            for chunk in self.chunks:
                yield chunk
            await self.go.wait()
            yield b"data: end\n\n"
        finally:
            self.closed.set()


def _response(body: Body, closes: list[str], **options: Any) -> Any:
    async def on_close() -> None:
        closes.append("closed")

    response = sse_response(body(), on_close=on_close)
    for name, value in options.items():
        setattr(response, name, value)
    return response


async def test_a_finished_body_ends_the_response() -> None:
    client, body, closes = Client(), Body(b"data: a\n\n"), []
    body.go.set()
    await _response(body, closes)(SCOPE, client.receive, client.send)
    assert client.sent[0]["type"] == "http.response.start"
    assert client.body == b"data: a\n\ndata: end\n\n"
    assert client.sent[-1] == {
        "type": "http.response.body",
        "body": b"",
        "more_body": False,
    }
    assert closes == ["closed"] and body.closed.is_set()


async def test_a_disconnect_stops_the_body_and_the_response_returns() -> None:
    client, body, closes = Client(), Body(b"data: a\n\n"), []
    call = asyncio.ensure_future(
        _response(body, closes)(SCOPE, client.receive, client.send)
    )
    await eventually(lambda: client.sent[1:], message="the first chunk")
    client.left.set()
    await asyncio.wait_for(call, 5)  # returns normally: not a cancellation
    assert body.closed.is_set() and closes == ["closed"]
    assert not any(m.get("more_body") is False for m in client.sent)


async def test_pings_come_every_interval_while_the_body_waits() -> None:
    client, body, closes = Client(), Body(), []
    response = _response(body, closes, ping_interval=0.02)
    call = asyncio.ensure_future(response(SCOPE, client.receive, client.send))
    await eventually(lambda: client.body.count(b": ping - ") >= 2, message="pings")
    body.go.set()
    await asyncio.wait_for(call, 5)
    assert client.body.endswith(b"data: end\n\n")


async def test_a_cancellation_from_outside_propagates() -> None:
    client, body, closes = Client(), Body(), []
    call = asyncio.ensure_future(
        _response(body, closes)(SCOPE, client.receive, client.send)
    )
    await eventually(lambda: client.sent, message="the response start")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert body.closed.is_set() and closes == ["closed"]


async def test_a_server_shutdown_stops_the_stream() -> None:
    client, body, closes = Client(), Body(), []
    call = asyncio.ensure_future(
        _response(body, closes)(SCOPE, client.receive, client.send)
    )
    await eventually(lambda: client.sent, message="the response start")
    AppStatus.should_exit = True
    try:
        await asyncio.wait_for(call, 5)  # sse-starlette's watcher polls at 0.5 s
    finally:
        AppStatus.should_exit = False
    assert body.closed.is_set() and closes == ["closed"]


async def test_head_answers_headers_only() -> None:
    client, body, closes = Client(), Body(), []
    head = {**SCOPE, "method": "HEAD"}
    await _response(body, closes)(head, client.receive, client.send)
    assert [m["type"] for m in client.sent] == [
        "http.response.start",
        "http.response.body",
    ]
    assert client.body == b"" and closes == ["closed"]


async def test_a_send_timeout_still_applies() -> None:
    client, body, closes = Client(), Body(b"data: a\n\n"), []

    async def slow_send(message: Message) -> None:
        if message["type"] == "http.response.body":
            await asyncio.sleep(5)

    response = _response(body, closes, send_timeout=0.01)
    with pytest.raises(SendTimeoutError):
        await response(SCOPE, client.receive, slow_send)
    assert body.closed.is_set() and closes == ["closed"]
