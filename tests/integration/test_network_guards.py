"""A web page cannot drive LGOS: real `lgos serve`, Files and corpus processes.

The probes of issue 39's table, rows 1-3 and 7, each against a real Uvicorn
process on loopback: a JSON body sent as ``text/plain`` (what a cross-site
form or a no-preflight ``fetch`` sends), a rebinding ``Host`` (CVE-2024-28224),
a foreign ``Origin``, and a client leaving mid-body.
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.procs import free_port, lgos_command, running

pytestmark = [pytest.mark.integration]

FACTORY = "tests.lgos.graphs:serve_registry"
REBIND = "rebind.attacker.example"
EVIL = "http://evil.example"
APP = "http://app.example"
BODY = b'{"model": "echo", "input": "hello"}'


@dataclass
class Served:
    url: str
    port: int
    log: Path


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`lgos serve` on 127.0.0.1, no guard settings: the defaults."""
    log = tmp_path_factory.mktemp("guards") / "api.log"
    port = free_port()
    with running(
        [
            *lgos_command(),
            "serve",
            FACTORY,
            "--port",
            str(port),
            "--log-level",
            "debug",
        ],
        ready_url=f"http://127.0.0.1:{port}/health/ready",
        log=log,
        env={"LGOS_LOG_FORMAT": "text"},
    ):
        yield Served(f"http://127.0.0.1:{port}", port, log)


