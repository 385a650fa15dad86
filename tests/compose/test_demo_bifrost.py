"""`just demo --bifrost` run: Bifrost between the UIs and the API, in both modes.

The same harness as ``test_demo_script.py``: a fake ``docker`` and a fake
``uv`` on PATH log how the launcher called them, with the variables the
Bifrost flag sets; a dry run prints Bifrost's configuration with the real
generator (``demo/gateway/src/lgos_demo_gateway/bifrost.py``). The decisions
behind them are tested in tests/demo/test_launcher_plan.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compose.fake_demo import FAKE_DOCKER, HONCHO, Demo, free_port
from tests.compose.stack import ROOT

pytestmark = [pytest.mark.integration]

BIFROST_VARIABLES = (
    "UI_BASE=${DEMO_CHAINLIT_OPENAI_BASE_URL:-} UI=${DEMO_COMPOSE_UI_UPSTREAM:-}"
    " MODEL=${DEMO_CHAINLIT_DEFAULT_MODEL:-} KEY=${DEMO_CHAINLIT_OPENAI_API_KEY:-}"
    " BF_KEY=${DEMO_BIFROST_LGOS_API_KEY:-} BF_LGOS=${DEMO_BIFROST_LGOS_URL:-}"
    " BF_BIN=${DEMO_BIFROST_BIN:-} BF_DIR=${DEMO_BIFROST_APP_DIR:-}"
    " WAIT=${DEMO_UI_WAIT_FOR:-} OWUI=${DEMO_OPEN_WEBUI_LGOS_BASE_URL:-}"
)


@pytest.fixture
def demo(tmp_path: Path) -> Demo:
    """The harness, its fake tools logging the Bifrost variables."""
    harness = Demo(tmp_path)
    harness.write_tool(
        "uv",
        f'#!/bin/sh\necho "uv $* | {BIFROST_VARIABLES}" >> "$FAKE_LOG"\nexit 0\n',
    )
    harness.write_tool(
        "docker",
        FAKE_DOCKER.replace(
            "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-}",
            "OTEL=${OTEL_EXPORTER_OTLP_ENDPOINT:-} " + BIFROST_VARIABLES,
        ),
    )
    return harness


def fake_bifrost(tmp_path: Path) -> Path:
    """An executable standing in for bifrost-http (never run here)."""
    binary = tmp_path / "bifrost-http"
    binary.write_text("#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    return binary


def printed_config(stdout: str) -> dict:
    """The JSON object the dry run prints under 'Bifrost configuration'."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line == "    {")
    end = next(i for i in range(start, len(lines)) if lines[i] == "    }")
    return json.loads("\n".join(lines[start : end + 1]))


def test_local_bifrost_puts_the_uis_behind_its_passthrough_route(
    demo: Demo, tmp_path: Path
) -> None:
    port = str(free_port())
    binary = fake_bifrost(tmp_path)
    result = demo.run(
        "--local", "--bifrost", DEMO_BIFROST_PORT=port,
        DEMO_BIFROST_BIN=str(binary),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    base = f"http://127.0.0.1:{port}/openai_passthrough/v1"
    assert f"  Bifrost:               {base} (the UIs'; every LGOS feature;" in (
        result.stdout
    )
    calls = demo.calls()
    assert [call.split(" | ")[0] for call in calls] == [
        "uv sync --all-packages --frozen --quiet",
        f"{HONCHO} api chainlit corpus files bifrost",
    ]
    api = f"http://127.0.0.1:{demo.ports['DEMO_API_PORT']}"
    assert (
        f"UI_BASE={base} UI= MODEL= KEY=lgos-demo BF_KEY=lgos-demo BF_LGOS={api} "
        f"BF_BIN={binary} BF_DIR={ROOT}/.data/bifrost "
        f"WAIT=http://127.0.0.1:{port}/health"
    ) in calls[1]


def test_local_bifrost_v1_route_names_models_openai_slash_graph(
    demo: Demo, tmp_path: Path
) -> None:
    port = str(free_port())
    binary = fake_bifrost(tmp_path)
    result = demo.run(
        "--local", "--bifrost", "--dry-run", DEMO_BIFROST_PORT=port,
        DEMO_BIFROST_ROUTE="v1", DEMO_BIFROST_BIN=str(binary),
        DEMO_LGOS_API_KEY="sk-ours",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"  Bifrost:               http://127.0.0.1:{port}/v1 (the UIs'; models" in (
        result.stdout
    )
    assert "no lgos extension, no commentary phase, no background polling" in (
        result.stdout
    )
    config = printed_config(result.stdout)
    openai = config["providers"]["openai"]
    api = f"http://127.0.0.1:{demo.ports['DEMO_API_PORT']}"
    assert openai["network_config"]["base_url"] == api
    assert openai["keys"][0]["value"] == "env.DEMO_BIFROST_LGOS_API_KEY"
    assert (
        f"  Bifrost command: {binary} -app-dir {ROOT}/.data/bifrost -host 127.0.0.1 "
        f"-port {port}"
    ) in result.stdout
    assert demo.calls() == []  # a dry run starts nothing


def test_local_bifrost_without_a_binary_says_how_to_get_one(demo: Demo) -> None:
    result = demo.run("--local", "--bifrost", DEMO_BIFROST_PORT=str(free_port()))
    assert result.returncode == 1
    assert "no Bifrost binary: set DEMO_BIFROST_BIN" in result.stderr
    assert "go install github.com/maximhq/bifrost/transports/bifrost-http@v1.4.19" in (
        result.stderr
    )
    assert "just demo --compose --bifrost" in result.stderr
    assert demo.calls() == []  # nothing started, not even uv sync
    broken = demo.run(
        "--local", "--bifrost", DEMO_BIFROST_BIN="/nonexistent/bifrost-http"
    )
    assert broken.returncode == 1
    assert "DEMO_BIFROST_BIN (/nonexistent/bifrost-http) is not an executable" in (
        broken.stderr
    )
    # A dry run still prints the configuration, and the same advice.
    dry = demo.run("--local", "--bifrost", "--dry-run")
    assert dry.returncode == 0
    assert printed_config(dry.stdout)["config_store"] == {"enabled": False}
    assert "no Bifrost binary" in dry.stderr


def test_compose_bifrost_adds_the_profile_and_routes_the_uis(demo: Demo) -> None:
    result = demo.run("--bifrost", "--open-webui")
    assert result.returncode == 0, result.stderr
    assert "  Bifrost:               http://127.0.0.1:8007/openai_passthrough/v1 " in (
        result.stdout
    )
    (up,) = [call for call in demo.calls() if "compose up" in call]
    assert "COMPOSE_PROFILES=bifrost,open-webui " in up
    assert (
        "UI=bifrost:8080/openai_passthrough MODEL= KEY=lgos-demo BF_KEY=lgos-demo" in up
    )
    v1 = demo.run("--bifrost", "--dry-run", DEMO_BIFROST_ROUTE="v1")
    assert v1.returncode == 0, v1.stderr
    config = printed_config(v1.stdout)
    assert config["providers"]["openai"]["network_config"]["base_url"] == (
        "http://api:8000"
    )
    assert "bifrost-config service writes into the bifrost_data volume" in v1.stdout
    assert "  Command: COMPOSE_PROFILES=bifrost docker compose up" in v1.stdout
