"""`just demo` decided: the launcher's plan for each set of flags and variables.

`make_plan` is a plain function of the command line, the environment and the
facts the runner finds out (whether Docker answers, where bifrost-http is); these
tests call it with those facts made up and read the plan: the mode and its
reason, the command, the variables the services get, the ports checked first
and the banner. `busy_ports`, `attach_refusal` and `readiness` decide on what
the runner finds while it runs (busy ports, a running stack, the health of the
containers). tests/compose/test_demo_script.py runs the launcher itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lgos_demo_launcher.checks import ATTACHED, attach_refusal, busy_ports, readiness
from lgos_demo_launcher.plan import (
    COMPOSE_UP,
    HONCHO,
    LOCAL_SYNC,
    DockerCheck,
    Help,
    LaunchError,
    Plan,
    load_env,
    make_plan,
    usage,
)

ENGINE = DockerCheck(True, "a Docker engine answers 'docker info'")
NO_DOCKER = DockerCheck(False, "no docker command on PATH")
NO_ENGINE = DockerCheck(
    False,
    "no Docker engine answers 'docker info' (Cannot connect to the Docker daemon. "
    "Is the docker daemon running?)",
)
HONCHO_LINE = " ".join(HONCHO)
OVERLAY = "compose.yaml:demo/compose/replicas.yaml"


class Docker:
    """A made-up answer to "does a Docker engine answer?", counting the questions."""

    def __init__(self, check: DockerCheck) -> None:
        self.check = check
        self.asked = 0

    def __call__(self) -> DockerCheck:
        self.asked += 1
        return self.check


def plan(
    *args: str,
    docker: DockerCheck = ENGINE,
    bifrost: str | None = None,
    **env: str,
) -> Plan:
    """The plan of ``just demo args`` with ``env`` as the whole environment."""
    made = make_plan(
        args,
        env,
        docker=Docker(docker),
        which=lambda name: bifrost if name == "bifrost-http" else None,
        is_executable=lambda path: path == bifrost,
        cwd="/repo",
    )
    assert isinstance(made, Plan)
    return made


def refusal(*args: str, docker: DockerCheck = ENGINE, **env: str) -> LaunchError:
    probe = Docker(docker)
    with pytest.raises(LaunchError) as refused:
        make_plan(args, env, docker=probe)
    return refused.value


def out(made: Plan) -> str:
    """What a dry run of ``made`` prints on stdout (the Bifrost JSON aside)."""
    return "\n".join([*made.stdout, *made.after_config, *made.dry_run_lines]) + "\n"


def started(made: Plan) -> str:
    """What a run of ``made`` prints on stdout before the services' own output."""
    return "\n".join([*made.stdout, *made.start_lines]) + "\n"


# --------------------------------------------------------------------------
# --help and bad flags
# --------------------------------------------------------------------------


def test_help_prints_the_usage_and_asks_nothing() -> None:
    for flag in ("--help", "-h"):
        probe = Docker(ENGINE)
        made = make_plan([flag], {}, docker=probe)
        assert isinstance(made, Help)
        assert probe.asked == 0
        assert made.text.startswith("Usage: just demo [--compose | --local]")
        for option in ("--compose", "--local", "--gateway", "--observability"):
            assert option in made.text
        assert "--dry-run" in made.text
        assert "http://127.0.0.1:8005/mcp" in made.text
    # The addresses it names are the ones a run would use.
    moved = usage(
        {
            "DEMO_GATEWAY_PORT": "4100",
            "DEMO_MCP_PORT": "8105",
            "DEMO_OPEN_WEBUI_PORT": "8106",
            "DEMO_JAEGER_PORT": "16786",
        }
    )
    for url in (
        "http://127.0.0.1:4100/v1",
        "http://127.0.0.1:8105/mcp",
        "http://127.0.0.1:8106,",
        "http://127.0.0.1:16786)",
    ):
        assert url in moved
    assert "`docker info`" in moved


def test_help_names_the_mcp_and_replicas_flags() -> None:
    text = usage({})
    assert "[--gateway] [--mcp] [--open-webui] [--observability]" in text
    assert "  --mcp             also start the demo MCP server" in text
    assert "[--replicas N]" in text
    assert "--replicas N      Compose only: N API replicas (1 to 16)" in text


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--compose", "--local"], {}, "choose one of --compose and --local"),
        (["--local", "--observability"], {}, "--observability needs Compose"),
        (["--bogus"], {}, "unknown option '--bogus'"),
        (["--gateway", "--bifrost"], {}, "choose one of --gateway and --bifrost"),
        (
            ["--bifrost"],
            {"DEMO_BIFROST_ROUTE": "openai"},
            "DEMO_BIFROST_ROUTE is 'openai'; use passthrough (the default) or v1",
        ),
        (
            ["--replicas", "0"],
            {},
            "--replicas takes a whole number from 1 to 16, not '0'",
        ),
        (
            ["--replicas", "two"],
            {},
            "--replicas takes a whole number from 1 to 16, not 'two'",
        ),
        (
            ["--replicas=-1"],
            {},
            "--replicas takes a whole number from 1 to 16, not '-1'",
        ),
        (
            ["--replicas", "17"],
            {},
            "--replicas takes a whole number from 1 to 16, not '17'",
        ),
        (["--replicas", "2.5"], {}, "not '2.5'"),
        (
            ["--replicas"],
            {},
            "--replicas needs a number of API replicas, e.g. --replicas 3",
        ),
        (["--replicas", "--dry-run"], {}, "--replicas needs a number of API replicas"),
        (["--replicas="], {}, "--replicas needs a number of API replicas"),
        (["--local", "--replicas", "2"], {}, "--replicas needs Compose (drop --local)"),
    ],
)
def test_bad_arguments_are_refused_before_docker_is_asked(
    args: list[str], env: dict[str, str], message: str
) -> None:
    probe = Docker(ENGINE)
    with pytest.raises(LaunchError) as refused:
        make_plan(args, env, docker=probe)
    assert refused.value.code == 2
    assert message in refused.value.message
    assert probe.asked == 0


