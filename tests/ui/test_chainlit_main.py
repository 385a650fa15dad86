"""``python -m lgos_chainlit``: where it listens, and a taken port fails loudly."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from lgos_chainlit.__main__ import exposed_default_login, listen_address, port_problem
from lgos_chainlit.paths import APP_ROOT
from lgos_chainlit.settings import get_settings


def test_listen_address_reads_options_then_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CHAINLIT_HOST", raising=False)
    monkeypatch.delenv("CHAINLIT_PORT", raising=False)
    assert listen_address([]) == ("127.0.0.1", 8000)
    assert listen_address(["--host", "0.0.0.0", "--port", "8001"]) == ("0.0.0.0", 8001)
    assert listen_address(["--port=9", "--debug"]) == ("127.0.0.1", 9)
    monkeypatch.setenv("CHAINLIT_PORT", "8123")
    monkeypatch.setenv("CHAINLIT_HOST", "localhost")
    assert listen_address([]) == ("localhost", 8123)
    assert listen_address(["--port", "8002"]) == ("localhost", 8002)


@pytest.mark.integration
def test_a_taken_port_exits_non_zero() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert port_problem("127.0.0.1", port) is not None
        result = subprocess.run(
            [sys.executable, "-m", "lgos_chainlit", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert port_problem("127.0.0.1", port) is None


@pytest.fixture
def fresh_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in ("DEMO_CHAINLIT_DEMO_PASSWORD", "DEMO_CHAINLIT_PUBLISH_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


def test_the_demo_login_is_for_loopback_only(
    fresh_settings: pytest.MonkeyPatch,
) -> None:
    for host in ("127.0.0.1", "localhost", "::1", "[::1]"):
        assert exposed_default_login(host) is None, host
    for host in ("0.0.0.0", "192.168.1.20", "ui.example.com"):
        reason = exposed_default_login(host)
        assert reason is not None
        assert "DEMO_CHAINLIT_DEMO_PASSWORD" in reason
    # Compose: bound to 0.0.0.0 in the container, published on loopback.
    fresh_settings.setenv("DEMO_CHAINLIT_PUBLISH_ADDRESS", "127.0.0.1")
    get_settings.cache_clear()
    assert exposed_default_login("0.0.0.0") is None
    fresh_settings.setenv("DEMO_CHAINLIT_PUBLISH_ADDRESS", "0.0.0.0")
    fresh_settings.setenv("DEMO_CHAINLIT_DEMO_PASSWORD", "a-password-of-mine")
    get_settings.cache_clear()
    assert exposed_default_login("0.0.0.0") is None


@pytest.mark.integration
def test_the_default_login_on_the_network_does_not_start(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEMO_CHAINLIT_DEMO_PASSWORD", "DEMO_CHAINLIT_PUBLISH_ADDRESS")
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lgos_chainlit",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "DEMO_CHAINLIT_DATA_DIR": str(tmp_path)},
    )
    assert result.returncode == 1
    assert "documented demo password" in result.stderr


def test_no_other_site_may_read_the_ui_with_the_users_cookies() -> None:
    config = tomllib.loads((APP_ROOT / ".chainlit" / "config.toml").read_text())
    assert config["project"]["allow_origins"] == []


def test_the_ui_answers_its_own_names_and_pages(tmp_path: Path) -> None:
    from lgos_chainlit.settings import ChainlitSettings
    from lgos_chainlit.site_guard import LOOPBACK_HOSTS, allowed_hosts, same_host_origin

    def settings(**values: object) -> ChainlitSettings:
        return ChainlitSettings(data_dir=tmp_path, **values)  # type: ignore[arg-type]

    assert allowed_hosts(settings(), "127.0.0.1") == list(LOOPBACK_HOSTS)
    # Compose: bound to 0.0.0.0 in the container, published on loopback.
    assert allowed_hosts(settings(publish_address="127.0.0.1"), "0.0.0.0") == list(
        LOOPBACK_HOSTS
    )
    # Published on the network with no names given: any name, as it cannot know.
    assert allowed_hosts(settings(publish_address="192.0.2.7"), "0.0.0.0") == ["*"]
    named = settings(allowed_hosts="Chat.Example.com, *.corp.example")
    assert allowed_hosts(named, "0.0.0.0") == [
        *LOOPBACK_HOSTS,
        "chat.example.com",
        "*.corp.example",
    ]
    environ = {"HTTP_HOST": "127.0.0.1:8001"}
    assert same_host_origin("http://127.0.0.1:8001", environ)
    assert same_host_origin("https://127.0.0.1:8001", environ)  # behind TLS
    assert not same_host_origin("http://127.0.0.1:8002", environ)
    assert not same_host_origin("http://evil.example", environ)
    assert not same_host_origin(None, environ)
