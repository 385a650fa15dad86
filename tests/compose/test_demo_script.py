"""`just demo` (scripts/demo.sh) picks Compose or local processes, and says why.

A fake `docker` on PATH plays an engine that answers, fails, hangs or lacks
the Compose plugin; a fake `uv` stands in for the local processes. Both log
how they were called, so the tests see exactly what `just demo` would run.
"""

from __future__ import annotations

import hashlib
import os
import pty
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.compose.stack import DEMO_SCRIPT, ROOT
from tests.procs import executable

pytestmark = [pytest.mark.integration]

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
    """Runs scripts/demo.sh with a controlled PATH and environment.

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
            ["bash", str(DEMO_SCRIPT), *args],
            env={
                **base,
                "FAKE_LOG": str(self.log),
                "FAKE_INFO": info,
                "FAKE_COMPOSE": compose,
                **env,
            },
            executable=str(self.bin / "bash"),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    def calls(self) -> list[str]:
        if not self.log.exists():
            return []
        return self.log.read_text(encoding="utf-8").splitlines()


@pytest.fixture
def demo(tmp_path: Path) -> Demo:
    return Demo(tmp_path)


def _mode_line(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout.splitlines()[0]


def test_help_prints_the_usage_and_runs_nothing(demo: Demo) -> None:
    demo.install_docker()
    for flag in ("--help", "-h"):
        result = demo.run(flag)
        assert result.returncode == 0
        assert result.stdout.startswith("Usage: just demo [--compose | --local]")
        for option in (
            "--compose",
            "--local",
            "--gateway",
            "--observability",
            "--dry-run",
        ):
            assert option in result.stdout
    assert "http://127.0.0.1:8005/mcp" in result.stdout
    # The addresses it names are the ones a run would use.
    moved = demo.run(
        "--help",
        DEMO_GATEWAY_PORT="4100",
        DEMO_MCP_PORT="8105",
        DEMO_OPEN_WEBUI_PORT="8106",
        DEMO_JAEGER_PORT="16786",
    ).stdout
    for url in (
        "http://127.0.0.1:4100/v1",
        "http://127.0.0.1:8105/mcp",
        "http://127.0.0.1:8106,",
        "http://127.0.0.1:16786)",
    ):
        assert url in moved
    assert "`docker info`" in moved
    assert demo.calls() == []


def test_no_docker_command_means_local_processes(demo: Demo) -> None:
    result = demo.run("--dry-run")
    assert result.returncode == 0, result.stderr
    assert _mode_line(result).startswith("LGOS demo as local processes")
    assert "Why local: no docker command on PATH." in result.stdout
    assert demo.calls() == []  # a dry run runs nothing


def test_an_engine_that_does_not_answer_means_local_processes(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run", info="fail")
    assert _mode_line(result).startswith("LGOS demo as local processes")
    assert "no Docker engine answers 'docker info' (Cannot connect" in result.stdout


def test_a_silent_failure_still_gives_a_reason(demo: Demo) -> None:
    demo.write_tool("docker", "#!/bin/sh\nexit 1\n")
    result = demo.run("--dry-run")
    assert result.returncode == 0, result.stderr
    assert "Why local: no Docker engine answers 'docker info'." in result.stdout


def test_observability_without_docker_starts_locally_and_says_so(demo: Demo) -> None:
    result = demo.run("--observability", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert _mode_line(result).startswith("LGOS demo as local processes")
    assert "--observability needs Compose; starting without it" in result.stderr


def test_an_engine_that_hangs_is_given_up_on(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run", info="hang", DEMO_DOCKER_TIMEOUT="1")
    assert _mode_line(result).startswith("LGOS demo as local processes")
    assert "within 1s" in result.stdout


def test_an_engine_without_the_compose_plugin_means_local(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run", compose="missing")
    assert _mode_line(result).startswith("LGOS demo as local processes")
    assert "'docker compose' plugin is missing" in result.stdout


def test_an_answering_engine_means_compose(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run")
    assert result.returncode == 0, result.stderr
    assert _mode_line(result).startswith("LGOS demo with Docker Compose; graphs answer")
    assert "Why Compose: a Docker engine answers 'docker info'." in result.stdout
    assert "Command: docker compose up --build --remove-orphans" in result.stdout
    assert not any("compose up" in call for call in demo.calls())


def test_local_can_be_forced_while_docker_answers(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--local", "--dry-run")
    assert _mode_line(result).startswith("LGOS demo as local processes")
    assert "Why local: --local was given." in result.stdout
    assert demo.calls() == []  # not even asked


def test_compose_can_be_forced_and_fails_clearly_without_an_engine(
    demo: Demo,
) -> None:
    demo.install_docker()
    result = demo.run("--compose", "--dry-run", info="fail")
    assert result.returncode == 1
    assert "just demo --compose: no Docker engine answers" in result.stderr
    assert "just demo --local" in result.stderr
    ok = demo.run("--compose", "--dry-run")
    assert "Why Compose: --compose was given." in ok.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--compose", "--local"], "choose one of --compose and --local"),
        (["--local", "--observability"], "--observability needs Compose"),
        (["--bogus"], "unknown option '--bogus'"),
    ],
)
def test_bad_arguments_are_refused(demo: Demo, args: list[str], message: str) -> None:
    result = demo.run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert demo.calls() == []


def test_compose_mode_runs_compose_up_with_a_demo_password(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run()
    assert result.returncode == 0, result.stderr
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert up.startswith("docker compose up --build --remove-orphans |")
    assert "POSTGRES_PASSWORD=lgos-demo" in up
    assert "COMPOSE_PROFILES= " in up
    assert "POSTGRES_PASSWORD is not set" in result.stdout
    # A command run by hand needs the password too (compose.yaml requires
    # one), and `down` takes the optional profiles' containers only with
    # --profile '*'.
    assert "volumes of Compose project lgos-demo." in result.stdout
    assert (
        "To remove the containers and drop the data: "
        "POSTGRES_PASSWORD=lgos-demo docker compose --profile '*' down -v\n"
    ) in result.stdout


def test_compose_mode_keeps_a_configured_password(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run(POSTGRES_PASSWORD="mine", COMPOSE_PROJECT_NAME="mine")
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert "POSTGRES_PASSWORD=mine" in up
    assert "volumes of Compose project mine." in result.stdout
    assert (
        "To remove the containers and drop the data: "
        "docker compose --profile '*' down -v\n"
    ) in result.stdout


def test_observability_adds_the_profile_and_the_otlp_endpoint(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--observability", COMPOSE_PROFILES="extra")
    assert result.returncode == 0, result.stderr
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert "COMPOSE_PROFILES=extra,observability" in up
    assert "OTEL=http://otel-collector:4318" in up
    assert "Traces (Jaeger):       http://127.0.0.1:16686" in result.stdout


@pytest.mark.parametrize(("status", "expected"), [(130, 130), (143, 0), (3, 3)])
def test_ctrl_c_is_a_normal_stop_other_failures_are_not(
    demo: Demo, status: int, expected: int
) -> None:
    demo.install_docker()
    assert demo.run(FAKE_UP_STATUS=str(status)).returncode == expected
    assert demo.run("--local", FAKE_UP_STATUS=str(status)).returncode == expected


def test_local_mode_syncs_then_starts_the_procfile(demo: Demo) -> None:
    result = demo.run()
    assert result.returncode == 0, result.stderr
    calls = demo.calls()
    assert [call.split(" | ")[0] for call in calls] == [
        "uv sync --all-packages --frozen --quiet",
        f"{HONCHO} api chainlit corpus files",
    ]
    assert (
        "DEMO_API_HOST=127.0.0.1 "
        f"DEMO_CHAINLIT_OPENAI_BASE_URL=http://127.0.0.1:{demo.ports['DEMO_API_PORT']}/v1"
        in calls[1]
    )
    assert "offline demo model" in result.stdout


def test_local_processes_write_files_only_their_user_reads(demo: Demo) -> None:
    demo.write_tool("uv", '#!/bin/sh\necho "uv $1 umask $(umask)" >> "$FAKE_LOG"\n')
    result = demo.run()
    assert result.returncode == 0, result.stderr
    calls = demo.calls()
    assert calls[-1] == "uv run umask 0077", calls


@pytest.mark.parametrize("mode", ["--local", "--compose"])
def test_a_dry_run_says_nothing_started(demo: Demo, mode: str) -> None:
    demo.install_docker()
    result = demo.run(mode, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "Dry run: nothing was started." in result.stdout
    assert "Press Ctrl-C" not in result.stdout


def test_the_just_recipe_forwards_its_arguments() -> None:
    just = executable("just")
    assert just, "just is a dev tool of this repository"
    result = subprocess.run(
        [just, "demo", "--local", "--dry-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Why local: --local was given." in result.stdout


SERVING_UV = """#!/bin/sh
if [ "$1" = run ]; then
    trap 'echo stopped; exit $FAKE_INT_STATUS' INT
    echo serving
    sleep 30 &
    wait
    exit 1