def test_an_unknown_option_prints_the_usage_too() -> None:
    message = refusal("--bogus").message
    assert message.startswith("just demo: unknown option '--bogus'\nUsage: just demo")


# --------------------------------------------------------------------------
# The mode and its reason
# --------------------------------------------------------------------------


def test_no_docker_means_local_processes_and_says_why() -> None:
    for check in (NO_DOCKER, NO_ENGINE):
        made = plan("--dry-run", docker=check)
        assert made.mode == "local"
        assert made.stdout[0].startswith("LGOS demo as local processes")
        assert f"  Why local: {check.reason}. Force a mode" in made.stdout[1]
        assert made.dry_run


def test_an_answering_engine_means_compose() -> None:
    made = plan("--dry-run")
    assert made.mode == "compose"
    assert made.stdout[0].startswith("LGOS demo with Docker Compose; graphs answer")
    assert "  Why Compose: a Docker engine answers 'docker info'." in out(made)
    assert "Command: docker compose up --build --remove-orphans" in out(made)
    assert made.command == COMPOSE_UP


def test_local_can_be_forced_while_docker_answers() -> None:
    probe = Docker(ENGINE)
    made = make_plan(["--local", "--dry-run"], {}, docker=probe)
    assert isinstance(made, Plan)
    assert made.mode == "local"
    assert "Why local: --local was given." in out(made)
    assert probe.asked == 0  # not even asked


def test_compose_can_be_forced_and_fails_clearly_without_an_engine() -> None:
    refused = refusal("--compose", "--dry-run", docker=NO_ENGINE)
    assert refused.code == 1
    assert "just demo --compose: no Docker engine answers" in refused.message
    assert "just demo --local" in refused.message
    assert "Why Compose: --compose was given." in out(plan("--compose", "--dry-run"))


def test_observability_without_docker_starts_locally_and_says_so() -> None:
    made = plan("--observability", "--dry-run", docker=NO_DOCKER)
    assert made.mode == "local"
    assert made.warnings == [
        "just demo: --observability needs Compose; starting without it."
    ]


def test_replicas_without_an_engine_refuse_instead_of_running_locally() -> None:
    refused = refusal("--replicas", "2", docker=NO_ENGINE)
    assert refused.code == 1
    assert "just demo --replicas: no Docker engine answers 'docker info'" in (
        refused.message
    )
    assert "run on Docker Compose only" in refused.message
    assert "just demo --local" in refused.message


@pytest.mark.parametrize("mode", ["--local", "--compose"])
def test_a_dry_run_says_nothing_started(mode: str) -> None:
    made = plan(mode, "--dry-run")
    assert made.dry_run
    assert made.dry_run_lines[0].startswith("Dry run: nothing was started.")
    assert "Press Ctrl-C" not in out(made)
    assert "Press Ctrl-C" in started(plan(mode))


def test_the_answering_model_is_named() -> None:
    assert "the offline demo model (no API key needed)." in plan("--local").stdout[0]
    upstream = plan("--local", DEMO_API_OPENAI_API_KEY="sk-x").stdout[0]
    assert "the upstream model gpt-4.1-mini." in upstream


# --------------------------------------------------------------------------
# Compose
# --------------------------------------------------------------------------


def test_compose_mode_runs_compose_up_with_a_demo_password() -> None:
    made = plan()
    assert made.command == ("docker", "compose", "up", "--build", "--remove-orphans")
    assert made.env["POSTGRES_PASSWORD"] == "lgos-demo"
    assert made.env.get("COMPOSE_PROFILES", "") == ""
    assert "POSTGRES_PASSWORD is not set" in started(made)
    # A command run by hand needs the password too (compose.yaml requires
    # one), and `down` takes the optional profiles' containers only with
    # --profile '*'.
    assert "volumes of Compose project lgos-demo." in started(made)
    assert (
        "To remove the containers and drop the data: "
        "POSTGRES_PASSWORD=lgos-demo docker compose --profile '*' down -v\n"
    ) in started(made)


def test_compose_mode_keeps_a_configured_password() -> None:
    made = plan(POSTGRES_PASSWORD="mine", COMPOSE_PROJECT_NAME="mine")
    assert made.env["POSTGRES_PASSWORD"] == "mine"
    assert "volumes of Compose project mine." in started(made)
    assert (
        "To remove the containers and drop the data: "
        "docker compose --profile '*' down -v\n"
    ) in started(made)


def test_observability_adds_the_profile_and_the_otlp_endpoint() -> None:
    made = plan("--observability", COMPOSE_PROFILES="extra")
    assert made.env["COMPOSE_PROFILES"] == "extra,observability"
    assert made.env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector:4318"
    assert "Traces (Jaeger):       http://127.0.0.1:16686" in started(made)
    assert ("DEMO_JAEGER_PORT", "Jaeger") in [
        (port.variable, port.service) for port in made.ports
    ]


def test_compose_gateway_adds_the_profile_and_routes_the_ui_through_it() -> None:
    made = plan("--gateway", DEMO_GATEWAY_MASTER_KEY="sk-mine")
    assert made.mode == "compose"
    assert "  LiteLLM gateway:       http://127.0.0.1:4000/v1 " in started(made)
    assert made.env["COMPOSE_PROFILES"] == "gateway"
    assert made.env["DEMO_COMPOSE_UI_UPSTREAM"] == "gateway:4000"
    assert made.env["DEMO_CHAINLIT_DISCOVERY"] == "litellm"
    assert made.env["DEMO_CHAINLIT_OPENAI_API_KEY"] == "sk-mine"
    plain = plan("--dry-run", DEMO_GATEWAY_PORT="4999")
    assert "LiteLLM gateway" not in out(plain)


def _fields(made: Plan, *names: str) -> dict[str, str]:
    return {name: made.env.get(name, "") for name in names}


MCP = ("DEMO_CHAINLIT_MCP_URL", "DEMO_CHAINLIT_MCP_API_KEY", "DEMO_GATEWAY_MCP_URL")


