"""``just docs serve`` stops cleanly on Ctrl-C: no "Aborted!", exit status 0."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.procs import ROOT, free_port, wait_http

# The site build serves Mermaid from the pinned npm package (scripts/docs-js).
pytestmark = [pytest.mark.clients]


def test_ctrl_c_ends_the_preview_without_an_error(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                "uv",
                "run",
                "--frozen",
                "--no-sync",
                "python",
                "scripts/docs-serve.py",
                "--dev-addr",
                f"127.0.0.1:{port}",
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
            start_new_session=True,  # its own process group, like a terminal's job
        )
        try:
            wait_http(f"http://127.0.0.1:{port}/", process, log, timeout=120)
            # Ctrl-C signals the whole group: uv and the server it runs.
            os.killpg(process.pid, signal.SIGINT)
            assert process.wait(timeout=30) == 0, log.read_text()
        finally:
            if process.poll() is None:
                process.kill()
    assert "Aborted!" not in log.read_text()