fi
exit 0
"""


@pytest.mark.parametrize("recipe", ["demo --local", "demo/marimo"])
@pytest.mark.parametrize(
    "int_status", [130, 0]
)  # honcho's status after Ctrl-C, marimo's
def test_ctrl_c_in_a_terminal_stops_without_an_error(
    demo: Demo, recipe: str, int_status: int
) -> None:
    """Ctrl-C sends SIGINT to just and the services alike: no error line."""
    just = executable("just")
    assert just, "just is a dev tool of this repository"
    (demo.bin / "just").symlink_to(just)
    demo.write_tool("uv", SERVING_UV)
    env = {
        "PATH": str(demo.bin),
        "HOME": os.environ.get("HOME", "/tmp"),
        "FAKE_INT_STATUS": str(int_status),
        **demo.ports,
    }
    pid, terminal = pty.fork()
    if pid == 0:  # the child: just, in the pty's foreground process group
        os.chdir(ROOT)
        os.execve(str(demo.bin / "just"), ["just", *recipe.split()], env)
    output = b""
    deadline = time.monotonic() + 30
    while b"serving" not in output and time.monotonic() < deadline:
        output += os.read(terminal, 4096)
    os.write(terminal, b"\x03")  # what the terminal sends for Ctrl-C
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    _, wait_status = os.waitpid(pid, 0)
    os.close(terminal)
    text = output.decode(errors="replace")
    assert "stopped" in text, text
    assert "error" not in text.lower(), text
    assert os.waitstatus_to_exitcode(wait_status) == 130  # an interrupt, for shells


def test_a_busy_port_is_named_before_anything_starts(demo: Demo) -> None:
    """The error names the service, its port and how to move it; no banner first."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = demo.run("--local", DEMO_FILES_PORT=str(port))
    assert result.returncode == 1
    assert (
        f"just demo: port {port} for the Files service (DEMO_FILES_PORT) is already "
        "in use." in result.stderr
    )
    assert "Nothing was started." in result.stderr
    assert "DEMO_FILES_PORT=" in result.stderr
    assert "(or set them in .env)" in result.stderr
    # The banner ("Press Ctrl-C ...", the URLs) would promise a running demo.
    assert "Press Ctrl-C" not in result.stdout
    assert "Chat UI" not in result.stdout
    assert not any(call.startswith("uv") for call in demo.calls())