def test_compose_mcp_adds_the_profile_and_gives_the_ui_the_service() -> None:
    made = plan("--mcp")
    assert "  MCP server:            http://127.0.0.1:8005/mcp (the UI's tools)\n" in (
        started(made)
    )
    assert made.env["COMPOSE_PROFILES"] == "mcp"
    assert _fields(made, *MCP, "DEMO_MCP_PORT") == {
        "DEMO_CHAINLIT_MCP_URL": "http://mcp:8005/mcp",
        "DEMO_CHAINLIT_MCP_API_KEY": "",
        "DEMO_GATEWAY_MCP_URL": "",
        "DEMO_MCP_PORT": "8005",
    }
    assert "COMPOSE_PROFILES=mcp docker compose up" in started(made)


def test_compose_mcp_with_the_gateway_goes_through_the_gateway() -> None:
    made = plan("--gateway", "--mcp", DEMO_GATEWAY_MASTER_KEY="sk-mine")
    assert (
        "  MCP server:            http://127.0.0.1:8005/mcp (the UI reaches it through "
        "the gateway's http://127.0.0.1:4000/mcp)\n"
    ) in started(made)
    assert made.env["COMPOSE_PROFILES"] == "gateway,mcp"
    assert _fields(made, *MCP, "DEMO_MCP_PORT") == {
        "DEMO_CHAINLIT_MCP_URL": "http://gateway:4000/mcp",
        "DEMO_CHAINLIT_MCP_API_KEY": "sk-mine",
        "DEMO_GATEWAY_MCP_URL": "http://mcp:8005/mcp",
        "DEMO_MCP_PORT": "8005",
    }


OPEN_WEBUI = (
    "DEMO_OPEN_WEBUI_DISCOVERY",
    "DEMO_OPEN_WEBUI_LGOS_API_KEY",
    "DEMO_OPEN_WEBUI_MCP_URL",
    "DEMO_COMPOSE_UI_UPSTREAM",
)


@pytest.mark.parametrize(
    ("flags", "profiles", "expected"),
    [
        (
            [],
            "open-webui",
            {
                "DEMO_OPEN_WEBUI_DISCOVERY": "",
                "DEMO_OPEN_WEBUI_LGOS_API_KEY": "lgos-demo",
                "DEMO_OPEN_WEBUI_MCP_URL": "",
                "DEMO_COMPOSE_UI_UPSTREAM": "",
            },
        ),
        (
            ["--gateway", "--mcp"],
            "gateway,mcp,open-webui",
            {
                "DEMO_OPEN_WEBUI_DISCOVERY": "litellm",
                "DEMO_OPEN_WEBUI_LGOS_API_KEY": "sk-mine",
                "DEMO_OPEN_WEBUI_MCP_URL": "http://mcp:8005/mcp",
                "DEMO_COMPOSE_UI_UPSTREAM": "gateway:4000",
            },
        ),
    ],
    ids=["alone", "gateway-mcp"],
)
def test_compose_open_webui_adds_the_profile(
    flags: list[str], profiles: str, expected: dict[str, str]
) -> None:
    """The pipe talks to what Chainlit talks to (the API, or the gateway with
    its master key); with ``--mcp`` Open WebUI calls the MCP service itself."""
    made = plan(
        "--open-webui",
        *flags,
        DEMO_GATEWAY_MASTER_KEY="sk-mine",
        DEMO_OPEN_WEBUI_PORT="9106",
    )
    assert made.stdout[0].startswith("LGOS demo with Docker Compose")
    assert "  Open WebUI:            http://127.0.0.1:9106 (the LGOS pipe" in started(
        made
    )
    assert made.env["COMPOSE_PROFILES"] == profiles
    assert made.env["DEMO_OPEN_WEBUI_PORT"] == "9106"
    assert _fields(made, *OPEN_WEBUI) == expected
    if "--gateway" in flags:
        assert "/mcp; Open WebUI calls it directly)\n" in started(made)


def test_compose_bifrost_adds_the_profile_and_routes_the_uis() -> None:
    made = plan("--bifrost", "--open-webui")
    assert "  Bifrost:               http://127.0.0.1:8007/openai_passthrough/v1 " in (
        started(made)
    )
    assert made.env["COMPOSE_PROFILES"] == "bifrost,open-webui"
    assert made.env["DEMO_COMPOSE_UI_UPSTREAM"] == "bifrost:8080/openai_passthrough"
    assert made.env["DEMO_BIFROST_LGOS_API_KEY"] == "lgos-demo"
    assert made.bifrost_config is None  # printed by dry runs only
    v1 = plan("--bifrost", "--dry-run", DEMO_BIFROST_ROUTE="v1")
    assert v1.bifrost_config is not None
    assert v1.bifrost_config.lgos_url == "http://api:8000"
    assert "bifrost-config service writes into the bifrost_data volume" in (
        v1.bifrost_config.where
    )
    assert "  Command: COMPOSE_PROFILES=bifrost docker compose up" in out(v1)


def test_compose_v1_route_sets_the_ui_upstream_and_model() -> None:
    made = plan("--bifrost", DEMO_BIFROST_ROUTE="v1")
    assert made.env["DEMO_COMPOSE_UI_UPSTREAM"] == "bifrost:8080"
    assert made.env["DEMO_CHAINLIT_DEFAULT_MODEL"] == "openai/chat"
    assert "models openai/<graph>: no lgos extension" in started(made)
    for model in ("writer", "openai/writer"):
        again = plan(
            "--bifrost", DEMO_BIFROST_ROUTE="v1", DEMO_CHAINLIT_DEFAULT_MODEL=model
        )
        assert again.env["DEMO_CHAINLIT_DEFAULT_MODEL"] == "openai/writer"


# --------------------------------------------------------------------------
# Compose --replicas
# --------------------------------------------------------------------------

REPLICAS = (
    "COMPOSE_FILE",
    "DEMO_API_REPLICAS",
    "DEMO_WORKER_REPLICAS",
    "DEMO_COMPOSE_UI_UPSTREAM",
)


