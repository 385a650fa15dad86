"""``lgos new``: each template's project passes its own tests and serves a request.

Each test runs the README's two commands in a freshly generated project, as
real processes: ``uv run pytest``, then ``uv run lgos serve`` on loopback,
and sends one request. The project depends on this checkout (a path
source) and everything else resolves offline from uv's cache, which
``just sync`` filled with the same packages (``UV_OFFLINE=1``): no network,
no real model (without ``OPENAI_API_KEY`` the project's graph gets LGOS's
offline model).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil
import pytest

from tests.procs import executable, free_port, lgos_command, wait_http

pytestmark = [pytest.mark.integration]


def project_env() -> dict[str, str]:
    """The environment of the generated project's commands: offline, its own venv."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"VIRTUAL_ENV", "PYTHONPATH", "OPENAI_API_KEY"}
        and not key.startswith(("UV_", "LGOS_"))
    }
    # The interpreter behind the workspace's .venv, never a download.
    env.update(
        UV_OFFLINE="1",
        UV_PYTHON=os.path.realpath(sys.executable),
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_PROGRESS="1",
    )
    if "UV_CACHE_DIR" in os.environ:
        env["UV_CACHE_DIR"] = os.environ["UV_CACHE_DIR"]
    return env


def uv() -> str:
    found = executable("uv")
    assert found, "uv is not on PATH"
    return found


def generate(tmp_path: Path, name: str, template: str) -> Path:
    done = subprocess.run(
        [*lgos_command(), "new", name, "--template", template],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(
        f"uv run lgos serve {name.replace('-', '_')}.registry:create_registry "
        "--port 8010"
    )
    project = tmp_path / name
    # Tidy as generated: ruff's usual rules (imports sorted as in any project,
    # where LGOS is a third-party package) and its formatting.
    ruff = str(Path(sys.executable).with_name("ruff"))
    for check in (
        ["check", "--select", "E,F,W,I,B,UP,SIM,RUF", "--line-length", "88"],
        ["format", "--check"],
    ):
        linted = subprocess.run(
            [ruff, *check, "--isolated", "."],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert linted.returncode == 0, linted.stdout + linted.stderr
    return project


def run_its_tests(project: Path) -> str:
    done = subprocess.run(
        [uv(), "run", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=project_env(),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done.stdout


@contextmanager
def served(project: Path, factory: str) -> Iterator[str]:
    """``uv run lgos serve FACTORY`` from ``project``; yield its ``/v1`` URL."""
    port = free_port()
    log = project / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [uv(), "run", "lgos", "serve", factory, "--port", str(port)],
            cwd=project,
            env={**project_env(), "LGOS_LOG_FORMAT": "text"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_http(f"http://127.0.0.1:{port}/health/ready", process, log)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            # uv passes SIGTERM on to lgos, which drains and exits 0.
            children = psutil.Process(process.pid).children(recursive=True)
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
            _, alive = psutil.wait_procs(children, timeout=10)
            for child in alive:
                child.kill()
            assert not alive, f"lgos outlived uv run\n{log.read_text()[-4000:]}"


def install_as_the_image_does(project: Path, module: str, app: Path) -> None:
    """Run the generated Dockerfile's build steps without Docker, into ``app``.

    No engine is needed to check what the build relies on: the files it
    mounts and copies exist once ``uv.lock`` does, ``uv sync --frozen
    --no-dev --no-editable`` installs the lock (LGOS as a wheel built from
    its path, no pytest), and the image's command finds the factory in the
    folder it runs from.
    """
    dockerfile = (project / "Dockerfile").read_text()
    for source in re.findall(r"--mount=type=bind,source=(\S+?),", dockerfile):
        assert (project / source).is_file(), source
    assert f"COPY {module} /app/{module}\n" in dockerfile
    assert "uv sync --frozen --no-dev --no-editable\n" in dockerfile
    [command] = re.findall(r"^CMD (\[.*\])$", dockerfile, re.MULTILINE)
    assert json.loads(command)[:3] == [
        "lgos",
        "serve",
        f"{module}.registry:create_registry",
    ]
    done = subprocess.run(
        [uv(), "sync", "--frozen", "--no-dev", "--no-editable"],
        cwd=project,
        env={**project_env(), "UV_PROJECT_ENVIRONMENT": str(app / ".venv")},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    shutil.copytree(project / module, app / module)
    assert (app / ".venv" / "bin" / "lgos").is_file()
    probe = (
        "import importlib.util, langgraph_openai_serve\n"
        f"from {module}.registry import create_registry\n"
        "print(langgraph_openai_serve.__file__)\n"
        "print(importlib.util.find_spec('pytest') is None)\n"
    )
    found = subprocess.run(
        [str(app / ".venv" / "bin" / "python"), "-c", probe],
        cwd=app,
        env=project_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert found[0].startswith(str(app / ".venv")), found  # a wheel, not the checkout
    assert found[1] == "True"  # no dev dependencies


def test_the_chat_template(tmp_path: Path) -> None:
    project = generate(tmp_path, "chat-bot", "chat")
    assert "2 passed" in run_its_tests(project)
    with served(project, "chat_bot.registry:create_registry") as base:
        body = {"model": "chat-bot", "messages": [{"role": "user", "content": "Hi"}]}
        answer = httpx.post(f"{base}/chat/completions", json=body, timeout=30)
        assert answer.status_code == 200, answer.text
        assert answer.json()["choices"][0]["message"]["content"] == (
            'This is the offline model. You said: "Hi" Following instructions: '
            '"You are a helpful assistant. Answer briefly." '
            "I saw 1 conversation message."
        )
    install_as_the_image_does(project, "chat_bot", tmp_path / "app")


def test_the_interrupt_template(tmp_path: Path) -> None:
    project = generate(tmp_path, "approvals", "interrupt")
    assert "2 passed" in run_its_tests(project)
    with served(project, "approvals.registry:create_registry") as base:
        body = {"model": "approvals", "input": "Hi"}
        paused = httpx.post(f"{base}/responses", json=body, timeout=30).json()
        [call] = [i for i in paused["output"] if i["type"] == "function_call"]
        assert call["name"] == "lgos_interrupt"
        draft = json.loads(call["arguments"])["draft"]
        assert draft.startswith('This is the offline model. You said: "Hi"')
        resume = {
            "model": "approvals",
            "previous_response_id": paused["id"],
            "input": [
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": "send",
                }
            ],
        }
        done = httpx.post(f"{base}/responses", json=resume, timeout=30).json()
        assert done["status"] == "completed"
        [message] = [i for i in done["output"] if i["type"] == "message"]
        assert message["content"][0]["text"] == draft


def test_the_server_tool_template(tmp_path: Path) -> None:
    project = generate(tmp_path, "calc", "server-tool")
    assert "3 passed" in run_its_tests(project)
    with served(project, "calc.registry:create_registry") as base:
        body = {
            "model": "calc",
            "input": "6 * 7",
            "tools": [{"type": "custom", "name": "calculator"}],
            # The offline model calls a tool only when told to.
            "tool_choice": {"type": "custom", "name": "calculator"},
        }
        response = httpx.post(f"{base}/responses", json=body, timeout=30).json()
        assert [item["type"] for item in response["output"]] == [
            "custom_tool_call",
            "custom_tool_call_output",
            "message",
        ]
        call, output, _ = response["output"]
        assert (call["name"], call["input"]) == ("calculator", "6 * 7")
        assert output["output"] == "42"
