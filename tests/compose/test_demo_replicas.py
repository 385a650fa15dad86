"""`just demo --replicas N` (scripts/demo.sh): the scale-out overlay.

The same fake `docker` and `uv` as tests/compose/test_demo_script.py: the
tests read what `just demo` would run, with which Compose files and replica
counts, and what it refuses before anything starts.
"""

from __future__ import annotations

import socket

import pytest

from tests.compose.test_demo_script import FAKE_DOCKER, Demo, _mode_line, demo

__all__ = ["demo"]  # the fixture, shared with test_demo_script

pytestmark = [pytest.mark.integration]

OVERLAY = "compose.yaml:demo/compose/replicas.yaml"

REPLICAS_DOCKER = FAKE_DOCKER.replace(
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-}",
    "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-} FILE=${COMPOSE_FILE:-}"
    " API=${DEMO_API_REPLICAS:-} WORKERS=${DEMO_WORKER_REPLICAS:-}"
    " UI=${DEMO_COMPOSE_UI_UPSTREAM:-}",
)


def test_replicas_add_the_overlay_and_say_where_the_balancer_is(demo: Demo) -> None:
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run("--replicas", "3", DEMO_BALANCER_STATS_PORT="18404")
    assert result.returncode == 0, result.stderr
    assert _mode_line(result).startswith("LGOS demo with Docker Compose")
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert up.startswith("docker compose up --build --remove-orphans |")
    assert up.endswith(f"FILE={OVERLAY} API=3 WORKERS=2 UI=balancer:8000")
    out = result.stdout
    # The API's address stays; the balancer answers there.
    api = demo.ports["DEMO_API_PORT"]
    assert f"  OpenAI-compatible API: http://127.0.0.1:{api}/v1\n" in out
    assert "  API replicas:          3 behind HAProxy, round robin" in out
    assert "2 Hatchet workers" in out
    assert "  Balancer statistics:   http://127.0.0.1:18404/stats" in out
    # The command as one would type it, and the removal command with the
    # overlay (else `down` would leave the balancer behind).
    assert (
        f"  Command: COMPOSE_FILE={OVERLAY} DEMO_API_REPLICAS=3 "
        "DEMO_WORKER_REPLICAS=2 docker compose up --build --remove-orphans\n"
    ) in out
    assert (
        f"To remove the containers and drop the data: COMPOSE_FILE={OVERLAY} "
        "POSTGRES_PASSWORD=lgos-demo docker compose --profile '*' down -v\n"
    ) in out


def test_dry_run_shows_the_replicas_and_runs_nothing(demo: Demo) -> None:
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run("--dry-run", "--replicas=2", DEMO_WORKER_REPLICAS="4")
    assert result.returncode == 0, result.stderr
    assert "  API replicas:          2 behind HAProxy" in result.stdout
    assert "4 Hatchet workers" in result.stdout
    assert (
        f"Command: COMPOSE_FILE={OVERLAY} DEMO_API_REPLICAS=2 DEMO_WORKER_REPLICAS=4 "
    ) in result.stdout
    assert not any("compose up" in call for call in demo.calls())


def test_without_replicas_nothing_changes(demo: Demo) -> None:
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run()
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert up.endswith("FILE= API= WORKERS= UI=")
    assert "API replicas" not in result.stdout
    assert "Command: docker compose up --build --remove-orphans\n" in result.stdout


def test_an_overlay_already_named_is_not_added_twice(demo: Demo) -> None:
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run("--replicas", "2", COMPOSE_FILE=OVERLAY)
    assert result.returncode == 0, result.stderr
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert f"FILE={OVERLAY} API=2" in up


def test_the_example_env_files_api_upstream_becomes_the_balancer(demo: Demo) -> None:
    # .env.example sets DEMO_COMPOSE_UI_UPSTREAM=api:8000: with replicas the
    # UI goes through the balancer all the same.
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run("--replicas", "2", DEMO_COMPOSE_UI_UPSTREAM="api:8000")
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert up.endswith("UI=balancer:8000"), result.stdout