def test_replicas_add_the_overlay_and_say_where_the_balancer_is() -> None:
    made = plan(
        "--replicas", "3", DEMO_BALANCER_STATS_PORT="18404", DEMO_API_PORT="9000"
    )
    assert made.mode == "compose"
    assert made.command == COMPOSE_UP
    assert _fields(made, *REPLICAS) == {
        "COMPOSE_FILE": OVERLAY,
        "DEMO_API_REPLICAS": "3",
        "DEMO_WORKER_REPLICAS": "2",
        "DEMO_COMPOSE_UI_UPSTREAM": "balancer:8000",
    }
    text = started(made)
    # The API's address stays; the balancer answers there.
    assert "  OpenAI-compatible API: http://127.0.0.1:9000/v1\n" in text
    assert "  API replicas:          3 behind HAProxy, round robin" in text
    assert "2 Hatchet workers" in text
    assert "  Balancer statistics:   http://127.0.0.1:18404/stats" in text
    # The command as one would type it, and the removal command with the
    # overlay (else `down` would leave the balancer behind).
    assert (
        f"  Command: COMPOSE_FILE={OVERLAY} DEMO_API_REPLICAS=3 "
        "DEMO_WORKER_REPLICAS=2 docker compose up --build --remove-orphans\n"
    ) in text
    assert (
        f"To remove the containers and drop the data: COMPOSE_FILE={OVERLAY} "
        "POSTGRES_PASSWORD=lgos-demo docker compose --profile '*' down -v\n"
    ) in text


def test_dry_run_shows_the_replicas() -> None:
    made = plan("--dry-run", "--replicas=2", DEMO_WORKER_REPLICAS="4")
    assert "  API replicas:          2 behind HAProxy" in out(made)
    assert "4 Hatchet workers" in out(made)
    assert (
        f"Command: COMPOSE_FILE={OVERLAY} DEMO_API_REPLICAS=2 DEMO_WORKER_REPLICAS=4 "
    ) in out(made)


def test_replicas_are_read_as_decimal_numbers() -> None:
    assert plan("--replicas", "03").env["DEMO_API_REPLICAS"] == "3"


def test_without_replicas_nothing_changes() -> None:
    made = plan()
    assert _fields(made, *REPLICAS) == dict.fromkeys(REPLICAS, "")
    assert "API replicas" not in started(made)
    assert "Command: docker compose up --build --remove-orphans\n" in started(made)


def test_an_overlay_already_named_is_not_added_twice() -> None:
    made = plan("--replicas", "2", COMPOSE_FILE=OVERLAY)
    assert made.env["COMPOSE_FILE"] == OVERLAY
    assert made.env["DEMO_API_REPLICAS"] == "2"


def test_the_example_env_files_api_upstream_becomes_the_balancer() -> None:
    # .env.example sets DEMO_COMPOSE_UI_UPSTREAM=api:8000: with replicas the
    # UI goes through the balancer all the same.
    made = plan("--replicas", "2", DEMO_COMPOSE_UI_UPSTREAM="api:8000")
    assert made.env["DEMO_COMPOSE_UI_UPSTREAM"] == "balancer:8000"


def test_replicas_with_the_gateway_keep_the_ui_on_the_gateway() -> None:
    made = plan("--gateway", "--replicas", "2")
    assert made.env["COMPOSE_PROFILES"] == "gateway"
    assert _fields(made, *REPLICAS) == {
        "COMPOSE_FILE": OVERLAY,
        "DEMO_API_REPLICAS": "2",
        "DEMO_WORKER_REPLICAS": "2",
        "DEMO_COMPOSE_UI_UPSTREAM": "gateway:4000",
    }


def test_a_bad_worker_count_is_refused() -> None:
    refused = refusal("--replicas", "2", DEMO_WORKER_REPLICAS="many")
    assert refused.code == 2
    assert (
        "DEMO_WORKER_REPLICAS takes a whole number of Hatchet workers, not 'many'"
        in refused.message
    )


# --------------------------------------------------------------------------
# Local processes
# --------------------------------------------------------------------------

LOCAL_ENV = (
    "DEMO_API_HOST",
    "DEMO_CHAINLIT_OPENAI_BASE_URL",
    "DEMO_CHAINLIT_DISCOVERY",
    "DEMO_CHAINLIT_OPENAI_API_KEY",
    "DEMO_GATEWAY_LGOS_BASE_URL",
    "DEMO_GATEWAY_LITELLM",
    "LGOS_API_KEYS",
    "DEMO_GATEWAY_LGOS_API_KEY",
)


def test_local_mode_syncs_then_starts_the_procfile() -> None:
    made = plan("--local", DEMO_API_PORT="9000")
    assert LOCAL_SYNC == ("uv", "sync", "--all-packages", "--frozen", "--quiet")
    assert " ".join(made.command) == f"{HONCHO_LINE} api chainlit corpus files"
    assert HONCHO_LINE == (
        "uv run --frozen --no-sync honcho --no-prefix -e /dev/null -f demo/Procfile -d . start"
    )
    assert made.env["DEMO_API_HOST"] == "127.0.0.1"
    assert made.env["DEMO_CHAINLIT_OPENAI_BASE_URL"] == "http://127.0.0.1:9000/v1"
    assert made.env["LGOS_LOG_FORMAT"] == "text"
    assert "offline demo model" in started(made)
    assert not made.ensure_litellm
    assert not made.ensure_open_webui


def test_the_local_services_find_each_other_by_their_ports() -> None:
    made = plan(
        "--local",
        DEMO_FILES_PORT="9003",
        DEMO_CORPUS_PORT="9002",
        LGOS_LOG_FORMAT="json",
    )
    assert made.env["DEMO_API_FILES_BASE_URL"] == "http://127.0.0.1:9003/v1"
    assert made.env["DEMO_CHAINLIT_FILES_BASE_URL"] == "http://127.0.0.1:9003/v1"
    assert made.env["DEMO_API_CORPUS_BASE_URL"] == "http://127.0.0.1:9002"
    assert made.env["LGOS_LOG_FORMAT"] == "json"
    assert "  Files service:         http://127.0.0.1:9003/v1" in started(made)


