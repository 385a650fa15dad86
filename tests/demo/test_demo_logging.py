"""`just demo --local` prints one readable log format, without library debug lines.

The API (`lgos serve`) logs through LGOS's logging setup; the Procfile runs the
other processes through scripts/with-lgos-logging.py, which applies the same
setup, and scripts/demo.sh picks `LGOS_LOG_FORMAT=text` unless one is set.
The handlers drop records below the chosen level, so `bm25s` (which sets its
own logger to DEBUG when imported) prints no debug line.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from langgraph_openai_serve.server.logging_config import TextFormatter
from tests.e2e.conftest import base_env
from tests.procs import ROOT, executable, free_port

pytestmark = [pytest.mark.integration]

# `2026-12-02 01:43:39,979 INFO uvicorn.error: Started server process [20975]`
TEXT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARNING|ERROR|CRITICAL) "
    r"(?P<logger>[\w.]+): \S"
)
# Honcho's own lines about the processes it runs.
HONCHO_LINE = re.compile(
    r"^(\w+\.\d+ (started|stopped) \(|sending SIGTERM to |SIGINT received$)"
)
BANNER_END = "Press Ctrl-C to stop everything."


def test_library_debug_records_stay_out_at_info() -> None:
    """bm25s sets its logger to DEBUG on import; at info its lines stay out."""
    code = (
        "import logging\n"
        "from langgraph_openai_serve.server.logging_config import configure_logging\n"
        "configure_logging('text', 'info')\n"
        "import bm25s\n"
        "assert logging.getLogger('bm25s').level == logging.DEBUG\n"
        "bm25s.BM25().index(bm25s.tokenize(['a kettle', 'a refund']), "
        "show_progress=False)\n"
        "logging.getLogger('lgos_demo_api').info('ours')\n"
        "logging.getLogger('lgos_demo_api').debug('ours, debug')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "DEBUG" not in result.stderr, result.stderr
    assert "Building index" not in result.stderr
    assert "INFO lgos_demo_api: ours" in result.stderr


def test_text_access_lines_do_not_repeat_the_request_line() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/v1/models", "1.1", 200),
        None,
    )
    record.request_id = "req_1"
    line = TextFormatter().format(record)
    assert line.endswith(
        'INFO uvicorn.access: 127.0.0.1:5000 - "GET /v1/models HTTP/1.1" 200 '
        "request_id=req_1"
    )


FAKE_UV = """#!/bin/sh
# The demo's own sync step is not needed here: the tests run in the synced venv.
if [ "$1" = sync ]; then exit 0; fi
exec {uv} "$@"
"""


# `just demo` gives the API the demo key (DEMO_LGOS_API_KEY, default lgos-demo).
DEMO_KEY = {"Authorization": "Bearer lgos-demo"}


def _ready(url: str) -> bool:
    try:
        return httpx.get(url, headers=DEMO_KEY, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.timeout(240)
def test_every_local_demo_process_logs_one_readable_format(tmp_path: Path) -> None:
    uv = executable("uv")
    assert uv, "uv runs the demo"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(FAKE_UV.format(uv=uv), encoding="utf-8")
    (bin_dir / "uv").chmod(0o755)
    ports = {
        name: str(free_port())
        for name in (
            "DEMO_API_PORT",
            "DEMO_CHAINLIT_PORT",
            "DEMO_FILES_PORT",
            "DEMO_CORPUS_PORT",
        )
    }
    env = {
        key: value
        for key, value in base_env().items()
        if not key.startswith(("LGOS_", "DEMO_", "UVICORN_", "CHAINLIT_"))
    }
    env.update(ports)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["DEMO_CHAINLIT_DATA_DIR"] = str(tmp_path / "chainlit")
    env["DEMO_FILES_STORAGE_URL"] = str(tmp_path / "files" / "objects")
    env["DEMO_FILES_DATABASE_URL"] = str(tmp_path / "files" / "metadata.sqlite3")
    log = tmp_path / "demo.log"
    with log.open("wb") as sink:
        demo = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "demo.sh"), "--local"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    api = f"http://127.0.0.1:{ports['DEMO_API_PORT']}/v1/models"
    urls = [
        api,
        f"http://127.0.0.1:{ports['DEMO_CHAINLIT_PORT']}/auth/config",
        f"http://127.0.0.1:{ports['DEMO_FILES_PORT']}/health",
        f"http://127.0.0.1:{ports['DEMO_CORPUS_PORT']}/healthz",
    ]
    try:
        deadline = time.monotonic() + 120
        while not all(_ready(url) for url in urls):
            assert demo.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.5)
        assert httpx.get(api, timeout=10).status_code == 401  # the demo key is on
        assert httpx.get(api, headers=DEMO_KEY, timeout=10).status_code == 200
        time.sleep(1)
    finally:
        os.killpg(demo.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends
        try:
            demo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait(timeout=10)
    output = log.read_text(errors="replace")
    assert BANNER_END in output, output
    lines = [line for line in output.split(BANNER_END, 1)[1].splitlines() if line]
    loggers = set()
    for line in lines:
        if HONCHO_LINE.match(line):
            continue
        match = TEXT_LINE.match(line)
        assert match, f"not the demo's log format: {line!r}\n{output}"
        loggers.add(match["logger"])
    # Every process spoke in it: three Uvicorn servers, Chainlit, the access log.
    assert sum("Uvicorn running on" in line for line in lines) == 3, output
    assert {"uvicorn.error", "uvicorn.access", "chainlit"} <= loggers, output
