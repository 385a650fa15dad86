"""``python -m lgos_chainlit``: where it listens, and a taken port fails loudly."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from lgos_chainlit.__main__ import listen_address, port_problem


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