def test_gateway_puts_the_ui_behind_the_litellm_gateway() -> None:
    made = plan(
        "--local",
        "--gateway",
        DEMO_GATEWAY_PORT="4100",
        DEMO_API_PORT="9000",
        DEMO_GATEWAY_LITELLM="/opt/litellm/bin/litellm",
    )
    gateway = "http://127.0.0.1:4100/v1"
    api = "http://127.0.0.1:9000/v1"
    assert f"  OpenAI-compatible API: {api}\n" in started(made)
    assert f"  LiteLLM gateway:       {gateway} " in started(made)
    assert made.command == (*HONCHO, "api", "chainlit", "corpus", "files", "gateway")
    assert _fields(made, *LOCAL_ENV) == {
        "DEMO_API_HOST": "127.0.0.1",
        "DEMO_CHAINLIT_OPENAI_BASE_URL": gateway,
        "DEMO_CHAINLIT_DISCOVERY": "litellm",
        "DEMO_CHAINLIT_OPENAI_API_KEY": "lgos-demo",
        "DEMO_GATEWAY_LGOS_BASE_URL": api,
        "DEMO_GATEWAY_LITELLM": "/opt/litellm/bin/litellm",
        "LGOS_API_KEYS": "lgos-demo",
        "DEMO_GATEWAY_LGOS_API_KEY": "lgos-demo",
    }
    assert made.env["DEMO_UI_WAIT_FOR"] == "http://127.0.0.1:4100/health/liveliness"
    # The pinned proxy is installed (scripts/ensure-litellm.sh) unless given.
    assert not made.ensure_litellm
    assert plan("--local", "--gateway").ensure_litellm


def test_without_gateway_the_ui_talks_to_lgos() -> None:
    made = plan("--local")
    assert "LiteLLM gateway" not in started(made)
    assert made.command[-4:] == ("api", "chainlit", "corpus", "files")
    for name in (
        "DEMO_CHAINLIT_DISCOVERY",
        "DEMO_GATEWAY_LGOS_BASE_URL",
        "DEMO_GATEWAY_LITELLM",
        *MCP,
        "DEMO_MCP_HOST",
        "DEMO_MCP_PORT",
    ):
        assert name not in made.env, name
    assert made.env["DEMO_CHAINLIT_OPENAI_API_KEY"] == "lgos-demo"
    assert made.env["DEMO_UI_WAIT_FOR"] == ""


def test_the_gateway_key_is_the_uis_key() -> None:
    made = plan("--local", "--gateway", DEMO_GATEWAY_MASTER_KEY="sk-mine")
    assert made.env["DEMO_CHAINLIT_OPENAI_API_KEY"] == "sk-mine"


def test_local_mode_gives_the_api_and_its_clients_the_demo_key() -> None:
    """The API requires ``DEMO_LGOS_API_KEY`` (default ``lgos-demo``), as in
    Compose, and the UI and the gateway's proxy send it; the banner shows the
    default key only."""
    made = plan("--local")
    assert "  API key:               lgos-demo (Authorization: Bearer lgos-demo" in (
        started(made)
    )
    assert made.env["DEMO_CHAINLIT_OPENAI_API_KEY"] == "lgos-demo"
    assert made.env["LGOS_API_KEYS"] == "lgos-demo"
    assert made.env["DEMO_GATEWAY_LGOS_API_KEY"] == "lgos-demo"
    mine = plan("--local", "--gateway", DEMO_LGOS_API_KEY="sk-own-key")
    assert "sk-own-key" not in started(mine)
    assert "  API key:               the value of DEMO_LGOS_API_KEY" in started(mine)
    # Behind the gateway the UI sends the gateway's key; the gateway sends ours.
    assert mine.env["DEMO_CHAINLIT_OPENAI_API_KEY"] == "lgos-demo"
    assert mine.env["LGOS_API_KEYS"] == "sk-own-key"
    assert mine.env["DEMO_GATEWAY_LGOS_API_KEY"] == "sk-own-key"


def test_mcp_runs_the_mcp_server_and_gives_the_ui_its_address() -> None:
    made = plan("--local", "--mcp", DEMO_MCP_PORT="9105")
    mcp = "http://127.0.0.1:9105/mcp"
    assert f"  MCP server:            {mcp} (the UI's tools)\n" in started(made)
    assert "LiteLLM gateway" not in started(made)
    assert made.command == (*HONCHO, "api", "chainlit", "corpus", "files", "mcp")
    assert _fields(
        made, *MCP, "DEMO_MCP_HOST", "DEMO_MCP_PORT", "DEMO_UI_WAIT_FOR"
    ) == {
        "DEMO_CHAINLIT_MCP_URL": mcp,
        "DEMO_CHAINLIT_MCP_API_KEY": "",
        "DEMO_GATEWAY_MCP_URL": "",
        "DEMO_MCP_HOST": "127.0.0.1",
        "DEMO_MCP_PORT": "9105",
        "DEMO_UI_WAIT_FOR": "http://127.0.0.1:9105/health",
    }


def test_mcp_with_the_gateway_goes_through_the_gateways_mcp_endpoint() -> None:
    made = plan(
        "--local",
        "--gateway",
        "--mcp",
        DEMO_MCP_PORT="9105",
        DEMO_GATEWAY_PORT="4100",
        DEMO_GATEWAY_MASTER_KEY="sk-mine",
    )
    mcp = "http://127.0.0.1:9105/mcp"
    through = "http://127.0.0.1:4100/mcp"
    assert (
        f"  MCP server:            {mcp} (the UI reaches it through the gateway's {through})\n"
        in started(made)
    )
    assert made.command[-6:] == ("api", "chainlit", "corpus", "files", "gateway", "mcp")
    assert _fields(
        made, *MCP, "DEMO_MCP_HOST", "DEMO_MCP_PORT", "DEMO_UI_WAIT_FOR"
    ) == {
        "DEMO_CHAINLIT_MCP_URL": through,
        "DEMO_CHAINLIT_MCP_API_KEY": "sk-mine",
        "DEMO_GATEWAY_MCP_URL": mcp,
        "DEMO_MCP_HOST": "127.0.0.1",
        "DEMO_MCP_PORT": "9105",
        # The UI waits for the gateway, then the MCP server.
        "DEMO_UI_WAIT_FOR": "http://127.0.0.1:4100/health/liveliness "
        "http://127.0.0.1:9105/health",
    }