def test_replicas_with_the_gateway_keep_the_ui_on_the_gateway(demo: Demo) -> None:
    # The overlay points the gateway at the balancer; the UI still talks to
    # the gateway.
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run("--gateway", "--replicas", "2")
    assert result.returncode == 0, result.stderr
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert "COMPOSE_PROFILES=gateway " in up
    assert up.endswith(f"FILE={OVERLAY} API=2 WORKERS=2 UI=gateway:4000")


def test_a_busy_statistics_port_is_named(demo: Demo) -> None:
    demo.write_tool("docker", REPLICAS_DOCKER)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        result = demo.run("--replicas", "2", DEMO_BALANCER_STATS_PORT=str(port))
    assert result.returncode == 1
    assert (
        f"port {port} for the Balancer statistics (DEMO_BALANCER_STATS_PORT) "
        "is already in use"
    ) in result.stderr
    assert not any("compose up" in call for call in demo.calls())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--replicas", "0"], "--replicas takes a whole number from 1 to 16, not '0'"),
        (
            ["--replicas", "two"],
            "--replicas takes a whole number from 1 to 16, not 'two'",
        ),
        (["--replicas=-1"], "--replicas takes a whole number from 1 to 16, not '-1'"),
        (
            ["--replicas", "17"],
            "--replicas takes a whole number from 1 to 16, not '17'",
        ),
        (["--replicas", "2.5"], "not '2.5'"),
        (
            ["--replicas"],
            "--replicas needs a number of API replicas, e.g. --replicas 3",
        ),
        (["--replicas", "--dry-run"], "--replicas needs a number of API replicas"),
        (["--replicas="], "--replicas needs a number of API replicas"),
        (["--local", "--replicas", "2"], "--replicas needs Compose (drop --local)"),
    ],
)
def test_bad_replicas_are_refused_before_anything_runs(
    demo: Demo, args: list[str], message: str
) -> None:
    demo.install_docker()
    result = demo.run(*args)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr
    assert demo.calls() == []


def test_a_bad_worker_count_is_refused(demo: Demo) -> None:
    demo.write_tool("docker", REPLICAS_DOCKER)
    result = demo.run("--replicas", "2", DEMO_WORKER_REPLICAS="many")
    assert result.returncode == 2
    assert (
        "DEMO_WORKER_REPLICAS takes a whole number of Hatchet workers, not 'many'"
        in (result.stderr)
    )
    assert not any("compose up" in call for call in demo.calls())


def test_replicas_without_an_engine_refuse_instead_of_running_locally(
    demo: Demo,
) -> None:
    demo.install_docker()
    result = demo.run("--replicas", "2", info="fail")
    assert result.returncode == 1
    assert "just demo --replicas: no Docker engine answers 'docker info'" in (
        result.stderr
    )
    assert "run on Docker Compose only" in result.stderr
    assert "just demo --local" in result.stderr
    assert not any(call.startswith("uv ") for call in demo.calls())


def test_attaching_needs_the_same_replicas(demo: Demo) -> None:
    # A stack started with --replicas 3 is running: the same run attaches,
    # another count or none is refused with the command that attaches.
    running = REPLICAS_DOCKER.replace(
        '"compose ps --status running -q") [ -n "${FAKE_RUNNING:-}" ] && echo 1f2e3d ;;',
        '"compose ps --status running -q") [ -n "${FAKE_RUNNING:-}" ] && echo 1f2e3d ;;\n'
        '    "compose ps --status running -q api") printf "a1\\na2\\na3\\n" ;;',
    )
    demo.write_tool("docker", running)
    env = {"FAKE_RUNNING": "1", "FAKE_SERVICES": "api balancer chainlit"}
    same = demo.run("--replicas", "3", **env)
    assert same.returncode == 0, same.stderr
    assert "attaching to it" in same.stdout
    other = demo.run("--replicas", "2", **env)
    assert other.returncode == 1
    assert "already running with options '--replicas 3'" in other.stderr
    assert "just demo --compose --replicas 3" in other.stderr


def test_help_names_the_flag(demo: Demo) -> None:
    result = demo.run("--help")
    assert "[--replicas N]" in result.stdout
    assert "--replicas N      Compose only: N API replicas (1 to 16)" in result.stdout