def test_a_busy_port_suggests_a_free_one(demo: Demo) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = demo.run("--local", DEMO_API_PORT=str(port))
    assert result.returncode == 1
    assert "for the API (DEMO_API_PORT)" in result.stderr
    suggested = int(result.stderr.split("DEMO_API_PORT=")[1].split()[0])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", suggested))  # free: binding works


def test_every_busy_port_is_named_at_once(demo: Demo) -> None:
    """Two busy ports: both named in one run, one command moving both to ports
    that are free and distinct."""
    with socket.socket() as api, socket.socket() as files:
        for sock in (api, files):
            sock.bind(("127.0.0.1", 0))
            sock.listen()
        api_port, files_port = api.getsockname()[1], files.getsockname()[1]
        result = demo.run(
            "--local", DEMO_API_PORT=str(api_port), DEMO_FILES_PORT=str(files_port)
        )
    assert result.returncode == 1
    assert f"port {api_port} for the API (DEMO_API_PORT)" in result.stderr
    assert f"port {files_port} for the Files service (DEMO_FILES_PORT)" in result.stderr
    command = next(
        line for line in result.stderr.splitlines() if "just demo --local   (" in line
    )
    moves = dict(
        word.split("=") for word in command.split(": ", 1)[1].split() if "=" in word
    )
    assert set(moves) == {"DEMO_API_PORT", "DEMO_FILES_PORT"}
    suggested = [int(port) for port in moves.values()]
    assert len(set(suggested)) == 2
    for port in suggested:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", port))  # free: binding works
    assert not any(call.startswith("uv") for call in demo.calls())


# --------------------------------------------------------------------------
# --gateway: the LiteLLM gateway (demo/gateway) as one more local process
# --------------------------------------------------------------------------


def test_gateway_puts_the_ui_behind_the_litellm_gateway(demo: Demo) -> None:
    gateway_port = str(free_port())
    result = demo.run(
        "--local",
        "--gateway",
        DEMO_GATEWAY_PORT=gateway_port,
        DEMO_GATEWAY_LITELLM="/opt/litellm/bin/litellm",
    )
    assert result.returncode == 0, result.stderr
    gateway = f"http://127.0.0.1:{gateway_port}/v1"
    api = f"http://127.0.0.1:{demo.ports['DEMO_API_PORT']}/v1"
    assert f"  OpenAI-compatible API: {api}\n" in result.stdout
    assert f"  LiteLLM gateway:       {gateway} " in result.stdout
    calls = demo.calls()
    assert [call.split(" | ")[0] for call in calls] == [
        "uv sync --all-packages --frozen --quiet",
        f"{HONCHO} api chainlit corpus files gateway",
    ]
    assert (
        f"DEMO_CHAINLIT_OPENAI_BASE_URL={gateway} DISCOVERY=litellm KEY=lgos-demo "
        f"GATEWAY_LGOS={api} LITELLM=/opt/litellm/bin/litellm"
    ) in calls[1]


def test_without_gateway_the_ui_talks_to_lgos(demo: Demo) -> None:
    result = demo.run("--local")
    assert result.returncode == 0, result.stderr
    assert "LiteLLM gateway" not in result.stdout
    (start,) = [call for call in demo.calls() if " honcho " in call]
    assert " -f demo/Procfile -d . start api chainlit corpus files | " in start
    assert "DISCOVERY= KEY=lgos-demo GATEWAY_LGOS= LITELLM=" in start
    assert "MCP_URL= MCP_KEY= GATEWAY_MCP= MCP_HOST= MCP_PORT= WAIT=" in start