def test_without_mcp_the_ui_keeps_the_mcp_url_it_was_given() -> None:
    made = plan("--local", DEMO_CHAINLIT_MCP_URL="http://elsewhere:9/mcp")
    assert "MCP server" not in started(made)
    assert made.command[-1] == "files"
    assert made.env["DEMO_CHAINLIT_MCP_URL"] == "http://elsewhere:9/mcp"
    assert "DEMO_GATEWAY_MCP_URL" not in made.env


def test_the_mcp_server_is_reached_on_loopback_when_it_listens_everywhere() -> None:
    made = plan("--local", "--mcp", DEMO_MCP_HOST="0.0.0.0")
    assert made.env["DEMO_CHAINLIT_MCP_URL"] == "http://127.0.0.1:8005/mcp"


def test_dry_run_with_mcp_prints_the_mcp_server_in_both_modes() -> None:
    for args in (["--local", "--mcp"], ["--mcp"]):
        made = plan("--dry-run", *args)
        assert "  MCP server:            http://127.0.0.1:8005/mcp" in out(made)
    local = plan("--dry-run", "--local", "--mcp")
    assert f"  Command: {HONCHO_LINE} api chainlit corpus files mcp\n" in out(local)


def test_open_webui_runs_with_local_processes() -> None:
    for args, docker in (
        (["--open-webui"], NO_DOCKER),
        (["--local", "--open-webui"], ENGINE),
    ):
        made = plan("--dry-run", *args, docker=docker, DEMO_OPEN_WEBUI_PORT="9106")
        assert made.stdout[0].startswith("LGOS demo as local processes")
        assert "  Open WebUI:            http://127.0.0.1:9106 " in out(made)
        assert f"  Command: {HONCHO_LINE} api chainlit corpus files open-webui\n" in (
            out(made)
        )
        assert made.ensure_open_webui
        assert made.env["DEMO_OPEN_WEBUI_WAIT_FOR"] == "http://127.0.0.1:8000/v1/health"
        assert made.env["DEMO_OPEN_WEBUI_LGOS_BASE_URL"] == "http://127.0.0.1:8000/v1"
        assert made.env["DEMO_OPEN_WEBUI_DISCOVERY"] == "lgos"
    assert "Open WebUI" not in out(plan("--dry-run", "--local"))


def test_open_webui_with_mcp_gets_the_mcp_server() -> None:
    """``--open-webui --mcp`` hands Open WebUI's provisioning the demo MCP
    server's endpoint, which it attaches as a tool server; without ``--mcp``
    it gets none."""
    made = plan("--local", "--open-webui", "--mcp", DEMO_MCP_PORT="9105")
    assert made.command[-6:] == (
        "api",
        "chainlit",
        "corpus",
        "files",
        "mcp",
        "open-webui",
    )
    assert made.env["DEMO_OPEN_WEBUI_MCP_URL"] == "http://127.0.0.1:9105/mcp"
    assert made.env["DEMO_OPEN_WEBUI_WAIT_FOR"] == (
        "http://127.0.0.1:8000/v1/health http://127.0.0.1:9105/health"
    )
    assert "DEMO_OPEN_WEBUI_MCP_URL" not in plan("--local", "--open-webui").env


def test_local_bifrost_puts_the_uis_behind_its_passthrough_route() -> None:
    made = plan(
        "--local",
        "--bifrost",
        "--open-webui",
        bifrost="/opt/bifrost-http",
        DEMO_BIFROST_PORT="9107",
        DEMO_API_PORT="9000",
    )
    base = "http://127.0.0.1:9107/openai_passthrough/v1"
    assert f"  Bifrost:               {base} (the UIs'; every LGOS feature;" in (
        started(made)
    )
    assert "  Bifrost binary:        /opt/bifrost-http" in started(made)
    assert made.command[-6:] == (
        "api",
        "chainlit",
        "corpus",
        "files",
        "bifrost",
        "open-webui",
    )
    assert _fields(
        made,
        "DEMO_CHAINLIT_OPENAI_BASE_URL",
        "DEMO_OPEN_WEBUI_LGOS_BASE_URL",
        "DEMO_BIFROST_LGOS_URL",
        "DEMO_BIFROST_LGOS_API_KEY",
        "DEMO_BIFROST_BIN",
        "DEMO_BIFROST_APP_DIR",
        "DEMO_UI_WAIT_FOR",
        "DEMO_CHAINLIT_OPENAI_API_KEY",
    ) == {
        "DEMO_CHAINLIT_OPENAI_BASE_URL": base,
        "DEMO_OPEN_WEBUI_LGOS_BASE_URL": base,
        "DEMO_BIFROST_LGOS_URL": "http://127.0.0.1:9000",
        "DEMO_BIFROST_LGOS_API_KEY": "lgos-demo",
        "DEMO_BIFROST_BIN": "/opt/bifrost-http",
        "DEMO_BIFROST_APP_DIR": "/repo/.data/bifrost",
        "DEMO_UI_WAIT_FOR": "http://127.0.0.1:9107/health",
        # The UIs keep sending the API's key: the passthrough hands it on.
        "DEMO_CHAINLIT_OPENAI_API_KEY": "lgos-demo",
    }
    assert made.bifrost_missing is None


