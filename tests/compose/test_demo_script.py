"""`just demo` run for real: the launcher with a fake `docker` and `uv` on PATH.

The decisions are tested as plain functions in tests/demo/test_launcher_plan.py.
These tests run the launcher itself (``python -m lgos_demo_launcher``, and
through `just demo` and scripts/demo.sh where the path matters) for what only
a run shows: how it asks Docker, what it hands the processes it starts, the
order of the steps, the exit status, Ctrl-C in a terminal, and what it prints
when a port is taken, the stack is running already or an image is missing. A
fake `docker` plays an engine that answers, fails, hangs or lacks the Compose
plugin; a fake `uv` stands in for the local processes. Both log how they were
called.
"""

from __future__ import annotations

import os
import pty
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.compose.fake_demo import FAKE_DOCKER, HONCHO, Demo, free_port, mode_line
from tests.compose.stack import ROOT
from tests.procs import executable

pytestmark = [pytest.mark.integration]


def test_no_docker_command_means_local_processes(demo: Demo) -> None:
    result = demo.run("--dry-run")
    assert result.returncode == 0, result.stderr
    assert mode_line(result).startswith("LGOS demo as local processes")
    assert "Why local: no docker command on PATH." in result.stdout
    assert demo.calls() == []  # a dry run runs nothing


def test_an_engine_that_does_not_answer_means_local_processes(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run", info="fail")
    assert mode_line(result).startswith("LGOS demo as local processes")
    assert "no Docker engine answers 'docker info' (Cannot connect" in result.stdout


def test_a_silent_failure_still_gives_a_reason(demo: Demo) -> None:
    demo.write_tool("docker", "#!/bin/sh\nexit 1\n")
    result = demo.run("--dry-run")
    assert result.returncode == 0, result.stderr
    assert "Why local: no Docker engine answers 'docker info'." in result.stdout


def test_an_engine_that_hangs_is_given_up_on(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run", info="hang", DEMO_DOCKER_TIMEOUT="1")
    assert mode_line(result).startswith("LGOS demo as local processes")
    assert "within 1s" in result.stdout


def test_an_engine_without_the_compose_plugin_means_local(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run", compose="missing")
    assert mode_line(result).startswith("LGOS demo as local processes")
    assert "'docker compose' plugin is missing" in result.stdout


def test_an_answering_engine_means_compose(demo: Demo) -> None:
    demo.install_docker()
    result = demo.run("--dry-run")
    assert result.returncode == 0, result.stderr
    assert mode_line(result).startswith("LGOS demo with Docker Compose; graphs answer")
    assert "Why Compose: a Docker engine answers 'docker info'." in result.stdout
    assert "Command: docker compose up --build --remove-orphans" in result.stdout
    assert not any("compose up" in call for call in demo.calls())


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
    assert result.stdout.endswith("Dry run: nothing was started.\n")


def test_just_demo_help_prints_the_usage() -> None:
    just = executable("just")
    assert just, "just is a dev tool of this repository"
    for flag in ("--help", "-h"):
        result = subprocess.run(
            [just, "demo", flag],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("Usage: just demo [--compose | --local]")
        assert result.stdout.endswith(
            "Stop with Ctrl-C. Variables come from .env (copy .env.example).\n"
        )
    bad = subprocess.run(
        [just, "demo", "--bogus"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith(
        "just demo: unknown option '--bogus'\nUsage: just demo"
    )
    assert "error" not in bad.stderr.lower()


def test_the_script_runs_without_just_and_reads_dotenv(tmp_path: Path) -> None:
    """``bash scripts/demo.sh`` (docs name it) reads .env itself, under the
    environment."""
    env_file = tmp_path / "demo.env"
    env_file.write_text("DEMO_CHAINLIT_PORT=9911\nDEMO_FILES_PORT=9913\n")
    env = {
        key: value for key, value in os.environ.items() if not key.startswith("DEMO_")
    }
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh"), "--local", "--dry-run"],
        cwd=tmp_path,  # the script finds the repository itself
        env={**env, "DEMO_ENV_FILE": str(env_file), "DEMO_FILES_PORT": "9923"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "  Chat UI (Chainlit):    http://127.0.0.1:9911\n" in result.stdout
    assert "  Files service:         http://127.0.0.1:9923/v1\n" in result.stdout
    assert result.stderr == ""


# The launcher itself runs with the real uv (scripts/demo.sh's `uv run`).
LAUNCHER_UV = 'case "$*" in "run --frozen --quiet --package lgos-demo-launcher "*) exec "$REAL_UV" "$@" ;; esac\n'

SERVING_UV = (
    """#!/bin/sh
"""
    + LAUNCHER_UV
    + """if [ "$1" = run ]; then
    trap 'echo stopped; exit $FAKE_INT_STATUS' INT
    echo serving
    sleep 30 &
    wait
    exit 1
fi
exit 0
"""
)


@pytest.mark.parametrize("recipe", ["demo --local", "demo/marimo"])
@pytest.mark.parametrize(
    "int_status", [130, 0]
)  # honcho's status after Ctrl-C, marimo's
def test_ctrl_c_in_a_terminal_stops_without_an_error(
    demo: Demo, recipe: str, int_status: int
) -> None:
    """Ctrl-C sends SIGINT to just, the launcher and the services alike: no
    error line, exit status 130 (just, then scripts/demo.sh, uv run and the
    launcher, which starts the fake honcho)."""
    just, uv = executable("just"), executable("uv")
    assert just, "just is a dev tool of this repository"
    assert uv, "uv runs the launcher"
    (demo.bin / "just").symlink_to(just)
    demo.write_tool("uv", SERVING_UV)
    env = {
        "PATH": str(demo.bin),
        "HOME": os.environ.get("HOME", "/tmp"),
        "REAL_UV": uv,
        "DEMO_ENV_FILE": "/dev/null",
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


REPLICAS_DOCKER = FAKE_DOCKER.replace(
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-}",
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-} FILE=${COMPOSE_FILE:-}"
    " API=${DEMO_API_REPLICAS:-} WORKERS=${DEMO_WORKER_REPLICAS:-}"
    " UI=${DEMO_COMPOSE_UI_UPSTREAM:-}",
)


def test_replicas_reach_compose_with_the_overlay(demo: Demo) -> None:
    """``--replicas 3``: Compose gets the overlay and the counts (the plan's
    other --replicas cases are in tests/demo/test_launcher_plan.py)."""
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run("--replicas", "3", DEMO_BALANCER_STATS_PORT=str(free_port()))
    assert result.returncode == 0, result.stderr
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert up.startswith("docker compose up --build --remove-orphans |")
    assert up.endswith(
        "FILE=compose.yaml:demo/compose/replicas.yaml API=3 WORKERS=2 UI=balancer:8000"
    )
    assert "  API replicas:          3 behind HAProxy, round robin" in result.stdout
    # Without an engine: refused, nothing run locally.
    demo.log.unlink()
    refused = demo.run("--replicas", "2", info="fail")
    assert refused.returncode == 1
    assert "run on Docker Compose only" in refused.stderr
    assert not any(call.startswith("uv ") for call in demo.calls())