def test_the_gateway_key_is_the_uis_key(demo: Demo) -> None:
    result = demo.run(
        "--local",
        "--gateway",
        DEMO_GATEWAY_PORT=str(free_port()),
        DEMO_GATEWAY_MASTER_KEY="sk-mine",
        DEMO_GATEWAY_LITELLM="/bin/true",
    )
    assert result.returncode == 0, result.stderr
    (start,) = [call for call in demo.calls() if " honcho " in call]
    assert "KEY=sk-mine " in start


def test_local_mode_gives_the_api_and_its_clients_the_demo_key(demo: Demo) -> None:
    """The API requires ``DEMO_LGOS_API_KEY`` (default ``lgos-demo``), as in
    Compose, and the UI and the gateway's proxy send it; the banner shows the
    default key only."""
    result = demo.run("--local")
    assert result.returncode == 0, result.stderr
    assert "  API key:               lgos-demo (Authorization: Bearer lgos-demo" in (
        result.stdout
    )
    (start,) = [call for call in demo.calls() if " honcho " in call]
    assert " KEY=lgos-demo " in start
    assert start.endswith("| API_KEYS=lgos-demo GATEWAY_KEY=lgos-demo")
    mine = demo.run(
        "--local",
        "--gateway",
        DEMO_LGOS_API_KEY="sk-own-key",
        DEMO_GATEWAY_PORT=str(free_port()),
        DEMO_GATEWAY_LITELLM="/bin/true",
    )
    assert mine.returncode == 0, mine.stderr
    assert "sk-own-key" not in mine.stdout
    assert "  API key:               the value of DEMO_LGOS_API_KEY" in mine.stdout
    start = [call for call in demo.calls() if " honcho " in call][-1]
    # Behind the gateway the UI sends the gateway's key; the gateway sends ours.
    assert " KEY=lgos-demo " in start
    assert start.endswith("| API_KEYS=sk-own-key GATEWAY_KEY=sk-own-key")


def test_a_busy_gateway_port_is_named(demo: Demo) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = demo.run("--local", "--gateway", DEMO_GATEWAY_PORT=str(port))
        # Without the flag, the gateway's port does not matter.
        assert demo.run("--local", DEMO_GATEWAY_PORT=str(port)).returncode == 0
    assert result.returncode == 1
    assert (
        f"port {port} for the LiteLLM gateway (DEMO_GATEWAY_PORT) is already in use"
        in result.stderr
    )


def test_compose_gateway_adds_the_profile_and_routes_the_ui_through_it(
    demo: Demo,
) -> None:
    demo.install_docker()
    demo.write_tool(
        "docker",
        FAKE_DOCKER.replace(
            "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-}",
            "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-} UI=${DEMO_COMPOSE_UI_UPSTREAM:-}"
            " DISCOVERY=${DEMO_CHAINLIT_DISCOVERY:-}"
            " KEY=${DEMO_CHAINLIT_OPENAI_API_KEY:-}",
        ),
    )
    result = demo.run("--gateway", DEMO_GATEWAY_MASTER_KEY="sk-mine")
    assert result.returncode == 0, result.stderr
    assert _mode_line(result).startswith("LGOS demo with Docker Compose; graphs answer")
    assert "  LiteLLM gateway:       http://127.0.0.1:4000/v1 " in result.stdout
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert "COMPOSE_PROFILES=gateway " in up
    assert "UI=gateway:4000 DISCOVERY=litellm KEY=sk-mine" in up
    plain = demo.run("--dry-run", DEMO_GATEWAY_PORT="4999")
    assert "LiteLLM gateway" not in plain.stdout


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


# --------------------------------------------------------------------------
# --mcp: the demo MCP server, its tools offered by the UI
# --------------------------------------------------------------------------


def _mcp_fields(call: str) -> dict[str, str]:
    """The MCP variables a fake tool logged (after its second ``|``).

    ``WAIT``, the UI's space-separated URLs, comes last and keeps its spaces.
    """
    text, _, wait = call.split(" | ")[2].partition(" WAIT=")
    fields = dict(field.split("=", 1) for field in text.split(" "))
    return fields | ({"WAIT": wait} if "WAIT=" in call else {})


def test_mcp_runs_the_mcp_server_and_gives_the_ui_its_address(demo: Demo) -> None:
    port = str(free_port())
    result = demo.run("--local", "--mcp", DEMO_MCP_PORT=port)
    assert result.returncode == 0, result.stderr
    mcp = f"http://127.0.0.1:{port}/mcp"
    assert f"  MCP server:            {mcp} (the UI's tools)\n" in result.stdout
    assert "LiteLLM gateway" not in result.stdout
    (start,) = [call for call in demo.calls() if " honcho " in call]
    assert start.startswith(
        f"uv {HONCHO.removeprefix('uv ')} api chainlit corpus files mcp | "
    )
    assert _mcp_fields(start) == {
        "MCP_URL": mcp,
        "MCP_KEY": "",
        "GATEWAY_MCP": "",
        "MCP_HOST": "127.0.0.1",
        "MCP_PORT": port,
        "WAIT": f"http://127.0.0.1:{port}/health",
    }