def test_local_bifrost_v1_route_names_models_openai_slash_graph() -> None:
    made = plan(
        "--local",
        "--bifrost",
        "--dry-run",
        bifrost="/opt/bifrost-http",
        DEMO_BIFROST_ROUTE="v1",
        DEMO_BIFROST_PORT="9107",
        DEMO_API_HOST="0.0.0.0",
        DEMO_LGOS_API_KEY="sk-ours",
    )
    assert "  Bifrost:               http://127.0.0.1:9107/v1 (the UIs'; models" in (
        out(made)
    )
    assert "no lgos extension, no commentary phase, no background polling" in out(made)
    assert made.env["DEMO_CHAINLIT_DEFAULT_MODEL"] == "openai/chat"
    assert made.env["DEMO_CHAINLIT_OPENAI_BASE_URL"] == "http://127.0.0.1:9107/v1"
    assert made.env["DEMO_BIFROST_LGOS_API_KEY"] == "sk-ours"
    # The configuration is printed for LGOS on loopback, where Bifrost reaches it.
    assert made.bifrost_config is not None
    assert made.bifrost_config.lgos_url == "http://127.0.0.1:8000"
    assert made.after_config == [
        "  Bifrost command: /opt/bifrost-http -app-dir /repo/.data/bifrost "
        "-host 127.0.0.1 -port 9107"
    ]


def test_local_bifrost_without_a_binary_says_how_to_get_one() -> None:
    made = plan("--local", "--bifrost")
    assert made.bifrost_missing is not None
    assert "no Bifrost binary: set DEMO_BIFROST_BIN" in made.bifrost_missing
    assert "go install github.com/maximhq/bifrost/transports/bifrost-http@v1.4.19" in (
        made.bifrost_missing
    )
    assert "just demo --compose --bifrost" in made.bifrost_missing
    assert "  Bifrost binary:        bifrost-http (not found: see below)" in made.stdout
    broken = plan("--local", "--bifrost", DEMO_BIFROST_BIN="/nonexistent/bifrost-http")
    assert broken.bifrost_missing is not None
    assert "DEMO_BIFROST_BIN (/nonexistent/bifrost-http) is not an executable" in (
        broken.bifrost_missing
    )
    dry = plan("--local", "--bifrost", "--dry-run")
    assert dry.bifrost_config is not None  # a dry run prints it all the same
    assert dry.bifrost_missing is not None


# --------------------------------------------------------------------------
# .env
# --------------------------------------------------------------------------


