"""compose.yaml is valid Compose and consistent with the repository.

No Docker engine runs here, so the file is checked against the Compose
specification's JSON Schema and against what it names: variables, files,
images, ports, dependencies, volumes.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft7Validator

from lgos_demo_api.mcp_server import McpServerSettings
from lgos_demo_launcher.plan import DockerCheck, Plan, make_plan
from tests.compose.stack import (
    COMPOSE_SPEC,
    DOCKERFILE,
    ROOT,
    MissingVariableError,
    argv,
    documented_variables,
    healthcheck_urls,
    load,
    load_raw,
    passed_through,
    references,
    service_environment,
)

PYTHON_SERVICES = {
    "api",
    "worker",
    "files",
    "corpus",
    "chainlit",
    "mcp",
    "open-webui-provision",
    "bifrost-config",
}
ONE_SHOT = {"hatchet-token", "open-webui-provision", "bifrost-config"}
OBSERVABILITY = {"otel-collector", "jaeger"}
GATEWAY = {"gateway"}
MCP = {"mcp"}
OPEN_WEBUI = {"open-webui", "open-webui-provision"}
BIFROST = {"bifrost", "bifrost-config"}
# Published container ports: the UI, the API, the corpus pages citations open
# in the browser, Jaeger's UI (observability profile), and for clients on this
# machine the LiteLLM gateway (gateway profile) and the demo MCP server (mcp
# profile), Open WebUI (open-webui profile) and Bifrost (bifrost profile).
# Nothing else.
PUBLISHED = {
    "chainlit": {8001},
    "open-webui": {8080},
    "api": {8000},
    "corpus": {8002},
    "jaeger": {16686},
    "gateway": {4000},
    "mcp": {8005},
    "bifrost": {8080},
}


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(COMPOSE_SPEC.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def compose() -> dict:
    return load()


def test_the_spec_is_draft_07(schema: dict) -> None:
    assert "draft-07" in schema["$schema"]


@pytest.mark.parametrize("interpolated", [False, True], ids=["raw", "interpolated"])
def test_compose_file_validates_against_the_compose_spec(
    schema: dict, interpolated: bool
) -> None:
    document = load() if interpolated else load_raw()
    errors = sorted(
        Draft7Validator(schema).iter_errors(document), key=lambda e: list(e.path)
    )
    assert not errors, "\n".join(
        f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("depends_on", {"postgres": {"condition": "healthy"}}),
        ("helthcheck", {"test": ["CMD", "true"]}),
        ("restart", ["always"]),
    ],
)
def test_the_validator_rejects_a_broken_service(
    schema: dict, key: str, value: object
) -> None:
    broken = load()
    broken["services"]["api"][key] = value
    assert list(Draft7Validator(schema).iter_errors(broken))


def test_the_expected_services_exist(compose: dict) -> None:
    assert set(compose["services"]) == (
        {"postgres", "hatchet-lite"}
        | ONE_SHOT
        | PYTHON_SERVICES
        | OBSERVABILITY
        | GATEWAY
        | MCP
        | OPEN_WEBUI
        | BIFROST
    )


def test_every_variable_is_documented_in_env_example() -> None:
    documented = documented_variables()
    used = {ref.name for ref in references()} | passed_through()
    assert used, "compose.yaml uses no variables?"
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in used
    assert sorted(used - set(documented)) == []


def test_documented_values_match_compose_defaults() -> None:
    # .env.example shows the defaults compose.yaml falls back to.
    documented = documented_variables()
    mismatches = {
        ref.name: (ref.arg, documented[ref.name])
        for ref in references()
        if ref.op == ":-"
        and documented.get(ref.name) is not None
        and documented[ref.name] != ref.arg
    }
    assert mismatches == {}


def test_required_variables_fail_fast() -> None:
    required = {ref.name for ref in references() if ref.op in (":?", "?")}
    assert required == {"POSTGRES_PASSWORD"}
    with pytest.raises(MissingVariableError, match="POSTGRES_PASSWORD"):
        load({})
    with pytest.raises(MissingVariableError, match="POSTGRES_PASSWORD"):
        load({"POSTGRES_PASSWORD": ""})
    # Every other variable has a default.
    assert all(ref.op in (":-", "-", ":?", "?") for ref in references()), (
        "a variable without default or error message"
    )


def test_variables_reach_the_containers(compose: dict) -> None:
    env = {"POSTGRES_PASSWORD": "s3cret", "DEMO_API_PORT": "9000", "POSTGRES_DB": "x"}
    services = load(env)["services"]
    api = service_environment(services["api"])
    assert api["LGOS_POSTGRES_URI"] == "postgresql://lgos:s3cret@postgres:5432/x"
    assert services["api"]["ports"] == ["127.0.0.1:9000:8000"]
    assert service_environment(services["postgres"])["POSTGRES_PASSWORD"] == "s3cret"
    # $$ reaches the container as a literal $ for its own shell.
    assert "${POSTGRES_USER}" in services["postgres"]["healthcheck"]["test"][1]


def test_the_api_requires_the_demo_key_its_clients_send(compose: dict) -> None:
    services = compose["services"]
    assert service_environment(services["api"])["LGOS_API_KEYS"] == "lgos-demo"
    assert "LGOS_API_KEYS" not in service_environment(services["worker"])
    ui = service_environment(services["chainlit"])
    assert ui["DEMO_CHAINLIT_OPENAI_API_KEY"] == "lgos-demo"
    gateway = service_environment(services["gateway"])
    assert gateway["DEMO_GATEWAY_LGOS_API_KEY"] == "lgos-demo"
    pipe = service_environment(services["open-webui-provision"])
    assert pipe["DEMO_OPEN_WEBUI_LGOS_API_KEY"] == "lgos-demo"
    # The health check Compose runs needs no key.
    assert healthcheck_urls(services["api"]) == ["http://127.0.0.1:8000/v1/health"]
    mine = load({"POSTGRES_PASSWORD": "pw", "DEMO_LGOS_API_KEY": "sk-mine"})
    assert service_environment(mine["services"]["api"])["LGOS_API_KEYS"] == "sk-mine"


def test_images_are_pinned_and_python_services_share_one_build(compose: dict) -> None:
    for name, service in compose["services"].items():
        image = service["image"]
        if name in PYTHON_SERVICES:
            assert image == "lgos-demo:local"
            assert service["build"]["context"] == "."
            assert service["build"]["dockerfile"] == "Dockerfile"
            assert "target" not in service["build"]  # the default: the last stage
            continue
        if name in GATEWAY:  # the same Dockerfile, plus the pinned LiteLLM proxy
            assert image == "lgos-demo-gateway:local"
            assert service["build"]["target"] == "gateway"
            assert (
                service["build"]["args"] == compose["services"]["api"]["build"]["args"]
            )
            continue
        assert "build" not in service
        repository, _, tag = image.rpartition(":")
        assert repository and "/" not in tag, f"{name}: {image} has no tag"
        assert tag != "latest" and re.match(r"v?\d+\.\d+", tag), f"{name}: {image}"
    # The same engine version the tests run (scripts/hatchet/go.mod pins it).
    go_mod = (ROOT / "scripts" / "hatchet" / "go.mod").read_text()
    [engine] = re.findall(
        r"^require github.com/hatchet-dev/hatchet (v\S+)$", go_mod, re.M
    )
    assert compose["services"]["hatchet-lite"]["image"] == (
        f"ghcr.io/hatchet-dev/hatchet/hatchet-lite:{engine}"
    )
    assert (
        compose["services"]["hatchet-token"]["image"]
        == (compose["services"]["hatchet-lite"]["image"])
    )


IMAGE_VARIABLES = {
    "postgres": "DEMO_POSTGRES_IMAGE",
    "hatchet-lite": "DEMO_HATCHET_LITE_IMAGE",
    "hatchet-token": "DEMO_HATCHET_LITE_IMAGE",
    "otel-collector": "DEMO_OTEL_COLLECTOR_IMAGE",
    "jaeger": "DEMO_JAEGER_IMAGE",
    "open-webui": "DEMO_OPEN_WEBUI_IMAGE",
    "bifrost": "DEMO_BIFROST_IMAGE",
}


def test_every_public_image_can_be_replaced_by_a_variable() -> None:
    # CI has no registry: it names local stand-ins through these variables.
    env = {"POSTGRES_PASSWORD": "x"} | {
        variable: f"standin/{variable.lower()}:1.0"
        for variable in IMAGE_VARIABLES.values()
    }
    services = load(env)["services"]
    for name, variable in IMAGE_VARIABLES.items():
        assert services[name]["image"] == f"standin/{variable.lower()}:1.0", name
    assert {
        name for name, service in services.items() if "build" not in service
    } == set(IMAGE_VARIABLES)


def test_build_context_and_bind_mounts_exist(compose: dict) -> None:
    for name, service in compose["services"].items():
        build = service.get("build")
        if build:
            context = ROOT / build["context"]
            assert context.is_dir(), name
            assert (context / build["dockerfile"]).is_file(), name
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith((".", "/")):
                assert (ROOT / source).exists(), f"{name}: {source} is missing"


def test_named_volumes_are_declared_and_used(compose: dict) -> None:
    declared = set(compose["volumes"])
    used = {
        volume.split(":", 1)[0]
        for service in compose["services"].values()
        for volume in service.get("volumes", [])
        if not volume.startswith((".", "/"))
    }
    assert used == declared
    assert {"postgres_data", "files_data", "chainlit_data"} <= declared


def test_only_the_intended_ports_are_published(compose: dict) -> None:
    published = {}
    for name, service in compose["services"].items():
        assert "expose" not in service or name in PUBLISHED
        if "ports" not in service:
            continue
        targets = set()
        for port in service["ports"]:
            address, host_port, container_port = port.split(":")
            assert address == "127.0.0.1", f"{name} binds {address} by default"
            assert host_port.isdigit()
            targets.add(int(container_port))
        published[name] = targets
    assert published == PUBLISHED


def test_published_ports_are_the_ports_the_services_listen_on(compose: dict) -> None:
    for name in ("api", "chainlit", "corpus", "mcp"):
        service = compose["services"][name]
        command = argv(service["command"])
        port = int(command[command.index("--port") + 1])
        assert {int(p.rsplit(":", 1)[1]) for p in service["ports"]} == {port}
        assert command[command.index("--host") + 1] == "0.0.0.0"


def test_every_long_running_service_has_a_healthcheck(compose: dict) -> None:
    # The collector image holds only its binary: nothing to run a check with.
    exempt = ONE_SHOT | {"otel-collector"}
    for name, service in compose["services"].items():
        if name in exempt:
            assert "healthcheck" not in service
            continue
        check = service["healthcheck"]
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert {"interval", "timeout", "retries"} <= set(check), name


def test_dependencies_use_conditions_that_can_be_met(compose: dict) -> None:
    services = compose["services"]
    for name, service in services.items():
        depends = service.get("depends_on", {})
        assert isinstance(depends, dict), f"{name}: depends_on needs conditions"
        for target, spec in depends.items():
            assert target in services, f"{name} -> {target}"
            condition = spec["condition"]
            if condition == "service_healthy":
                assert "healthcheck" in services[target], f"{name} -> {target}"
            elif condition == "service_completed_successfully":
                assert target in ONE_SHOT
                assert services[target]["restart"] == "no"
            else:
                assert condition == "service_started", (name, target)
            # A default service waits for an optional profile's service only
            # as a dependency that is not required (ignored when it is off).
            if not service.get("profiles") and services[target].get("profiles"):
                assert spec.get("required") is False, (name, target)


def test_start_order(compose: dict) -> None:
    services = compose["services"]

    def needs(name: str) -> set[str]:
        return set(services[name].get("depends_on", {}))

    assert needs("hatchet-lite") == {"postgres"}
    assert needs("hatchet-token") == {"hatchet-lite"}
    assert {"postgres", "hatchet-token"} <= needs("api")
    assert {"postgres", "hatchet-token"} <= needs("worker")
    assert needs("files") == {"postgres"}
    assert {"api", "files"} <= needs("chainlit")


def test_databases_named_in_urls_are_created() -> None:
    compose = load({"POSTGRES_PASSWORD": "pw"})
    created = set(
        re.findall(
            r"CREATE DATABASE (\w+);",
            (ROOT / "demo/compose/postgres-init.sql").read_text(encoding="utf-8"),
        )
    )
    main_db = service_environment(compose["services"]["postgres"])["POSTGRES_DB"]
    urls = [
        value
        for service in compose["services"].values()
        for value in service_environment(service).values()
        if value.startswith("postgresql://")
    ]
    assert len(urls) >= 4
    named = {re.sub(r"\?.*$", "", url).rsplit("/", 1)[1] for url in urls}
    assert named <= created | {main_db}
    assert named == {"lgos", "hatchet", "files", "chainlit"}
    mounted = compose["services"]["postgres"]["volumes"]
    assert any(
        v.startswith("./demo/compose/postgres-init.sql:/docker-entrypoint-initdb.d/")
        for v in mounted
    )


def test_the_observability_profile(compose: dict) -> None:
    services = compose["services"]
    for name, service in services.items():
        expected = (
            ["observability"]
            if name in OBSERVABILITY
            else ["gateway"]
            if name in GATEWAY
            else ["mcp"]
            if name in MCP
            else ["open-webui"]
            if name in OPEN_WEBUI
            else ["bifrost"]
            if name in BIFROST
            else None
        )
        assert service.get("profiles") == expected, name
    for name in ("api", "worker"):
        env = service_environment(services[name])
        assert "OTEL_EXPORTER_OTLP_ENDPOINT" not in env  # off unless asked for
        assert env["OTEL_SERVICE_NAME"] == f"lgos-demo-{name}"
    with_profile = load(
        {
            "POSTGRES_PASSWORD": "pw",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4318",
        }
    )
    env = service_environment(with_profile["services"]["worker"])
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector:4318"


def test_the_collector_config_matches_the_stack(compose: dict) -> None:
    collector = compose["services"]["otel-collector"]
    source, target = collector["volumes"][0].split(":")[:2]
    assert any(arg.endswith(target) for arg in argv(collector["command"]))
    config = yaml.safe_load((ROOT / source).read_text(encoding="utf-8"))
    defined = {
        kind: set(config[kind]) for kind in ("receivers", "processors", "exporters")
    }
    for pipeline in config["service"]["pipelines"].values():
        for kind in ("receivers", "processors", "exporters"):
            assert set(pipeline[kind]) <= defined[kind]
    http = config["receivers"]["otlp"]["protocols"]["http"]["endpoint"]
    assert http.endswith(":4318")
    exporter = config["exporters"]["otlp_grpc/jaeger"]["endpoint"]
    host = exporter.split(":")[0]
    assert host in compose["services"]  # the jaeger service
    # The endpoint `just demo --observability` gives the API and worker.
    made = make_plan(
        ["--observability"], {}, docker=lambda: DockerCheck(True, "an engine answers")
    )
    assert isinstance(made, Plan)
    assert made.env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector:4318"


def test_the_hatchet_token_reaches_the_api_and_worker(compose: dict) -> None:
    services = compose["services"]
    token = services["hatchet-token"]
    written = re.search(r"mv (\S+)\.new \1", token["command"][0])
    assert written, "the token is written atomically"
    token_path = written.group(1)
    token_dir = str(Path(token_path).parent)
    assert f"hatchet_token:{token_dir}" in token["volumes"]
    script_default = re.search(
        r"HATCHET_TOKEN_FILE:-([^}]+)\}",
        (ROOT / "demo/compose/with-hatchet-token.sh").read_text(encoding="utf-8"),
    )
    assert script_default and script_default.group(1) == token_path
    for name in ("api", "worker"):
        service = services[name]
        entrypoint = argv(service["entrypoint"])
        assert entrypoint[0] == "sh"
        assert entrypoint[1].startswith("/app/")
        assert (ROOT / entrypoint[1].removeprefix("/app/")).is_file()
        assert f"hatchet_token:{token_dir}:ro" in service["volumes"]
        env = service_environment(service)
        assert env["LGOS_BACKGROUND_ENGINE"] == "hatchet"
        assert env["HATCHET_CLIENT_HOST_PORT"].split(":")[0] == "hatchet-lite"
        port = int(env["HATCHET_CLIENT_HOST_PORT"].split(":")[1])
        lite = service_environment(services["hatchet-lite"])
        assert int(lite["SERVER_GRPC_PORT"]) == port


def test_the_gateway_profile(compose: dict) -> None:
    services = compose["services"]
    gateway = services["gateway"]
    env = service_environment(gateway)
    assert env["DEMO_GATEWAY_LGOS_BASE_URL"] == "http://api:8000/v1"
    assert (env["DEMO_GATEWAY_HOST"], env["DEMO_GATEWAY_PORT"]) == ("0.0.0.0", "4000")
    assert argv(gateway["command"]) == ["python", "-m", "lgos_demo_gateway", "serve"]
    assert gateway["depends_on"] == {"api": {"condition": "service_healthy"}}
    assert gateway["ports"] == ["127.0.0.1:4000:4000"]
    # The UI talks to the API unless `just demo --gateway` routes it through.
    ui = service_environment(services["chainlit"])
    assert ui["DEMO_CHAINLIT_OPENAI_BASE_URL"] == "http://api:8000/v1"
    assert ui["DEMO_CHAINLIT_DISCOVERY"] == "lgos"
    through = load(
        {
            "POSTGRES_PASSWORD": "pw",
            "DEMO_COMPOSE_UI_UPSTREAM": "gateway:4000",
            "DEMO_CHAINLIT_DISCOVERY": "litellm",
            "DEMO_GATEWAY_PORT": "4100",
        }
    )["services"]
    ui = service_environment(through["chainlit"])
    assert ui["DEMO_CHAINLIT_OPENAI_BASE_URL"] == "http://gateway:4000/v1"
    assert ui["DEMO_CHAINLIT_DISCOVERY"] == "litellm"
    assert through["gateway"]["ports"] == ["127.0.0.1:4100:4000"]


def test_the_bifrost_profile(compose: dict) -> None:
    services = compose["services"]
    config, bifrost = services["bifrost-config"], services["bifrost"]
    # The one-shot writes config.json for the API into the app directory the
    # public image reads (/app/data), then Bifrost starts on it.
    command = argv(config["command"])
    assert command[:3] == ["python", "-m", "lgos_demo_gateway.bifrost"]
    assert command[command.index("--lgos-url") + 1] == "http://api:8000"
    assert command[command.index("--out") + 1] == "/data/bifrost"
    assert {"--check", "--share-dir"} <= set(command)
    assert config["depends_on"] == {"api": {"condition": "service_healthy"}}
    # One volume: where the one-shot writes (a folder the image's user owns,
    # so the new volume is theirs) is Bifrost's app directory.
    assert config["volumes"] == ["bifrost_data:/data/bifrost"]
    assert bifrost["volumes"] == ["bifrost_data:/app/data"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "/data/bifrost" in dockerfile
    assert bifrost["image"] == "maximhq/bifrost:v1.4.19"
    assert bifrost["depends_on"] == {
        "bifrost-config": {"condition": "service_completed_successfully"}
    }
    env = service_environment(bifrost)
    assert (env["APP_HOST"], env["APP_PORT"]) == ("0.0.0.0", "8080")
    assert env["DEMO_BIFROST_LGOS_API_KEY"] == "lgos-demo"
    assert bifrost["ports"] == ["127.0.0.1:8007:8080"]
    assert healthcheck_urls(bifrost) == ["http://127.0.0.1:8080/health"]
    # The UIs wait for it when the profile is on, and go through it when
    # `just demo --bifrost` sets their upstream.
    for ui in ("chainlit", "open-webui"):
        assert services[ui]["depends_on"]["bifrost"] == {
            "condition": "service_healthy",
            "required": False,
        }
    through = load(
        {
            "POSTGRES_PASSWORD": "pw",
            "DEMO_COMPOSE_UI_UPSTREAM": "bifrost:8080/openai_passthrough",
            "DEMO_BIFROST_PORT": "8107",
            "DEMO_BIFROST_IMAGE": "mirror/bifrost:v1.4.19",
        }
    )["services"]
    assert service_environment(through["chainlit"])[
        "DEMO_CHAINLIT_OPENAI_BASE_URL"
    ] == ("http://bifrost:8080/openai_passthrough/v1")
    assert service_environment(through["open-webui-provision"])[
        "DEMO_OPEN_WEBUI_LGOS_BASE_URL"
    ] == ("http://bifrost:8080/openai_passthrough/v1")
    assert through["bifrost"]["ports"] == ["127.0.0.1:8107:8080"]
    assert through["bifrost"]["image"] == "mirror/bifrost:v1.4.19"


def test_the_mcp_profile(compose: dict) -> None:
    services = compose["services"]
    mcp = services["mcp"]
    assert mcp["profiles"] == ["mcp"]
    assert mcp["image"] == services["api"]["image"]  # runs as the image's user
    assert "user" not in mcp
    assert argv(mcp["command"]) == [
        "python", "-m", "lgos_demo_api.mcp_server", "--host", "0.0.0.0", "--port", "8005",
    ]  # fmt: skip
    env = service_environment(mcp)
    assert env["DEMO_MCP_NOTES_PATH"] == "/data/mcp/notes.json"
    assert "mcp_data:/data/mcp" in mcp["volumes"]
    # The Dockerfile makes the mount point the image user's (a new volume takes it).
    assert "/data/mcp" in DOCKERFILE.read_text(encoding="utf-8")
    # The UI and the gateway call it by its service name, which it accepts
    # whatever hosts .env adds (the settings drop the empty entry).
    assert env["DEMO_MCP_ALLOWED_HOSTS"] == "mcp:*,"
    allowed = McpServerSettings(
        _env_file=None,  # type: ignore[call-arg]
        allowed_hosts=env["DEMO_MCP_ALLOWED_HOSTS"] + "devbox:*",
    ).allowed_hosts
    assert allowed == ["mcp:*", "devbox:*"]
    assert env["DEMO_MCP_CORPUS_BASE_URL"] == "http://127.0.0.1:8002"
    assert "8005/health" in mcp["healthcheck"]["test"][-1]
    assert mcp["ports"] == ["127.0.0.1:8005:8005"]
    assert "depends_on" not in mcp
    # The UI waits for it when the profile is on; without --mcp it has no MCP URL.
    assert services["chainlit"]["depends_on"]["mcp"] == {
        "condition": "service_healthy",
        "required": False,
    }
    ui = service_environment(services["chainlit"])
    assert ui["DEMO_CHAINLIT_MCP_URL"] == ui["DEMO_CHAINLIT_MCP_API_KEY"] == ""
    assert service_environment(services["gateway"])["DEMO_GATEWAY_MCP_URL"] == ""
    # `just demo --gateway --mcp`: the UI through the gateway's /mcp.
    on = load(
        {
            "POSTGRES_PASSWORD": "pw",
            "DEMO_CHAINLIT_MCP_URL": "http://gateway:4000/mcp",
            "DEMO_CHAINLIT_MCP_API_KEY": "sk-master",
            "DEMO_GATEWAY_MCP_URL": "http://mcp:8005/mcp",
            "DEMO_MCP_PORT": "8105",
        }
    )["services"]
    ui = service_environment(on["chainlit"])
    assert ui["DEMO_CHAINLIT_MCP_URL"] == "http://gateway:4000/mcp"
    assert ui["DEMO_CHAINLIT_MCP_API_KEY"] == "sk-master"
    gateway = service_environment(on["gateway"])
    assert gateway["DEMO_GATEWAY_MCP_URL"] == "http://mcp:8005/mcp"
    assert on["mcp"]["ports"] == ["127.0.0.1:8105:8005"]


@pytest.mark.integration
def test_the_open_webui_profile(compose: dict) -> None:
    services = compose["services"]
    owui, provision = services["open-webui"], services["open-webui-provision"]
    assert owui["profiles"] == provision["profiles"] == ["open-webui"]
    # The version the local demo installs (scripts/ensure-open-webui.sh).
    script = (ROOT / "scripts" / "ensure-open-webui.sh").read_text()
    [version] = re.findall(r'^version="([^"]+)"$', script, re.M)
    assert owui["image"] == f"ghcr.io/open-webui/open-webui:v{version}"
    env = service_environment(owui)
    # Its data, the pipe's ledger and uploads included, in the volume.
    assert env["DATA_DIR"] == "/app/backend/data"
    assert "open_webui_data:/app/backend/data" in owui["volumes"]
    assert owui["ports"] == ["127.0.0.1:8006:8080"]
    assert env["CORS_ALLOW_ORIGIN"] == "http://127.0.0.1:8006;http://localhost:8006"
    # Its settings: one file that Compose reads (env_file) and the local
    # demo's script sources, so both run modes set the same.
    assert owui["env_file"] == ["ui/open-webui/settings.env"]
    settings = ROOT / "ui" / "open-webui" / "settings.env"
    script = (ROOT / "scripts" / "open-webui.sh").read_text()
    assert '. "$root/ui/open-webui/settings.env"' in script
    lines = [
        line
        for line in settings.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    shared = dict(re.findall(r"^([A-Z_]+)=(\S+)$", "\n".join(lines), re.M))
    assert len(shared) == len(lines), "every setting is NAME=value, nothing else"
    # Bash, as the script sources it, reads exactly those values.
    sourced = subprocess.run(
        ["bash", "-c", 'set -a; . "$0"; set +a; env -0', str(settings)],
        env={},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    from_bash = dict(entry.split("=", 1) for entry in sourced.split("\0") if entry)
    assert {name: from_bash[name] for name in shared} == shared
    assert shared["WEBUI_AUTH"] == "False"
    assert shared["OFFLINE_MODE"] == "true"
    assert shared["ENABLE_OPENAI_API"] == shared["ENABLE_OLLAMA_API"] == "False"
    assert shared["ENABLE_TITLE_GENERATION"] == "False"
    # What differs per run mode is set beside it, never twice.
    assert not set(shared) & set(env)
    assert "8080/health" in owui["healthcheck"]["test"][-1]
    assert owui["depends_on"]["api"] == {"condition": "service_healthy"}
    assert owui["depends_on"]["gateway"]["required"] is False
    # The one-shot installs the pipe once Open WebUI answers, from the image's
    # copy of ui/open-webui, pointed at the services by name.
    assert provision["restart"] == "no"
    assert provision["depends_on"] == {"open-webui": {"condition": "service_healthy"}}
    command = argv(provision["command"])
    assert command[:2] == ["python", "ui/open-webui/provision.py"]
    assert (ROOT / command[1]).is_file()
    assert command[command.index("--url") + 1] == "http://open-webui:8080"
    assert (ROOT / command[command.index("--pipe") + 1]).is_file()
    valves = service_environment(provision)
    assert valves["DEMO_OPEN_WEBUI_LGOS_BASE_URL"] == "http://api:8000/v1"
    assert valves["DEMO_OPEN_WEBUI_FILES_BASE_URL"] == "http://files:8003/v1"
    assert valves["DEMO_OPEN_WEBUI_DISCOVERY"] == "lgos"
    assert valves["DEMO_OPEN_WEBUI_MCP_URL"] == ""
    # `just demo --gateway --open-webui`: the pipe goes through the gateway.
    through = load(
        {
            "POSTGRES_PASSWORD": "pw",
            "DEMO_COMPOSE_UI_UPSTREAM": "gateway:4000",
            "DEMO_OPEN_WEBUI_DISCOVERY": "litellm",
            "DEMO_OPEN_WEBUI_LGOS_API_KEY": "sk-master",
            "DEMO_OPEN_WEBUI_PORT": "8106",
        }
    )["services"]
    valves = service_environment(through["open-webui-provision"])
    assert valves["DEMO_OPEN_WEBUI_LGOS_BASE_URL"] == "http://gateway:4000/v1"
    assert valves["DEMO_OPEN_WEBUI_LGOS_API_KEY"] == "sk-master"
    assert valves["DEMO_OPEN_WEBUI_DISCOVERY"] == "litellm"
    assert through["open-webui"]["ports"] == ["127.0.0.1:8106:8080"]