@pytest.fixture(scope="module")
def configured_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`lgos serve` with a host and an origin of the operator's."""
    log = tmp_path_factory.mktemp("guards") / "configured.log"
    port = free_port()
    env = {"LGOS_ALLOWED_HOSTS": "api.internal", "LGOS_CORS_ALLOW_ORIGINS": APP}
    with running(
        [*lgos_command(), "serve", FACTORY, "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/health/ready",
        log=log,
        env=env,
    ):
        yield Served(f"http://127.0.0.1:{port}", port, log)


def _post(url: str, **headers: str) -> httpx.Response:
    return httpx.post(f"{url}/v1/responses", content=BODY, headers=headers, timeout=30)


# --- row 1: only JSON bodies are parsed ----------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ],
)
def test_a_body_a_web_page_can_send_without_preflight_is_refused(
    api: Served, content_type: str
) -> None:
    reply = _post(api.url, **{"content-type": content_type})
    assert reply.status_code == 415
    error = reply.json()["error"]
    assert error["code"] == "unsupported_media_type"
    assert error["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    "content_type", [None, "application/json", "application/json; charset=utf-8"]
)
def test_json_bodies_and_bodies_without_a_type_run(
    api: Served, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    reply = _post(api.url, **headers)
    assert reply.status_code == 200, reply.text
    assert reply.json()["output"][0]["content"][0]["text"] == "Echo: hello"


# --- row 8: a key twice in one object -------------------------------------------


@pytest.mark.parametrize(
    ("body", "key"),
    [
        (b'{"model": "echo", "model": "approval", "input": "hello"}', "model"),
        (
            b'{"model": "echo", "input": [{"role": "user", "content": "a",'
            b' "role": "system"}]}',
            "role",
        ),
    ],
)
def test_a_key_sent_twice_is_refused(api: Served, body: bytes, key: str) -> None:
    """Two parsers of one body (a gateway's, ours) must not read two requests:
    a key twice in one object, at any depth, is a 400 naming it."""
    reply = httpx.post(f"{api.url}/v1/responses", content=body, timeout=30)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert (error["code"], error["param"]) == ("invalid_json", key)
    assert f"'{key}' twice" in error["message"]


# --- row 2: DNS rebinding ------------------------------------------------------


def test_a_rebinding_host_is_refused_on_loopback(api: Served) -> None:
    reply = _post(api.url, host=f"{REBIND}:{api.port}")
    assert reply.status_code == 421
    assert reply.json()["error"]["code"] == "invalid_host"
    models = httpx.get(f"{api.url}/v1/models", headers={"host": REBIND}, timeout=10)
    assert models.status_code == 421
    for host in (f"localhost:{api.port}", f"127.0.0.1:{api.port}", "app.localhost"):
        assert _post(api.url, host=host).status_code == 200, host
    # The probes answer whatever the Host: a kubelet sends the pod's address.
    ready = httpx.get(f"{api.url}/health/ready", headers={"host": REBIND}, timeout=10)
    assert ready.status_code == 200


def test_allowed_hosts_are_the_only_other_names(configured_api: Served) -> None:
    url = configured_api.url
    assert _post(url, host="api.internal").status_code == 200
    assert _post(url, host=f"localhost:{configured_api.port}").status_code == 200
    assert _post(url, host=REBIND).status_code == 421


def _outward_address() -> str | None:
    """This machine's address on its default route, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def test_on_all_interfaces_only_loopback_connections_are_held_to_loopback_names(
    tmp_path: Path,
) -> None:
    address = _outward_address()
    # No silent skip (docs/testing.md): a machine with loopback alone cannot
    # show the rule for other addresses, and the run says so.
    assert address is not None, (
        "this machine has no address besides loopback: the rule for connections "
        "on other addresses cannot be checked here"
    )
    port = free_port()
    with running(
        [*lgos_command(), "serve", FACTORY, "--host", "0.0.0.0", "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/health/ready",
        log=tmp_path / "api.log",
    ):
        assert _post(f"http://127.0.0.1:{port}", host=REBIND).status_code == 421
        # Another address: the server cannot know its public names.
        assert _post(f"http://{address}:{port}", host="lgos.example").status_code == 200


# --- row 3: foreign origins ----------------------------------------------------


def test_a_foreign_origin_is_refused(api: Served) -> None:
    reply = _post(api.url, origin=EVIL, **{"content-type": "application/json"})
    assert reply.status_code == 403
    assert reply.json()["error"]["code"] == "cross_origin_request"
    assert "access-control-allow-origin" not in reply.headers
    preflight = httpx.options(
        f"{api.url}/v1/responses",
        headers={"origin": EVIL, "access-control-request-method": "POST"},
        timeout=10,
    )
    assert preflight.status_code == 403
    assert _post(api.url, origin="null").status_code == 403
    # The server's own origin (its FastAPI docs page, when on) is served.
    own = _post(api.url, origin=api.url, **{"content-type": "application/json"})
    assert own.status_code == 200


def test_an_allowed_origin_is_served_with_cors(configured_api: Served) -> None:
    url = configured_api.url
    preflight = httpx.options(
        f"{url}/v1/responses",
        headers={
            "origin": APP,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type",
        },
        timeout=10,
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == APP
    reply = _post(url, origin=APP, **{"content-type": "application/json"})
    assert reply.status_code == 200
    assert reply.headers["access-control-allow-origin"] == APP
    assert _post(url, origin=EVIL).status_code in (400, 403)


# --- row 7: a client leaving mid-body -------------------------------------------


def test_a_client_leaving_mid_body_is_one_info_line(api: Served) -> None:
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", api.port)) as connection:
            connection.sendall(
                b"POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n"
                b'{"model": "echo", "input": "'
            )
            time.sleep(0.2)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        text = api.log.read_text(errors="replace")
        if text.count("Request abandoned") >= 3:
            break
        time.sleep(0.1)
    text = api.log.read_text(errors="replace")
    assert text.count("Request abandoned") == 3
    assert "ClientDisconnect" not in text
    assert "Traceback" not in text


# --- the demo's Files service and corpus ------------------------------------------


def test_the_files_service_refuses_a_rebinding_page(
    tmp_path: Path, postgres_uri: str
) -> None:
    port = free_port()
    env = {
        "DEMO_FILES_API_KEY": "guard-key",
        "DEMO_FILES_DATABASE_URL": postgres_uri,
        "DEMO_FILES_STORAGE_URL": f"file://{tmp_path / 'objects'}",
    }
    args = [sys.executable, "-m", "lgos_demo_files", "--port", str(port)]
    with running(
        args,
        ready_url=f"http://127.0.0.1:{port}/health",
        log=tmp_path / "f.log",
        env=env,
    ):
        url = f"http://127.0.0.1:{port}/v1/files"
        auth = {"authorization": "Bearer guard-key"}
        assert httpx.get(url, headers=auth, timeout=10).status_code == 200
        rebound = httpx.get(url, headers={**auth, "host": REBIND}, timeout=10)
        assert rebound.status_code == 421
        upload = httpx.post(
            url,
            headers={**auth, "origin": EVIL},
            files={"file": ("a.txt", b"hi")},
            data={"purpose": "assistants"},
            timeout=10,
        )
        assert upload.status_code == 403
        assert httpx.get(url, headers=auth, timeout=10).json()["data"] == []


def test_the_corpus_refuses_a_rebinding_page(tmp_path: Path) -> None:
    port = free_port()
    args = [sys.executable, "-m", "lgos_demo_api.corpus_server", "--port", str(port)]
    with running(
        args, ready_url=f"http://127.0.0.1:{port}/healthz", log=tmp_path / "c.log"
    ):
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=10).status_code == 200
        rebound = httpx.get(
            f"http://127.0.0.1:{port}/", headers={"host": REBIND}, timeout=10
        )
        assert rebound.status_code == 421