def test_dotenv_values_apply_under_the_environment(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """.env as `just` loads it: the environment wins; honcho reads no .env."""
    env_file = tmp_path / "demo.env"
    env_file.write_text(
        "# a comment\n"
        "DEMO_CHAINLIT_DISCOVERY=lgos\n"
        "export DEMO_GATEWAY_MASTER_KEY='sk-file'\n"
        'DEMO_MCP_PORT="8123"\n'
        "not a variable\n"
        "EMPTY_HERE=from-file\n"
    )
    env = load_env({"DEMO_MCP_PORT": "9105", "EMPTY_HERE": ""}, env_file)
    assert env == {
        "DEMO_CHAINLIT_DISCOVERY": "lgos",
        "DEMO_GATEWAY_MASTER_KEY": "sk-file",
        "DEMO_MCP_PORT": "9105",  # set: wins over the file
        "EMPTY_HERE": "",  # set, even empty: wins too
    }
    assert caplog.records == []  # the line it cannot read is skipped quietly
    made = plan("--local", "--gateway", "--mcp", **env)
    # --gateway decides the UI's discovery, whatever .env says (honcho's own
    # .env reading would have put `lgos` back).
    assert made.env["DEMO_CHAINLIT_DISCOVERY"] == "litellm"
    assert made.env["DEMO_CHAINLIT_OPENAI_API_KEY"] == "sk-file"
    assert made.env["DEMO_MCP_PORT"] == "9105"
    assert made.command[HONCHO.index("-e") + 1] == "/dev/null"
    assert load_env({"A": "1"}, tmp_path / "missing.env") == {"A": "1"}


# --------------------------------------------------------------------------
# Busy ports: named before anything starts, with free ones suggested
# --------------------------------------------------------------------------


def _busy(*ports: int):
    return lambda port: port in ports


def test_a_busy_port_is_named_with_a_free_one_suggested() -> None:
    made = plan("--local", DEMO_FILES_PORT="9003")
    message = busy_ports(made, _busy(9003))
    assert message is not None
    assert (
        "just demo: port 9003 for the Files service (DEMO_FILES_PORT) is already in use."
        in message
    )
    assert "Nothing was started." in message
    assert (
        "the services: DEMO_FILES_PORT=9013 just demo --local   (or set them in .env)."
        in (message)
    )
    assert busy_ports(made, _busy()) is None


def test_a_busy_suggestion_is_skipped() -> None:
    made = plan("--local", DEMO_API_PORT="9000")
    message = busy_ports(made, _busy(9000, 9010))
    assert message is not None
    assert "for the API (DEMO_API_PORT)" in message
    assert "DEMO_API_PORT=9020 " in message


def test_every_busy_port_is_named_at_once() -> None:
    """Two busy ports: both named, one command moving both to ports that are
    free and distinct (not one another service of the run uses either)."""
    made = plan("--local", DEMO_API_PORT="9000", DEMO_FILES_PORT="9010")
    message = busy_ports(made, _busy(9000, 9010))
    assert message is not None
    assert "port 9000 for the API (DEMO_API_PORT)" in message
    assert "port 9010 for the Files service (DEMO_FILES_PORT)" in message
    assert (
        "the services: DEMO_API_PORT=9020 DEMO_FILES_PORT=9030 just demo --local"
        in (message)
    )


def test_the_optional_parts_ports_are_checked_only_with_their_flags() -> None:
    def checked(made: Plan) -> set[str]:
        return {port.variable for port in made.ports}

    base = {
        "DEMO_API_PORT",
        "DEMO_CHAINLIT_PORT",
        "DEMO_FILES_PORT",
        "DEMO_CORPUS_PORT",
    }
    assert checked(plan("--local")) == base
    assert checked(plan("--local", "--gateway")) == base | {"DEMO_GATEWAY_PORT"}
    assert checked(plan("--local", "--mcp")) == base | {"DEMO_MCP_PORT"}
    assert checked(plan("--local", "--bifrost")) == base | {"DEMO_BIFROST_PORT"}
    assert checked(plan("--local", "--open-webui")) == base | {"DEMO_OPEN_WEBUI_PORT"}
    published = {"DEMO_API_PORT", "DEMO_CHAINLIT_PORT", "DEMO_CORPUS_PORT"}
    assert checked(plan()) == published
    assert checked(plan("--mcp")) == published | {"DEMO_MCP_PORT"}
    assert checked(plan("--open-webui")) == published | {"DEMO_OPEN_WEBUI_PORT"}
    assert checked(plan("--replicas", "2")) == published | {"DEMO_BALANCER_STATS_PORT"}


def test_the_suggested_command_keeps_the_options_given() -> None:
    for args, variable, service in (
        (("--local", "--gateway"), "DEMO_GATEWAY_PORT", "LiteLLM gateway"),
        (("--local", "--mcp"), "DEMO_MCP_PORT", "MCP server"),
        (("--mcp",), "DEMO_MCP_PORT", "MCP server"),
        (("--open-webui",), "DEMO_OPEN_WEBUI_PORT", "Open WebUI"),
        (("--replicas", "2"), "DEMO_BALANCER_STATS_PORT", "Balancer statistics"),
        ((), "DEMO_CORPUS_PORT", "Search corpus pages"),
    ):
        made = plan(*args, **{variable: "9999"})
        message = busy_ports(made, _busy(9999))
        assert message is not None
        assert f"port 9999 for the {service} ({variable}) is already in use" in message
        given = f" {' '.join(args)}" if args else ""
        assert f"just demo{given}   (or set them in .env)." in message


# --------------------------------------------------------------------------
# A running stack: attach with the same options only
# --------------------------------------------------------------------------


def test_compose_mode_attaches_to_its_running_stack_with_the_same_options() -> None:
    assert attach_refusal(plan(), ["api", "chainlit"], lambda: 1) is None
    same = plan("--gateway", "--mcp")
    assert (
        attach_refusal(same, ["api", "gateway", "mcp", "chainlit"], lambda: 1) is None
    )
    assert "The stack is already running (another 'just demo'?)" in ATTACHED


@pytest.mark.parametrize(
    ("running", "flags", "hint"),
    [
        ("api chainlit mcp", [], "just demo --compose --mcp"),
        ("api chainlit", ["--mcp"], "just demo --compose\n"),
        ("api chainlit gateway mcp", ["--mcp"], "just demo --compose --gateway --mcp"),
        ("api chainlit open-webui", [], "just demo --compose --open-webui"),
        ("api chainlit bifrost", [], "just demo --compose --bifrost"),
        ("api chainlit jaeger", [], "just demo --compose --observability"),
    ],
    ids=[
        "mcp-running",
        "mcp-asked",
        "gateway-running",
        "open-webui-running",
        "bifrost-running",
        "observability-running",
    ],
)
def test_compose_mode_refuses_to_attach_with_other_options(
    running: str, flags: list[str], hint: str
) -> None:
    # Attaching with other options would recreate the UI without the running
    # stack's parts, and this run's Ctrl-C would leave them running.
    message = attach_refusal(plan(*flags), running.split(), lambda: 1)
    assert message is not None
    assert "the stack is already running with" in message
    assert f"Attach with the same options: {hint}" in message + "\n"
    assert (
        "or: POSTGRES_PASSWORD=lgos-demo docker compose --profile '*' stop)" in message
    )


def test_attaching_needs_the_same_replicas() -> None:
    running = ["api", "balancer", "chainlit"]
    asked: list[int] = []

    def three() -> int:
        asked.append(3)
        return 3

    assert attach_refusal(plan("--replicas", "3"), running, three) is None
    other = attach_refusal(plan("--replicas", "2"), running, three)
    assert other is not None
    assert "already running with options '--replicas 3'" in other
    assert "just demo --compose --replicas 3" in other
    assert attach_refusal(plan(), ["api"], three) is None
    assert len(asked) == 2  # counted only where the balancer runs


# --------------------------------------------------------------------------
# Readiness of the Compose stack
# --------------------------------------------------------------------------

HEALTHY = "chainlit=healthy\nworker=healthy\nopen-webui=healthy\n"


def test_compose_mode_says_when_the_stack_is_ready() -> None:
    made = plan(DEMO_CHAINLIT_PORT="9001")
    ready = readiness(made, HEALTHY, None)
    assert ready is not None
    assert (
        ready.line
        == "LGOS demo is ready: open http://127.0.0.1:9001 (Ctrl-C stops it)."
    )
    assert ready.warning is None
    # Not before the UI and the worker report healthy.
    assert readiness(made, "", None) is None
    assert readiness(made, "chainlit=healthy\nworker=starting\n", None) is None


def test_compose_open_webui_is_ready_once_provisioned() -> None:
    made = plan("--open-webui", DEMO_CHAINLIT_PORT="9001", DEMO_OPEN_WEBUI_PORT="9106")
    ui, owui = "http://127.0.0.1:9001", "http://127.0.0.1:9106"
    ready = readiness(made, HEALTHY, "open-webui-provision=0\n")
    assert ready is not None
    assert ready.line == f"LGOS demo is ready: open {ui} or {owui} (Ctrl-C stops it)."
    # Healthy but not provisioned yet (or not known): not ready.
    assert readiness(made, HEALTHY, "") is None
    assert readiness(made, HEALTHY, None) is None
    # The provisioning failed: said, and the rest is announced without it.
    failed = readiness(made, HEALTHY, "open-webui-provision=1\n")
    assert failed is not None
    assert failed.warning is not None
    assert (
        "POSTGRES_PASSWORD=lgos-demo docker compose logs open-webui-provision"
        in failed.warning
    )
    assert failed.line == f"LGOS demo is ready: open {ui} (Ctrl-C stops it)."
