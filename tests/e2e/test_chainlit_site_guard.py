"""The Chainlit UI answers only its own names and opens its socket only to its own pages.

On the real UI process (``python -m lgos_chainlit`` on loopback): a DNS
rebinding page (its own host name resolved to 127.0.0.1) gets HTTP 400, and
another page of this machine (another port: same site, so the login cookie
would go along) cannot open the UI's Socket.IO connection, over WebSocket or
polling. The UI's own page can. See ``lgos_chainlit.site_guard``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.e2e.conftest import Service

pytestmark = pytest.mark.integration

SOCKET = "/ws/socket.io/?EIO=4&transport={transport}"


def _socket_url(ui: Service, transport: str) -> str:
    return ui.url.replace("http://", "ws://") + SOCKET.format(transport=transport)


def test_a_rebinding_host_name_is_refused(chainlit_ui: Service) -> None:
    port = urlsplit(chainlit_ui.url).port
    assert httpx.get(f"{chainlit_ui.url}/auth/config", timeout=30).status_code == 200
    for host in (f"rebind.attacker.example:{port}", "rebind.attacker.example"):
        refused = httpx.get(
            f"{chainlit_ui.url}/auth/config", headers={"Host": host}, timeout=30
        )
        assert refused.status_code == 400, host
    with pytest.raises(InvalidStatus) as handshake:
        connect(
            _socket_url(chainlit_ui, "websocket"),
            additional_headers={"Host": f"rebind.attacker.example:{port}"},
            origin=f"http://rebind.attacker.example:{port}",  # type: ignore[arg-type]
            open_timeout=30,
        )
    # Closed before it was accepted: Uvicorn answers the handshake with 403.
    assert handshake.value.response.status_code == 403


def test_only_the_uis_own_page_opens_its_socket(chainlit_ui: Service) -> None:
    port = urlsplit(chainlit_ui.url).port
    other_page = f"http://127.0.0.1:{port + 1 if port < 65535 else port - 1}"
    with pytest.raises(InvalidStatus) as handshake:
        connect(
            _socket_url(chainlit_ui, "websocket"),
            origin=other_page,  # type: ignore[arg-type]
            open_timeout=30,
        )
    assert handshake.value.response.status_code in (400, 403)
    polling = httpx.get(
        chainlit_ui.url + SOCKET.format(transport="polling"),
        headers={"Origin": other_page},
        timeout=30,
    )
    assert polling.status_code == 400
    assert "is not an accepted origin" in polling.text
    # The UI's own page: the handshake is accepted (Socket.IO then asks for
    # its auth, which this test does not send).
    with connect(
        _socket_url(chainlit_ui, "websocket"),
        origin=chainlit_ui.url,  # type: ignore[arg-type]
        open_timeout=30,
    ) as socket:
        assert socket.recv(timeout=30).startswith("0{")  # Engine.IO's open packet
