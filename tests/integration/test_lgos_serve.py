"""`lgos serve` as a real process: registry factory, Uvicorn options and variables."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from openai import OpenAI

from tests.procs import ROOT, free_port, lgos_command, running
from tests.waiting import wait_until


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
    result = subprocess.run(
        [*lgos_command(), "serve", "tests.nowhere:factory", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "Cannot import module 'tests.nowhere'" in result.stderr


def test_a_module_in_a_subfolder_is_named_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "my_app.py").write_text("def create_registry(r): ...\n")
    result = subprocess.run(
        [
            *lgos_command(),
            "serve",
            "my_app:create_registry",
            "--port",
            str(free_port()),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "Cannot import module 'my_app'" in result.stderr
    assert "--app-dir project" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


MISTAKES = """
from fastapi import FastAPI

from tests.lgos.graphs import make_registry

app = FastAPI()
registry = make_registry()


def no_arguments():
    return registry
"""


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("app", "is an ASGI application, not a registry factory"),
        ("registry", "is a GraphRegistry, not a registry factory"),
        ("no_arguments", "cannot take the one argument lgos passes"),
    ],
)
@pytest.mark.parametrize("command", ["serve", "worker"])
def test_the_likeliest_mistakes_get_one_line_and_exit_2(
    tmp_path: Path, target: str, says: str, command: str
) -> None:
    """``lgos serve my_module:app`` (after ``uvicorn my_module:app``) or a registry."""
    (tmp_path / "my_module.py").write_text(MISTAKES)
    result = subprocess.run(
        [*lgos_command(), command, f"my_module:{target}"],
        capture_output=True,
        text=True,
        timeout=60,
        # my_module is found in the directory the command runs in, as
        # Uvicorn finds an app there; PYTHONPATH only adds the repository.
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"'my_module:{target}' {says}" in lines[0]


def _serve_factory(folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    """Run ``lgos serve my_app:create_registry`` on ``source``, logging as text."""
    (folder / "my_app.py").write_text(source)
    env = {k: v for k, v in os.environ.items() if k != "LGOS_LOG_FORMAT"}
    return subprocess.run(
        [
            *lgos_command(),
            "serve",
            "my_app:create_registry",
            "--port",
            str(free_port()),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=folder,
        env={**env, "PYTHONPATH": str(ROOT), "LGOS_LOG_FORMAT": "text"},
    )


RETURNS_NOTHING = """
from tests.lgos.graphs import make_registry


def create_registry(resources):
    registry = make_registry()  # built, but the return was forgotten
"""


def test_a_factory_returning_none_exits_2_with_one_line_before_the_traceback(
    tmp_path: Path,
) -> None:
    """The factory runs at startup (it needs the resources): still exit status 2."""
    result = _serve_factory(tmp_path, RETURNS_NOTHING)
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if " ERROR " in line]
    assert "The registry factory returned None, not a GraphRegistry" in errors[0]
    assert "return GraphRegistry(graphs=" in errors[0]
    assert result.stderr.index(errors[0]) < result.stderr.index("Traceback")


NO_CHECKPOINTER = """
from langgraph_openai_serve import GraphConfig, GraphFeature, GraphRegistry
from tests.lgos.graphs import make_registry


def create_registry(resources):
    graph = next(iter(make_registry().graphs.values())).graph  # no checkpointer
    config = GraphConfig(
        graph=graph, description="asks", features={GraphFeature.INTERRUPTS}
    )
    return GraphRegistry(
        graphs={"asks": config}, run_coordinator=resources.run_coordinator
    )
"""


def test_a_registry_the_factory_cannot_build_exits_2_with_its_reason(
    tmp_path: Path,
) -> None:
    """GraphConfig refuses an interrupt graph compiled without a checkpointer:
    the reason is one ERROR line (before Uvicorn's traceback), exit status 2."""
    result = _serve_factory(tmp_path, NO_CHECKPOINTER)
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if " ERROR " in line]
    assert (
        "The registry factory failed: GraphConfig: Interrupt graphs need an async "
        "checkpointer"
    ) in errors[0]
    assert "builder.compile(checkpointer=resources.checkpointer)" in errors[0]
    assert "errors.pydantic.dev" not in errors[0]
    assert result.stderr.index(errors[0]) < result.stderr.index("Traceback")


