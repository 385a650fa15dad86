"""Call an ASGI app directly, seeing each body message as the server sends it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import orjson


def post_scope(
    path: str, headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    """The ASGI scope of a JSON ``POST`` to ``path`` (plus ``headers``)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"lgos"),
            (b"content-type", b"application/json"),
            *(headers or []),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }


def leaving_receive(
    body: dict[str, Any], leave: Callable[[], Awaitable[None]] | None = None
) -> Callable[[], Awaitable[dict[str, Any]]]:
    """An ASGI ``receive`` that sends ``body``, then the client's disconnect.

    The disconnect comes at once, or once ``leave()`` returns.
    """
    raw = orjson.dumps(body)
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": raw, "more_body": False}
        if leave is not None:
            await leave()
        return {"type": "http.disconnect"}

    return receive


async def call_asgi(
    app: Any,
    path: str,
    body: dict[str, Any],
    on_body: Callable[[bytes], Awaitable[None]] | None = None,
) -> list[bytes]:
    """POST ``body`` to ``app``; return the bodies of the response's ASGI messages.

    The client never disconnects. ``on_body`` is awaited with each non-empty
    body as the app sends it, so a test can look at server state at that
    moment (before the app goes on).

    Raises:
        AssertionError: The response status is not 200.

    """
    raw = orjson.dumps(body)
    scope = post_scope(path)
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.Event().wait()  # never disconnects
        raise AssertionError

    bodies: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message
        if message["type"] == "http.response.body" and message["body"]:
            if on_body is not None:
                await on_body(message["body"])
            bodies.append(message["body"])

    await app(scope, receive, send)
    return bodies
