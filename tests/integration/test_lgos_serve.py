"""`lgos serve` as a real process: registry factory, Uvicorn options and variables."""

from __future__ import annotations

from pathlib import Path

import httpx
from openai import OpenAI

from tests.procs import free_port, lgos_command, running


def test_serve_runs_a_registry_factory(tmp_path: Path) -> None:
    port = free_port()
    with running(
        [
            *lgos_command(),
            "serve",
            "tests.lgos.graphs:serve_registry",
            "--port",
            str(port),
        ],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=tmp_path / "api.log",
    ):
        client = OpenAI(
            base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0
        )
        assert client.models.retrieve("echo").model_extra["lgos"]["description"]
        stream = client.responses.create(model="echo", input="over http", stream=True)
        text = "".join(
            e.delta for e in stream if e.type == "response.output_text.delta"
        )
        assert text == "Echo: over http"


def test_serve_reads_uvicorn_and_lgos_variables(tmp_path: Path) -> None:
    port = free_port()
    env = {"UVICORN_PORT": str(port), "LGOS_OPENAI_API_PREFIX": "/openai/v1"}
    with running(
        [*lgos_command(), "serve", "tests.lgos.graphs:serve_registry"],
        ready_url=f"http://127.0.0.1:{port}/openai/v1/health",
        log=tmp_path / "api.log",
        env=env,
    ):
        assert httpx.get(f"http://127.0.0.1:{port}/v1/models").status_code == 404
        models = httpx.get(f"http://127.0.0.1:{port}/openai/v1/models").json()
        assert models["data"][0]["id"] == "echo"


def test_serve_reports_a_bad_factory(tmp_path: Path) -> None:
    import subprocess

    result = subprocess.run(
        [*lgos_command(), "serve", "tests.nowhere:factory", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "Cannot import module 'tests.nowhere'" in result.stderr