GOOD_FACTORY = """
from tests.lgos.graphs import make_registry


def create_registry(resources):
    return make_registry()
"""


def test_serve_finds_a_factory_in_the_current_directory(tmp_path: Path) -> None:
    """The getting-started flow: ``my_app.py`` beside you, ``lgos serve my_app:...``."""
    (tmp_path / "my_app.py").write_text(GOOD_FACTORY)
    port = free_port()
    with running(
        [*lgos_command(), "serve", "my_app:create_registry", "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/health",
        log=tmp_path / "api.log",
        env={"PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
    ):
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models").json()
        assert models["data"][0]["id"] == "echo"


@pytest.mark.timeout(300)  # two processes importing LangGraph on a busy machine
def test_serve_runs_several_worker_processes(tmp_path: Path) -> None:
    """``--workers 2``: each Uvicorn worker builds the factory's registry and serves.

    The workers are spawned processes that import the app by path, so the
    factory travels in ``LGOS_REGISTRY_FACTORY`` and the current directory
    (where ``my_app.py`` lives) in their ``sys.path``. ``lgos serve``'s own
    health-check timeout (60 s, not Uvicorn's 5) lets a worker start on a busy
    machine without being replaced in a loop.
    """
    (tmp_path / "my_app.py").write_text(GOOD_FACTORY)
    port = free_port()
    command = [*lgos_command(), "serve", "my_app:create_registry", "--port", str(port)]
    command += ["--workers", "2"]
    with running(
        command,
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=tmp_path / "api.log",
        env={"PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
        timeout=240,
    ) as process:
        workers = psutil.Process(process.pid).children()
        workers = [
            child for child in workers if "spawn_main" in " ".join(child.cmdline())
        ]
        assert len(workers) == 2
        log = tmp_path / "api.log"
        wait_until(
            lambda: log.read_text().count("Application startup complete") == 2,
            timeout=240,
            message=lambda: f"both workers to start\n{log.read_text()[-4000:]}",
        )
        # Connections opened together spread over the workers; each answers.
        serving: set[int] = set()
        clients = [httpx.Client(base_url=f"http://127.0.0.1:{port}") for _ in range(40)]
        try:
            for client in clients:
                reply = client.post(
                    "/v1/responses", json={"model": "echo", "input": "hi"}
                )
                assert reply.status_code == 200, reply.text
                assert reply.json()["output"][-1]["content"][0]["text"] == "Echo: hi"
            for worker in workers:
                if _holds_connection(worker, port):
                    serving.add(worker.pid)
        finally:
            for client in clients:
                client.close()
        assert serving == {worker.pid for worker in workers}


def _holds_connection(worker: psutil.Process, port: int) -> bool:
    """Whether ``worker`` holds an established connection on the server's ``port``."""
    return any(
        conn.laddr
        and conn.laddr.port == port
        and conn.status == psutil.CONN_ESTABLISHED
        for conn in worker.net_connections()
    )


def _serve_with_stderr(stderr: Any, port: int) -> subprocess.Popen[bytes]:
    """Start ``lgos serve`` (no ``LGOS_LOG_FORMAT``) writing its log to ``stderr``."""
    env = {k: v for k, v in os.environ.items() if k != "LGOS_LOG_FORMAT"}
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [
            *lgos_command(),
            "serve",
            "tests.lgos.graphs:serve_registry",
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    return process


def test_logs_are_text_on_a_terminal_and_json_elsewhere() -> None:
    import pty

    leader, follower = pty.openpty()
    on_terminal = _serve_with_stderr(follower, free_port())
    os.close(follower)
    piped = _serve_with_stderr(subprocess.PIPE, free_port())
    try:
        with os.fdopen(leader, "rb", buffering=0) as terminal:
            text_line = terminal.readline().decode()
        json_line = piped.stderr.readline().decode()  # type: ignore[union-attr]
    finally:
        for process in (on_terminal, piped):
            process.terminate()
            process.wait(10)
    assert not text_line.startswith("{"), text_line
    assert " INFO " in text_line, text_line
    assert json.loads(json_line)["level"] == "INFO"
