"""``HostOriginGuard`` checks WebSocket handshakes as it checks requests.

An app served behind the guard with a WebSocket route (as a chat UI has):
a foreign ``Host`` or ``Origin`` is closed before it is accepted (a server
answers that with HTTP 403), the app's own page and a non-browser client
(no ``Origin``) get through.
"""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from langgraph_openai_serve.server.guards import HostOriginGuard


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text("hello")
    await websocket.close()


def client() -> TestClient:
    app = Starlette(routes=[WebSocketRoute("/ws", echo)])
    guarded = HostOriginGuard(app, allowed_hosts=("ui",))
    return TestClient(guarded)


HOST = {"host": "ui:8001"}  # the test client's handshake says "testserver" otherwise


def test_own_page_and_clients_without_origin_connect() -> None:
    own_page = HOST | {"origin": "http://ui:8001"}
    with client().websocket_connect("/ws", headers=own_page) as ws:
        assert ws.receive_text() == "hello"
    with client().websocket_connect("/ws", headers=HOST) as ws:
        assert ws.receive_text() == "hello"


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"origin": "http://ui:9999"},  # another port: another origin
        {"host": "rebind.attacker.example:8001"},
    ],
)
def test_a_foreign_page_is_closed_before_acceptance(headers: dict[str, str]) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client().websocket_connect("/ws", headers=HOST | headers),
    ):
        pass
    assert closed.value.code == 1008
