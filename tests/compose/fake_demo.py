"""A fake engine for `just demo`'s launcher: fake `docker` and `uv` on a controlled PATH.

:class:`Demo` runs ``python -m lgos_demo_launcher`` with a PATH holding only
the shell tools it needs and the fakes, which log how they were called (the
``demo`` fixture of ``conftest.py`` makes one per test). Shared by the
launcher's run tests (``test_demo_script.py``, ``test_demo_bifrost.py``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from tests.compose.stack import ROOT

__all__ = [
    "FAKE_DOCKER",
    "FAKE_UV",
    "HONCHO",
    "SERVICE_PORTS",
    "Demo",
    "free_port",
    "mode_line",
]

TOOLS = ("bash", "sh", "dirname", "timeout", "grep", "tail", "cat", "sleep")

FAKE_DOCKER = """#!/bin/sh
echo "docker $* | COMPOSE_PROFILES=${COMPOSE_PROFILES:-} POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-} OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-}" >> "$FAKE_LOG"
case "$1 $FAKE_INFO $FAKE_COMPOSE" in
    "info ok "*) echo "Server Version: 27.0"; exit 0 ;;
    "info hang "*) exec sleep 30 ;;
    "info "*) echo "Cannot connect to the Docker daemon. Is the docker daemon running?" >&2; exit 1 ;;
    "compose "*" missing") echo "docker: unknown command: docker compose" >&2; exit 1 ;;
esac
case "$*" in
    # FAKE_RUNNING: this project already has running containers.
    "compose ps --status running -q") [ -n "${FAKE_RUNNING:-}" ] && echo 1f2e3d ;;
    # FAKE_SERVICES: the running stack's services.
    "compose --profile "*" ps --status running --services")
        for s in ${FAKE_SERVICES:-}; do echo "$s"; done ;;
    # FAKE_HEALTHY: the UI and the worker (and Open WebUI) report healthy.
    "compose ps --format "*)
        [ -n "${FAKE_HEALTHY:-}" ] && printf 'chainlit=healthy\nworker=healthy\nopen-webui=healthy\n' ;;
    # FAKE_PROVISIONED: the exit code of the one-shot open-webui-provision.
    "compose ps --all --status exited "*)
        [ -n "${FAKE_PROVISIONED:-}" ] && echo "open-webui-provision=$FAKE_PROVISIONED" ;;
    # FAKE_IMAGES: the stack's images; FAKE_PRESENT: those already here.
    "compose config --images") for i in ${FAKE_IMAGES:-}; do echo "$i"; done ;;
    "image inspect "*)
        case " ${FAKE_PRESENT:-} " in *" $3 "*) exit 0 ;; *) exit 1 ;; esac ;;
    "compose pull "*) exit "${FAKE_PULL_STATUS:-0}" ;;
    "compose up "*) sleep "${FAKE_UP_SECONDS:-0}"; exit "${FAKE_UP_STATUS:-0}" ;;
esac
exit 0
"""

FAKE_UV = """#!/bin/sh
echo "uv $* | DEMO_API_HOST=${DEMO_API_HOST:-} DEMO_CHAINLIT_OPENAI_BASE_URL=${DEMO_CHAINLIT_OPENAI_BASE_URL:-} DISCOVERY=${DEMO_CHAINLIT_DISCOVERY:-} KEY=${DEMO_CHAINLIT_OPENAI_API_KEY:-} GATEWAY_LGOS=${DEMO_GATEWAY_LGOS_BASE_URL:-} LITELLM=${DEMO_GATEWAY_LITELLM:-} | MCP_URL=${DEMO_CHAINLIT_MCP_URL:-} MCP_KEY=${DEMO_CHAINLIT_MCP_API_KEY:-} GATEWAY_MCP=${DEMO_GATEWAY_MCP_URL:-} MCP_HOST=${DEMO_MCP_HOST:-} MCP_PORT=${DEMO_MCP_PORT:-} WAIT=${DEMO_UI_WAIT_FOR:-} | API_KEYS=${LGOS_API_KEYS:-} GATEWAY_KEY=${DEMO_GATEWAY_LGOS_API_KEY:-}" >> "$FAKE_LOG"
if [ "$1" = run ]; then exit "${FAKE_UP_STATUS:-0}"; fi
exit 0
"""


SERVICE_PORTS = (
    "DEMO_API_PORT",
    "DEMO_CHAINLIT_PORT",
    "DEMO_FILES_PORT",
    "DEMO_CORPUS_PORT",
    "DEMO_OPEN_WEBUI_PORT",
)

HONCHO = "uv run --frozen --no-sync honcho --no-prefix -e /dev/null -f demo/Procfile -d . start"
"""How `just demo` starts the local processes; the process names follow."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Demo:
    """Runs the launcher (``python -m lgos_demo_launcher``) with a controlled PATH.

    The services' ports are free ones (``ports``), so a demo running on this
    machine meanwhile does not trip the script's busy-port check.
    """

    def __init__(self, tmp_path: Path) -> None:
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        for tool in TOOLS:
            found = shutil.which(tool)
            assert found, tool
            (self.bin / tool).symlink_to(found)
        self.log = tmp_path / "calls.log"
        self.write_tool("uv", FAKE_UV)
        self.ports = {name: str(free_port()) for name in SERVICE_PORTS}

    def write_tool(self, name: str, text: str) -> None:
        path = self.bin / name
        path.write_text(text, encoding="utf-8")
        path.chmod(0o755)

    def install_docker(self) -> None:
        self.write_tool("docker", FAKE_DOCKER)

    def run(
        self, *args: str, info: str = "ok", compose: str = "ok", **env: str
    ) -> subprocess.CompletedProcess[str]:
        base = {
            "PATH": str(self.bin),
            "HOME": os.environ.get("HOME", "/tmp"),
            # A developer's .env stays out of the tests.
            "DEMO_ENV_FILE": "/dev/null",
            **self.ports,
        }
        return subprocess.run(
            [sys.executable, "-m", "lgos_demo_launcher", *args],
            cwd=ROOT,
            env={
                **base,
                "FAKE_LOG": str(self.log),
                "FAKE_INFO": info,
                "FAKE_COMPOSE": compose,
                **env,
            },
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    def calls(self) -> list[str]:
        if not self.log.exists():
            return []
        return self.log.read_text(encoding="utf-8").splitlines()


def mode_line(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout.splitlines()[0]