def test_mcp_with_the_gateway_goes_through_the_gateways_mcp_endpoint(
    demo: Demo,
) -> None:
    port, gateway_port = str(free_port()), str(free_port())
    result = demo.run(
        "--local",
        "--gateway",
        "--mcp",
        DEMO_MCP_PORT=port,
        DEMO_GATEWAY_PORT=gateway_port,
        DEMO_GATEWAY_MASTER_KEY="sk-mine",
        DEMO_GATEWAY_LITELLM="/bin/true",
    )
    assert result.returncode == 0, result.stderr
    mcp = f"http://127.0.0.1:{port}/mcp"
    through = f"http://127.0.0.1:{gateway_port}/mcp"
    assert (
        f"  MCP server:            {mcp} (the UI reaches it through the gateway's {through})\n"
        in result.stdout
    )
    (start,) = [call for call in demo.calls() if " honcho " in call]
    assert " start api chainlit corpus files gateway mcp | " in start
    assert _mcp_fields(start) == {
        "MCP_URL": through,
        "MCP_KEY": "sk-mine",
        "GATEWAY_MCP": mcp,
        "MCP_HOST": "127.0.0.1",
        "MCP_PORT": port,
        # The UI waits for the gateway, then the MCP server.
        "WAIT": f"http://127.0.0.1:{gateway_port}/health/liveliness "
        f"http://127.0.0.1:{port}/health",
    }


def test_without_mcp_the_ui_keeps_the_mcp_url_it_was_given(demo: Demo) -> None:
    result = demo.run("--local", DEMO_CHAINLIT_MCP_URL="http://elsewhere:9/mcp")
    assert result.returncode == 0, result.stderr
    assert "MCP server" not in result.stdout
    (start,) = [call for call in demo.calls() if " honcho " in call]
    assert start.split(" | ")[0].endswith(" start api chainlit corpus files")
    assert _mcp_fields(start)["MCP_URL"] == "http://elsewhere:9/mcp"
    assert _mcp_fields(start)["GATEWAY_MCP"] == ""


def test_a_busy_mcp_port_is_named_only_with_the_flag(demo: Demo) -> None:
    demo.install_docker()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        local = demo.run("--local", "--mcp", DEMO_MCP_PORT=port)
        compose = demo.run("--mcp", DEMO_MCP_PORT=port)
        assert demo.run("--local", DEMO_MCP_PORT=port).returncode == 0
    for result in (local, compose):
        assert result.returncode == 1
        assert (
            f"port {port} for the MCP server (DEMO_MCP_PORT) is already in use"
            in result.stderr
        )
    assert "just demo --local --mcp   (or set them in .env)." in local.stderr


COMPOSE_MCP_DOCKER = FAKE_DOCKER.replace(
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-}",
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-} | MCP_URL=${DEMO_CHAINLIT_MCP_URL:-}"
    " MCP_KEY=${DEMO_CHAINLIT_MCP_API_KEY:-} GATEWAY_MCP=${DEMO_GATEWAY_MCP_URL:-}"
    " MCP_PORT=${DEMO_MCP_PORT:-}",
)


def test_compose_mcp_adds_the_profile_and_gives_the_ui_the_service(
    demo: Demo,
) -> None:
    demo.install_docker()
    demo.write_tool("docker", COMPOSE_MCP_DOCKER)
    result = demo.run("--mcp")
    assert result.returncode == 0, result.stderr
    assert "  MCP server:            http://127.0.0.1:8005/mcp (the UI's tools)\n" in (
        result.stdout
    )
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert "COMPOSE_PROFILES=mcp " in up
    assert _mcp_fields(up) == {
        "MCP_URL": "http://mcp:8005/mcp",
        "MCP_KEY": "",
        "GATEWAY_MCP": "",
        "MCP_PORT": "8005",
    }
    assert "COMPOSE_PROFILES=mcp docker compose up" in result.stdout


def test_compose_mcp_with_the_gateway_goes_through_the_gateway(demo: Demo) -> None:
    demo.install_docker()
    demo.write_tool("docker", COMPOSE_MCP_DOCKER)
    result = demo.run("--gateway", "--mcp", DEMO_GATEWAY_MASTER_KEY="sk-mine")
    assert result.returncode == 0, result.stderr
    assert (
        "  MCP server:            http://127.0.0.1:8005/mcp (the UI reaches it through "
        "the gateway's http://127.0.0.1:4000/mcp)\n"
    ) in result.stdout
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert "COMPOSE_PROFILES=gateway,mcp " in up
    assert _mcp_fields(up) == {
        "MCP_URL": "http://gateway:4000/mcp",
        "MCP_KEY": "sk-mine",
        "GATEWAY_MCP": "http://mcp:8005/mcp",
        "MCP_PORT": "8005",
    }


