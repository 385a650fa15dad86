"""Demo API tests. ``gallery`` (``just demo/marimo`` serving the notebooks)
is shared by the notebook tests."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from lgos_demo_api.settings import DemoApiSettings
from tests.demo.notebooks import JUST, ROOT, offline_env
from tests.procs import free_port


@pytest.fixture
def offline_settings() -> DemoApiSettings:
    """Settings that select the offline model whatever the environment says."""
    return DemoApiSettings(_env_file=None, openai_api_key=None, offline_chunk_delay=0.0)


@pytest.fixture
def gallery(tmp_path: Path) -> Iterator[str]:
    """`just demo/marimo` for real, on a free port; yields its URL."""
    port = free_port()
    env = {**offline_env(), "DEMO_MARIMO_PORT": str(port)}
    env = {k: v for k, v in env.items() if k != "DEMO_MARIMO_HOST"}
    log = tmp_path / "marimo.log"
    assert JUST is not None, "just is not installed"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [JUST, "--dotenv-filename", ".no-such-env", "demo/marimo"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        assert f"read-only: {url}" in log.read_text()
        assert "Create or edit" not in log.read_text()
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
