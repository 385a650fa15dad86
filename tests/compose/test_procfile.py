"""demo/Procfile's lines and scripts/wait-for-http.py, run by sh as honcho runs them.

`just demo` (local processes) starts the Procfile's processes with honcho; these
tests run single lines with a fake ``uv`` (and a fake bifrost-http) that log how
they were called.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.compose.stack import ROOT
from tests.procs import free_port

pytestmark = [pytest.mark.integration]


def test_one_procfile_has_every_process() -> None:
    lines = (ROOT / "demo" / "Procfile").read_text(encoding="utf-8").splitlines()
    processes = dict(line.split(": ", 1) for line in lines)
    assert list(processes) == [
        "api",
        "bifrost",
        "chainlit",
        "corpus",
        "files",
        "gateway",
        "mcp",
        "open-webui",
    ]
    assert not (ROOT / "demo" / "Procfile.gateway").exists()
    # The UI starts once each URL of DEMO_UI_WAIT_FOR answers (the gateway,
    # the MCP server): none without the flags.
    assert processes["chainlit"].startswith(
        'for url in $DEMO_UI_WAIT_FOR; do uv run --frozen --no-sync python scripts/wait-for-http.py "$url"; done; exec uv run '
    )
    assert processes["gateway"] == (
        "exec uv run --frozen --no-sync python scripts/with-lgos-logging.py -m lgos_demo_gateway serve"
    )
    assert processes["mcp"] == (
        "exec uv run --frozen --no-sync python scripts/with-lgos-logging.py "
        '-m lgos_demo_api.mcp_server --host "$DEMO_MCP_HOST" --port "$DEMO_MCP_PORT"'
    )


def test_the_chainlit_line_waits_for_each_url_then_starts(tmp_path: Path) -> None:
    """The Procfile's chainlit line, run by sh with a fake uv that logs."""
    (line,) = [
        line.split(": ", 1)[1]
        for line in (ROOT / "demo" / "Procfile").read_text().splitlines()
        if line.startswith("chainlit: ")
    ]
    log = tmp_path / "uv.log"
    uv = tmp_path / "uv"
    uv.write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    uv.chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "DEMO_CHAINLIT_HOST": "h"}
    env["DEMO_CHAINLIT_PORT"] = "1"
    for wait_for, waits in [
        ("", []),
        (
            "http://g/health/liveliness http://m/health",
            ["http://g/health/liveliness", "http://m/health"],
        ),
    ]:
        log.unlink(missing_ok=True)
        subprocess.run(
            ["sh", "-c", line], env={**env, "DEMO_UI_WAIT_FOR": wait_for}, check=True
        )
        calls = log.read_text().splitlines()
        assert calls == [
            *(
                f"run --frozen --no-sync python scripts/wait-for-http.py {url}"
                for url in waits
            ),
            "run --frozen --no-sync python scripts/with-lgos-logging.py -m lgos_chainlit --host h --port 1",
        ]


def test_the_open_webui_line_waits_for_the_api_then_starts() -> None:
    lines = (ROOT / "demo" / "Procfile").read_text(encoding="utf-8").splitlines()
    processes = dict(line.split(": ", 1) for line in lines)
    assert processes["open-webui"] == (
        "for url in $DEMO_OPEN_WEBUI_WAIT_FOR; do uv run --frozen --no-sync python "
        'scripts/wait-for-http.py "$url"; done; exec bash scripts/open-webui.sh'
    )


def test_the_procfile_line_writes_the_config_then_runs_the_binary(
    tmp_path: Path,
) -> None:
    """demo/Procfile's bifrost line, run by sh with a fake uv and binary."""
    (line,) = [
        line.split(": ", 1)[1]
        for line in (ROOT / "demo" / "Procfile").read_text().splitlines()
        if line.startswith("bifrost: ")
    ]
    log = tmp_path / "calls.log"
    uv = tmp_path / "uv"
    uv.write_text(f'#!/bin/sh\necho "uv $*" >> {log}\n')
    uv.chmod(0o755)
    binary = tmp_path / "bifrost-http"
    binary.write_text(f'#!/bin/sh\necho "bifrost $*" >> {log}\n')
    binary.chmod(0o755)
    env = {
        "PATH": f"{tmp_path}:/usr/bin:/bin",
        "DEMO_BIFROST_LGOS_URL": "http://127.0.0.1:8000",
        "DEMO_BIFROST_APP_DIR": str(tmp_path / "app"),
        "DEMO_BIFROST_BIN": str(binary),
        "DEMO_BIFROST_HOST": "127.0.0.1",
        "DEMO_BIFROST_PORT": "8007",
    }
    subprocess.run(["sh", "-c", line], env=env, check=True, timeout=10)
    assert log.read_text().splitlines() == [
        "uv run --frozen --no-sync python -m lgos_demo_gateway.bifrost "
        f"--lgos-url http://127.0.0.1:8000 --check --out {tmp_path / 'app'}",
        f"bifrost -app-dir {tmp_path / 'app'} -host 127.0.0.1 -port 8007",
    ]


def test_wait_for_http_waits_for_a_late_server_and_gives_up_without_failing(
    tmp_path: Path,
) -> None:
    import http.server
    import threading

    script = ROOT / "scripts" / "wait-for-http.py"
    port = free_port()
    url = f"http://127.0.0.1:{port}/health"
    server: list[http.server.HTTPServer] = []

    def serve_later() -> None:
        time.sleep(1.5)
        httpd = http.server.HTTPServer(
            ("127.0.0.1", port), http.server.SimpleHTTPRequestHandler
        )
        server.append(httpd)
        httpd.serve_forever()

    threading.Thread(target=serve_later, daemon=True).start()
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(script), url, "20"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert 1.0 < time.monotonic() - started < 15
    assert "did not answer" not in done.stderr
    server[0].shutdown()

    gone = subprocess.run(
        [sys.executable, str(script), f"http://127.0.0.1:{free_port()}/", "1"],
        capture_output=True,
        text=True,
    )
    assert gone.returncode == 0
    assert "did not answer within 1 s; starting anyway." in gone.stderr