def test_dry_run_with_mcp_prints_and_runs_nothing(demo: Demo) -> None:
    demo.install_docker()
    for args in (["--local", "--mcp"], ["--mcp"]):
        result = demo.run("--dry-run", *args)
        assert result.returncode == 0, result.stderr
        assert "  MCP server:            http://127.0.0.1:8005/mcp" in result.stdout
        assert not any(
            "compose up" in call or call.startswith("uv") for call in demo.calls()
        )
    local = demo.run("--dry-run", "--local", "--mcp")
    assert f"  Command: {HONCHO} api chainlit corpus files mcp\n" in local.stdout


def test_help_names_the_mcp_flag(demo: Demo) -> None:
    result = demo.run("--help")
    assert "[--gateway] [--mcp] [--open-webui] [--observability]" in result.stdout
    assert "  --mcp             also start the demo MCP server" in result.stdout


def test_dotenv_values_apply_under_the_environment(demo: Demo, tmp_path: Path) -> None:
    """.env as `just` loads it: the environment wins; honcho reads no .env."""
    env_file = tmp_path / "demo.env"
    env_file.write_text(
        "# a comment\n"
        "DEMO_CHAINLIT_DISCOVERY=lgos\n"
        "export DEMO_GATEWAY_MASTER_KEY='sk-file'\n"
        'DEMO_MCP_PORT="8123"\n'
        "not a variable\n"
    )
    result = demo.run(
        "--local",
        "--gateway",
        "--mcp",
        DEMO_ENV_FILE=str(env_file),
        DEMO_GATEWAY_PORT=str(free_port()),
        DEMO_GATEWAY_LITELLM="/bin/true",
        DEMO_MCP_PORT=str(free_port()),  # set: wins over the file
    )
    assert result.returncode == 0, result.stderr
    (start,) = [call for call in demo.calls() if " honcho " in call]
    # --gateway decides the UI's discovery, whatever .env says (honcho's own
    # .env reading would have put `lgos` back).
    assert "DISCOVERY=litellm KEY=sk-file " in start
    assert "MCP_PORT=8123" not in start
    assert " -e /dev/null " in start


def test_compose_mode_names_a_busy_published_port_before_anything_starts(
    demo: Demo,
) -> None:
    # Compose would fail half-way, leaving the other containers running.
    demo.install_docker()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = demo.run(DEMO_CORPUS_PORT=str(port))
    assert result.returncode == 1
    assert (
        f"port {port} for the Search corpus pages (DEMO_CORPUS_PORT) is already in use"
        in result.stderr
    )
    assert "Nothing was started." in result.stderr
    assert not any("compose up" in call for call in demo.calls())
    assert "Chat UI" not in result.stdout


def test_compose_mode_attaches_to_its_running_stack_and_says_so(demo: Demo) -> None:
    # Its own containers hold the ports: no busy-port refusal, a notice.
    demo.install_docker()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = demo.run(DEMO_API_PORT=str(port), FAKE_RUNNING="1")
    assert result.returncode == 0, result.stderr
    assert "The stack is already running" in result.stdout
    assert any("compose up" in call for call in demo.calls())


@pytest.mark.parametrize(
    ("running", "flags", "hint"),
    [
        ("api chainlit mcp", [], "just demo --compose --mcp"),
        ("api chainlit", ["--mcp"], "just demo --compose\n"),
        ("api chainlit gateway mcp", ["--mcp"], "just demo --compose --gateway --mcp"),
        ("api chainlit open-webui", [], "just demo --compose --open-webui"),
    ],
    ids=["mcp-running", "mcp-asked", "gateway-running", "open-webui-running"],
)
def test_compose_mode_refuses_to_attach_with_other_options(
    demo: Demo, running: str, flags: list[str], hint: str
) -> None:
    # Attaching with other options would recreate the UI without the running
    # stack's parts, and this run's Ctrl-C would leave them running.
    demo.install_docker()
    result = demo.run(*flags, FAKE_RUNNING="1", FAKE_SERVICES=running)
    assert result.returncode == 1
    assert "the stack is already running with" in result.stderr
    assert f"Attach with the same options: {hint}" in result.stderr + "\n"
    assert (
        "or: POSTGRES_PASSWORD=lgos-demo docker compose --profile '*' stop)"
        in result.stderr
    )
    assert not any("compose up" in call for call in demo.calls())


