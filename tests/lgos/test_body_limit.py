"""Request bodies over ``LGOS_MAX_REQUEST_BYTES`` are refused while they are read.

The app is called as ASGI directly, so each test sees exactly how many body
bytes the server asked for before it answered 413 in the OpenAI envelope.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from fastapi import FastAPI

from langgraph_openai_serve import LanggraphOpenaiServe, LgosSettings
from tests.contract.openapi import validate
from tests.lgos.asgi import post_scope
from tests.lgos.graphs import make_registry

pytestmark = pytest.mark.anyio

CHUNK = 64 * 1024


def _app(limit: int | None = None) -> FastAPI:
    host = FastAPI()
    settings = LgosSettings(max_request_bytes=limit) if limit else LgosSettings()
    LanggraphOpenaiServe(make_registry(), host, settings=settings).bind_openai_api()
    return host


async def _post(
    app: FastAPI, chunks: list[bytes], *, declared: int | None
) -> tuple[int, dict[str, Any], int]:
    """POST ``chunks``; return the status, the JSON body and the bytes read."""
    headers = []
    if declared is not None:
        headers.append((b"content-length", str(declared).encode()))
    scope = post_scope("/v1/responses", headers)
    pending = list(chunks)
    read = 0

    async def receive() -> dict[str, Any]:
        nonlocal read
        if not pending:  # the client waits for its answer, as over a socket
            await asyncio.Event().wait()
        chunk = pending.pop(0)
        read += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": bool(pending)}

    status = 0
    body = b""

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, body
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body += message.get("body", b"")

    await app(scope, receive, send)
    return status, orjson.loads(body) if body else {}, read


def _big_body(size: int) -> list[bytes]:
    raw = orjson.dumps({"model": "echo", "input": "x" * size})
    return [raw[i : i + CHUNK] for i in range(0, len(raw), CHUNK)]


def _assert_too_large(status: int, body: dict[str, Any], limit: int) -> None:
    assert status == 413
    validate("ErrorResponse", body)
    error = body["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error",
        "request_too_large",
        None,
    )
    assert str(limit) in error["message"]


async def test_a_declared_length_over_the_limit_is_refused_unread() -> None:
    limit = LgosSettings().max_request_bytes
    assert limit == 16 * 1024 * 1024
    status, body, read = await _post(_app(), [b"{}"], declared=100 * 1024 * 1024)
    _assert_too_large(status, body, limit)
    assert read == 0


async def test_a_chunked_body_is_refused_as_it_passes_the_limit() -> None:
    limit = 256 * 1024
    chunks = _big_body(4 * 1024 * 1024)
    status, body, read = await _post(_app(limit), chunks, declared=None)
    _assert_too_large(status, body, limit)
    assert limit < read <= limit + CHUNK  # stopped at the first chunk past it


async def test_a_body_under_the_limit_is_served() -> None:
    limit = 256 * 1024
    chunks = _big_body(100 * 1024)
    size = sum(len(c) for c in chunks)
    status, body, read = await _post(_app(limit), chunks, declared=size)
    assert status == 200, body
    assert read == size
    assert body["output"][0]["content"][0]["text"] == "Echo: " + "x" * 100 * 1024


def test_the_limit_is_an_lgos_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LGOS_MAX_REQUEST_BYTES", "2048")
    assert LgosSettings().max_request_bytes == 2048
    monkeypatch.setenv("LGOS_MAX_REQUEST_BYTES", "10")
    with pytest.raises(ValueError, match="1024"):
        LgosSettings()
