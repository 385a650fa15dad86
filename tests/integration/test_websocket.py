"""A WebSocket on the API (the Responses API's WebSocket mode) is told: HTTP only.

A real WebSocket client (``websockets``) connects to LGOS served by Uvicorn
on loopback: the handshake is answered with a 404 carrying OpenAI's error
envelope and a message saying what to send instead, not a bare 403. A
server without ASGI's denial-response extension gets an accepted
connection closed at once with code 1008 and a short reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import orjson
import pytest
import uvicorn
from fastapi import FastAPI
from starlette.types import Message
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from langgraph_openai_serve import LanggraphOpenaiServe
from langgraph_openai_serve.api.websocket import http_only, refuse_websocket
from tests.contract.openapi import validate
from tests.lgos.graphs import make_registry
from tests.procs import free_port
from tests.waiting import eventually

pytestmark = pytest.mark.anyio


@pytest.fixture
async def origin() -> AsyncIterator[str]:
    """LGOS served by Uvicorn on a free loopback port: ``127.0.0.1:<port>``."""
    app = FastAPI()
    LanggraphOpenaiServe(make_registry(), app).bind_openai_api()
    port = free_port()
    config = uvicorn.Config(app, port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    await eventually(lambda: server.started, message="uvicorn to start")
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@pytest.mark.parametrize("path", ["/v1/responses", "/v1/chat/completions", "/v1/x"])
async def test_a_websocket_client_is_told_http_only(origin: str, path: str) -> None:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(f"ws://{origin}{path}", open_timeout=10):
            pass
    response = refused.value.response
    assert response.status_code == 404
    body = orjson.loads(response.body)
    validate("ErrorResponse", body)
    assert body["error"]["code"] == "not_found"
    assert body["error"]["message"] == http_only("/v1")
    assert "POST /v1/responses" in body["error"]["message"]


async def test_without_denial_responses_the_socket_closes_with_a_reason() -> None:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "websocket", "root_path": "/v1", "path": "/v1/responses"}
    await refuse_websocket(scope, receive, send)
    assert [m["type"] for m in sent] == ["websocket.accept", "websocket.close"]
    assert sent[1]["code"] == 1008
    assert (
        sent[1]["reason"]
        == "LGOS serves the OpenAI API over HTTP only: POST /v1/responses"
    )
    long = {**scope, "root_path": "/" + "p" * 200}
    sent.clear()
    await refuse_websocket(long, receive, send)
    assert len(sent[1]["reason"].encode()) <= 123