def test_compose_mode_attaches_with_the_same_options(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run(
        "--gateway", "--mcp", FAKE_RUNNING="1", FAKE_SERVICES="api gateway mcp chainlit"
    )
    assert result.returncode == 0, result.stderr
    assert "The stack is already running" in result.stdout
    assert any("compose up" in call for call in demo.calls())


def test_compose_mode_without_its_images_says_what_to_do_and_starts_nothing(
    demo: Demo,
) -> None:
    demo.install_docker()
    result = demo.run(
        FAKE_IMAGES="lgos-demo:local postgres:17.6 hatchet:v1",
        FAKE_PRESENT="hatchet:v1",
        FAKE_PULL_STATUS="1",
    )
    assert result.returncode == 1
    assert "could not be pulled" in result.stderr
    assert "just demo --local" in result.stderr
    assert "DEMO_*_IMAGE" in result.stderr
    calls = demo.calls()
    # The locally built image is never looked up; the missing one is pulled.
    assert not any("inspect lgos-demo:local" in call for call in calls)
    assert any(
        call.startswith("docker compose pull --ignore-buildable") for call in calls
    )
    assert not any("compose up" in call for call in calls)


def test_compose_mode_pulls_missing_images_first(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run(FAKE_IMAGES="postgres:17.6")
    assert result.returncode == 0, result.stderr
    calls = [call.split(" |")[0] for call in demo.calls()]
    assert calls.index("docker compose pull --ignore-buildable --quiet") < calls.index(
        "docker compose up --build --remove-orphans"
    )


def test_a_failed_compose_up_stops_what_it_started(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run(FAKE_UP_STATUS="1")
    assert result.returncode == 1
    assert "stopping the containers it started" in result.stderr
    calls = [call.split(" |")[0] for call in demo.calls()]
    assert calls[-1] == "docker compose stop"
    # Ctrl-C is a normal stop: the containers stopped already, nothing more.
    demo.log.unlink()
    assert demo.run(FAKE_UP_STATUS="130").returncode == 130
    assert "docker compose stop" not in [c.split(" |")[0] for c in demo.calls()]


def test_compose_mode_says_when_the_stack_is_ready(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run(FAKE_HEALTHY="1", FAKE_UP_SECONDS="5")
    assert result.returncode == 0, result.stderr
    ui = f"http://127.0.0.1:{demo.ports['DEMO_CHAINLIT_PORT']}"
    assert f"LGOS demo is ready: open {ui} (Ctrl-C stops it)." in result.stdout
    # Not before the stack reports healthy.
    assert "is ready" not in demo.run(FAKE_UP_SECONDS="3").stdout


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


def test_the_suggested_command_keeps_the_options_given(demo: Demo) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = demo.run("--local", "--gateway", DEMO_GATEWAY_PORT=str(port))
    assert result.returncode == 1
    assert "just demo --local --gateway   (or set them in .env)." in result.stderr


def test_open_webui_runs_with_local_processes(demo: Demo) -> None:
    for args, env in ((["--open-webui"], {}), (["--local", "--open-webui"], {})):
        if "--local" in args:
            demo.install_docker()
        result = demo.run("--dry-run", *args, **env)
        assert result.returncode == 0, result.stderr
        assert _mode_line(result).startswith("LGOS demo as local processes")
        owui = f"http://127.0.0.1:{demo.ports['DEMO_OPEN_WEBUI_PORT']}"
        assert f"  Open WebUI:            {owui} " in result.stdout
        assert f"  Command: {HONCHO} api chainlit corpus files open-webui\n" in (
            result.stdout
        )
        assert not [call for call in demo.calls() if "compose up" in call]
    plain = demo.run("--dry-run", "--local")
    assert "Open WebUI" not in plain.stdout


COMPOSE_OPEN_WEBUI_DOCKER = FAKE_DOCKER.replace(
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-}",
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-} | OWUI_PORT=${DEMO_OPEN_WEBUI_PORT:-}"
    " OWUI_DISCOVERY=${DEMO_OPEN_WEBUI_DISCOVERY:-}"
    " OWUI_KEY=${DEMO_OPEN_WEBUI_LGOS_API_KEY:-}"
    " OWUI_MCP=${DEMO_OPEN_WEBUI_MCP_URL:-} UPSTREAM=${DEMO_COMPOSE_UI_UPSTREAM:-}",
)


def _open_webui_fields(call: str) -> dict[str, str]:
    fields = call.split(" | OWUI_PORT=", 1)[1]
    return dict(pair.split("=", 1) for pair in f"OWUI_PORT={fields}".split())


@pytest.mark.parametrize(
    ("flags", "profiles", "expected"),
    [
        (
            [],
            "open-webui",
            {
                "OWUI_DISCOVERY": "",
                "OWUI_KEY": "lgos-demo",
                "OWUI_MCP": "",
                "UPSTREAM": "",
            },
        ),
        (
            ["--gateway", "--mcp"],
            "gateway,mcp,open-webui",
            {
                "OWUI_DISCOVERY": "litellm",
                "OWUI_KEY": "sk-mine",
                "OWUI_MCP": "http://mcp:8005/mcp",
                "UPSTREAM": "gateway:4000",
            },
        ),
    ],
    ids=["alone", "gateway-mcp"],
)
def test_compose_open_webui_adds_the_profile(
    demo: Demo, flags: list[str], profiles: str, expected: dict[str, str]
) -> None:
    """``--open-webui`` with an engine is Compose's profile ``open-webui``:
    the pipe talks to what Chainlit talks to (the API, or the gateway with
    its master key), and with ``--mcp`` Open WebUI calls the MCP service
    itself."""
    demo.install_docker()
    demo.write_tool("docker", COMPOSE_OPEN_WEBUI_DOCKER)
    result = demo.run("--open-webui", *flags, DEMO_GATEWAY_MASTER_KEY="sk-mine")
    assert result.returncode == 0, result.stderr
    assert _mode_line(result).startswith("LGOS demo with Docker Compose")
    port = demo.ports["DEMO_OPEN_WEBUI_PORT"]
    assert f"  Open WebUI:            http://127.0.0.1:{port} (the LGOS pipe" in (
        result.stdout
    )
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert f"COMPOSE_PROFILES={profiles} " in up
    assert _open_webui_fields(up) == {"OWUI_PORT": port, **expected}
    if "--gateway" in flags:
        assert "/mcp; Open WebUI calls it directly)\n" in result.stdout


def test_a_busy_open_webui_port_is_named_in_compose_mode(demo: Demo) -> None:
    demo.install_docker()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = demo.run("--open-webui", DEMO_OPEN_WEBUI_PORT=str(port))
    assert result.returncode == 1
    assert f"port {port} for the Open WebUI (DEMO_OPEN_WEBUI_PORT)" in result.stderr
    assert not any("compose up" in call for call in demo.calls())


def test_compose_open_webui_is_ready_once_provisioned(demo: Demo) -> None:
    demo.install_docker()
    ui = f"http://127.0.0.1:{demo.ports['DEMO_CHAINLIT_PORT']}"
    owui = f"http://127.0.0.1:{demo.ports['DEMO_OPEN_WEBUI_PORT']}"
    ready = demo.run(
        "--open-webui", FAKE_HEALTHY="1", FAKE_PROVISIONED="0", FAKE_UP_SECONDS="5"
    )
    assert ready.returncode == 0, ready.stderr
    assert f"LGOS demo is ready: open {ui} or {owui} (Ctrl-C stops it)." in ready.stdout
    # Healthy but not provisioned yet: not ready.
    waiting = demo.run("--open-webui", FAKE_HEALTHY="1", FAKE_UP_SECONDS="3")
    assert "is ready" not in waiting.stdout
    # The provisioning failed: said, and the rest is announced without it.
    failed = demo.run(
        "--open-webui", FAKE_HEALTHY="1", FAKE_PROVISIONED="1", FAKE_UP_SECONDS="5"
    )
    assert (
        "POSTGRES_PASSWORD=lgos-demo docker compose logs open-webui-provision"
        in failed.stderr
    )
    assert f"LGOS demo is ready: open {ui} (Ctrl-C stops it)." in failed.stdout


def test_open_webui_with_mcp_gets_the_mcp_server(demo: Demo, tmp_path: Path) -> None:
    """``--open-webui --mcp`` hands Open WebUI's provisioning the demo MCP
    server's endpoint (``DEMO_OPEN_WEBUI_MCP_URL``), which it attaches as a
    tool server; without ``--mcp`` it gets none, and detaches it."""
    for tool in ("sha256sum", "cut", "mkdir"):
        found = shutil.which(tool)
        assert found, tool
        (demo.bin / tool).symlink_to(found)
    # A finished install of the pinned Open WebUI, where ensure-open-webui.sh
    # looks (the marker and the executable), so nothing is installed here.
    script = (ROOT / "scripts" / "ensure-open-webui.sh").read_text()
    (version,) = re.findall(r'^version="([^"]+)"$', script, re.M)
    requirements = ROOT / "ui" / "open-webui" / "requirements.txt"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()[:12]
    venv = tmp_path / "owui" / version / f"venv-{digest}"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "open-webui").write_text("#!/bin/sh\n")
    (venv / "bin" / "open-webui").chmod(0o755)
    (venv / ".lgos-installed").touch()
    demo.write_tool(
        "uv",
        FAKE_UV.replace(
            " | MCP_URL=", " OWUI_MCP=${DEMO_OPEN_WEBUI_MCP_URL:-} | MCP_URL="
        ),
    )
    env = {
        "LGOS_OPEN_WEBUI_CACHE_DIR": str(tmp_path / "owui"),
        "DEMO_OPEN_WEBUI_PORT": str(free_port()),
    }
    port = str(free_port())
    result = demo.run("--open-webui", "--mcp", DEMO_MCP_PORT=port, **env)
    assert result.returncode == 0, result.stderr
    plain = demo.run("--open-webui", **env)
    assert plain.returncode == 0, plain.stderr
    with_mcp, without = [call for call in demo.calls() if " honcho " in call]
    assert " start api chainlit corpus files mcp open-webui | " in with_mcp
    assert f" OWUI_MCP=http://127.0.0.1:{port}/mcp | " in with_mcp
    assert " OWUI_MCP= | " in without


def test_the_open_webui_line_waits_for_the_api_then_starts() -> None:
    lines = (ROOT / "demo" / "Procfile").read_text(encoding="utf-8").splitlines()
    processes = dict(line.split(": ", 1) for line in lines)
    assert processes["open-webui"] == (
        "for url in $DEMO_OPEN_WEBUI_WAIT_FOR; do uv run --frozen --no-sync python "
        'scripts/wait-for-http.py "$url"; done; exec bash scripts/open-webui.sh'
    )
