"""Each Compose service runs a real entry point, with real settings, and its
healthcheck asks a route that exists.

The commands are parsed by the programs' own parsers (click for ``lgos``,
argparse for the ``python -m`` modules, with the server start replaced), the
environment is read by the services' own settings classes, and the health
routes are called in-process.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from starlette.testclient import TestClient

from tests.compose.stack import (
    ROOT,
    argv,
    healthcheck_urls,
    load,
    option,
    service_environment,
)

PREFIXES = (
    "LGOS_",
    "DEMO_API_",
    "DEMO_FILES_",
    "DEMO_CHAINLIT_",
    "DEMO_GATEWAY_",
    "DEMO_MCP_",
    "HATCHET_CLIENT_",
)


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    # As with `just demo --observability`, so the OTLP variable is present.
    env = {"POSTGRES_PASSWORD": "pw", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}
    return load(env)["services"]


@pytest.fixture
def service_env(monkeypatch: pytest.MonkeyPatch):
    """Apply a service's environment, dropping this machine's own settings."""

    def apply(service: dict[str, Any]) -> dict[str, str]:
        for name in list(os.environ):
            if name.startswith(PREFIXES) or name.startswith("OTEL_"):
                monkeypatch.delenv(name)
        env = service_environment(service)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return env

    return apply


def _settings_fields(model: Any) -> set[str]:
    return {name.upper() for name in model.model_fields}


def _known_variables() -> dict[str, set[str]]:
    """Every variable the services' settings classes read, by prefix."""
    from hatchet_sdk.config import ClientConfig, ClientTLSConfig, HealthcheckConfig

    from langgraph_openai_serve.server.guards import GuardSettings
    from langgraph_openai_serve.server.server_settings import ServerSettings
    from lgos_chainlit.settings import ChainlitSettings
    from lgos_demo_api.mcp_server.settings import McpServerSettings
    from lgos_demo_api.settings import DemoApiSettings
    from lgos_demo_files.settings import FilesSettings
    from lgos_demo_gateway.settings import GatewaySettings

    return {
        "DEMO_MCP_": _settings_fields(McpServerSettings),
        "LGOS_": _settings_fields(ServerSettings) | _settings_fields(GuardSettings),
        "DEMO_API_": _settings_fields(DemoApiSettings),
        "DEMO_FILES_": _settings_fields(FilesSettings),
        "DEMO_CHAINLIT_": _settings_fields(ChainlitSettings),
        "DEMO_GATEWAY_": _settings_fields(GatewaySettings),
        "HATCHET_CLIENT_WORKER_HEALTHCHECK_": _settings_fields(HealthcheckConfig),
        "HATCHET_CLIENT_TLS_": _settings_fields(ClientTLSConfig),
        "HATCHET_CLIENT_": _settings_fields(ClientConfig),
    }


@pytest.mark.parametrize(
    "name", ["api", "worker", "files", "corpus", "chainlit", "gateway", "mcp"]
)
def test_every_variable_is_read_by_a_settings_class(
    services: dict[str, Any], name: str
) -> None:
    from opentelemetry.sdk import environment_variables as otel

    from lgos_chainlit.auth_secret import AUTH_SECRET_ENV

    known = _known_variables()
    otel_names = {v for k, v in vars(otel).items() if k.startswith("OTEL_")}
    for variable in service_environment(services[name]):
        if variable.startswith("OTEL_"):
            assert variable in otel_names, variable
            continue
        if variable == AUTH_SECRET_ENV:
            continue
        prefix = next((p for p in known if variable.startswith(p)), None)
        assert prefix is not None, f"{name}: {variable} has no reader"
        assert variable.removeprefix(prefix) in known[prefix], f"{name}: {variable}"


def test_demo_api_settings_accept_the_compose_values(
    services: dict[str, Any], service_env
) -> None:
    from langgraph_openai_serve.server.server_settings import ServerSettings
    from lgos_demo_api.settings import DemoApiSettings

    service_env(services["api"])
    server = ServerSettings()
    assert server.background_engine == "hatchet"
    assert server.postgres_uri is not None
    assert server.postgres_uri.get_secret_value().startswith("postgresql://")
    demo = DemoApiSettings(_env_file=None)  # type: ignore[call-arg]
    assert demo.openai_api_key is None  # offline without a key
    assert demo.files_base_url == "http://files:8003/v1"
    assert demo.corpus_base_url == "http://127.0.0.1:8002"
    # The key the graphs send is the one the Files service checks.
    files_key = service_environment(services["files"])["DEMO_FILES_API_KEY"]
    assert demo.files_api_key.get_secret_value() == files_key


def test_chainlit_settings_accept_the_compose_values(
    services: dict[str, Any], service_env
) -> None:
    from lgos_chainlit.settings import ChainlitSettings

    service_env(services["chainlit"])
    settings = ChainlitSettings()
    api_port = option(argv(services["api"]["command"]), "--port")
    assert settings.openai_base_url == f"http://api:{api_port}/v1"
    files_port = option(argv(services["files"]["command"]), "--port")
    assert settings.files_base_url == f"http://files:{files_port}/v1"
    assert str(settings.data_dir) == "/data/chainlit"
    assert any(v.endswith(":/data/chainlit") for v in services["chainlit"]["volumes"])


def test_mcp_settings_accept_the_compose_values(
    services: dict[str, Any], service_env
) -> None:
    from lgos_demo_api.mcp_server.settings import McpServerSettings

    service_env(services["mcp"])
    settings = McpServerSettings(_env_file=None)  # type: ignore[call-arg]
    assert str(settings.notes_path) == "/data/mcp/notes.json"
    assert any(v.endswith(":/data/mcp") for v in services["mcp"]["volumes"])
    assert settings.allowed_hosts == ["mcp:*"]
    assert settings.corpus_base_url == "http://127.0.0.1:8002"


def test_files_settings_accept_the_compose_values(
    services: dict[str, Any], service_env
) -> None:
    from lgos_demo_files.settings import FilesSettings

    service_env(services["files"])
    settings = FilesSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.database_url.startswith("postgresql://")
    assert settings.storage_url.startswith("/data/files")
    assert any(v.endswith(":/data/files") for v in services["files"]["volumes"])


def _lgos_context(args: list[str]) -> Any:
    """Parse ``lgos ARGS`` with the CLI's own click commands (nothing runs)."""
    from langgraph_openai_serve.cli import cli

    assert args[0] == "lgos"
    command = cli.commands[args[1]]
    return command.make_context(args[1], list(args[2:]))


def test_lgos_is_the_packages_console_script() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "lgos/pyproject.toml").read_text("utf-8"))
    assert project["project"]["scripts"]["lgos"] == "langgraph_openai_serve.cli:main"


@pytest.mark.parametrize("name", ["api", "worker"])
def test_lgos_commands_parse_and_name_a_real_factory(
    services: dict[str, Any], name: str
) -> None:
    from langgraph_openai_serve.server.app import load_factory
    from lgos_demo_api.registry import create_registry

    context = _lgos_context(argv(services[name]["command"]))
    assert load_factory(context.params["factory"]) is create_registry
    if name == "api":
        assert (context.params["host"], context.params["port"]) == ("0.0.0.0", 8000)
    else:
        assert context.params["name"] == "lgos-demo"


def test_an_unknown_lgos_option_is_refused() -> None:
    import click

    with pytest.raises(click.UsageError):
        _lgos_context(["lgos", "worker", "m:f", "--bogus"])


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("files", "lgos_demo_files"),
        ("corpus", "lgos_demo_api.corpus_server"),
        ("chainlit", "lgos_chainlit"),
        ("mcp", "lgos_demo_api.mcp_server"),
        ("bifrost-config", "lgos_demo_gateway.bifrost"),
    ],
)
def test_python_m_modules_are_runnable(
    services: dict[str, Any], name: str, module: str
) -> None:
    command = argv(services[name]["command"])
    assert command[:3] == ["python", "-m", module]
    spec = importlib.util.find_spec(module)
    assert spec is not None
    if spec.submodule_search_locations is not None:  # a package: needs __main__
        assert importlib.util.find_spec(f"{module}.__main__") is not None
    else:
        assert spec.origin is not None
        assert 'if __name__ == "__main__":' in Path(spec.origin).read_text("utf-8")


def test_bifrost_config_command_writes_the_file_bifrost_reads(
    services: dict[str, Any], tmp_path: Path
) -> None:
    from lgos_demo_gateway.bifrost import main as bifrost_main

    command = argv(services["bifrost-config"]["command"])[3:]
    (mount,) = services["bifrost-config"]["volumes"]
    volume, out = mount.split(":")
    assert command[command.index("--out") + 1] == out
    assert [f"{volume}:/app/data"] == services["bifrost"]["volumes"]
    # As Compose runs it, minus the wait for the API and into a temporary dir.
    app_dir = tmp_path / "app"
    local = [str(app_dir) if arg == out else arg for arg in command]
    assert bifrost_main([arg for arg in local if arg != "--check"]) == 0
    assert app_dir.stat().st_mode & 0o777 == 0o777  # Bifrost's user writes there
    config = json.loads((app_dir / "config.json").read_text())
    assert config["providers"]["openai"]["network_config"]["base_url"] == (
        "http://api:8000"
    )
    key = config["providers"]["openai"]["keys"][0]["value"]
    assert key.removeprefix("env.") in service_environment(services["bifrost"])


def test_files_command_line_serves_on_the_healthchecked_port(
    services: dict[str, Any], service_env, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lgos_demo_files.__main__ as files_main

    service_env(services["files"])
    started: dict[str, Any] = {}
    monkeypatch.setattr(files_main, "create_app", lambda settings: settings)
    monkeypatch.setattr(
        files_main.uvicorn, "run", lambda app, **kw: started.update(app=app, **kw)
    )
    files_main.main(argv(services["files"]["command"])[3:])
    assert (started["host"], started["port"]) == ("0.0.0.0", 8003)
    assert started["app"].database_url.endswith("/files")
    assert urlsplit(healthcheck_urls(services["files"])[0]).port == 8003


def test_corpus_command_line_serves_on_the_healthchecked_port(
    services: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from lgos_demo_api import corpus_server

    started: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.update(kw))
    corpus_server.main(argv(services["corpus"]["command"])[3:])
    assert (started["host"], started["port"]) == ("0.0.0.0", 8002)
    assert urlsplit(healthcheck_urls(services["corpus"])[0]).port == 8002


def test_mcp_command_line_serves_on_the_healthchecked_port(
    services: dict[str, Any], service_env, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lgos_demo_api.mcp_server.__main__ as mcp_main

    service_env(services["mcp"])
    started: dict[str, Any] = {}
    monkeypatch.setattr(mcp_main, "create_app", lambda settings: settings)
    monkeypatch.setattr(
        mcp_main.uvicorn, "run", lambda app, **kw: started.update(app=app, **kw)
    )
    mcp_main.main(argv(services["mcp"]["command"])[3:])
    assert (started["host"], started["port"]) == ("0.0.0.0", 8005)
    assert str(started["app"].notes_path) == "/data/mcp/notes.json"
    assert urlsplit(healthcheck_urls(services["mcp"])[0]).port == 8005


def test_chainlit_command_line_runs_chainlit_on_the_healthchecked_port(
    services: dict[str, Any],
    service_env,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    import chainlit.cli

    import lgos_chainlit.__main__ as ui_main
    import lgos_chainlit.site_guard
    from lgos_chainlit.paths import APP_FILE
    from lgos_chainlit.settings import get_settings

    service_env(services["chainlit"])
    # Recorded, not installed: the middleware would stay on Chainlit's one app.
    guarded: list[str] = []
    monkeypatch.setattr(
        lgos_chainlit.site_guard,
        "install",
        lambda app, sio, settings, host: guarded.append(host),
    )
    monkeypatch.setenv("DEMO_CHAINLIT_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CHAINLIT_AUTH_SECRET", raising=False)
    monkeypatch.setattr(ui_main, "port_problem", lambda host, port: None)
    ran: list[list[str]] = []
    monkeypatch.setattr(
        chainlit.cli.cli, "main", lambda args, prog_name: ran.append(args)
    )
    get_settings.cache_clear()
    try:
        ui_main.main(argv(services["chainlit"]["command"])[3:])
    finally:
        get_settings.cache_clear()
        os.environ.pop("CHAINLIT_AUTH_SECRET", None)
    assert ran == [
        ["run", str(APP_FILE), "--headless", "--host", "0.0.0.0", "--port", "8001"]
    ]
    assert urlsplit(healthcheck_urls(services["chainlit"])[0]).port == 8001
    assert guarded == ["0.0.0.0"]


# --- healthcheck routes -------------------------------------------------------


def _health_path(service: dict[str, Any], port: int) -> str:
    (url,) = healthcheck_urls(service)
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1"
    assert parts.port == port
    return parts.path


def test_python_healthchecks_need_no_curl(services: dict[str, Any]) -> None:
    for name in ("api", "worker", "files", "corpus", "chainlit", "mcp"):
        test = services[name]["healthcheck"]["test"]
        assert test[:3] == ["CMD", "python", "-c"], name
        # The one-liner itself must be valid Python.
        compile(test[3], f"<{name} healthcheck>", "exec")


def test_api_health_route_answers(services: dict[str, Any]) -> None:
    from langgraph_openai_serve.server.app import create_app
    from langgraph_openai_serve.server.server_settings import ServerSettings
    from lgos_demo_api.registry import GRAPH_BUILDERS, RESOURCE_GRAPH_BUILDERS

    path = _health_path(services["api"], 8000)
    factory = _lgos_context(argv(services["api"]["command"])).params["factory"]
    settings = ServerSettings(
        background_engine="memory",
        postgres_uri=None,
        interrupt_sweep_interval_minutes=0,
    )
    with TestClient(create_app(factory, settings=settings)) as client:
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {
            "status": "ok",
            "models": len(GRAPH_BUILDERS) + len(RESOURCE_GRAPH_BUILDERS),
        }
        assert client.get(path + "-missing").status_code == 404


def test_files_health_route_answers(services: dict[str, Any]) -> None:
    from lgos_demo_files.app import create_app
    from lgos_demo_files.settings import FilesSettings

    path = _health_path(services["files"], 8003)
    settings = FilesSettings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=":memory:",
        storage_url="memory://",
        sweep_interval_seconds=0,
    )
    with TestClient(create_app(settings)) as client:
        assert client.get(path).json() == {"status": "ok"}
        assert client.get(path + "-missing").status_code in (401, 404)


def test_corpus_health_route_answers(services: dict[str, Any]) -> None:
    from lgos_demo_api.corpus_server import create_app

    path = _health_path(services["corpus"], 8002)
    client = TestClient(create_app())
    assert client.get(path).text == "ok"
    assert client.get(path + "-missing").status_code == 404


def test_mcp_health_route_answers(services: dict[str, Any], tmp_path: Path) -> None:
    from lgos_demo_api.mcp_server import McpServerSettings, create_app

    path = _health_path(services["mcp"], 8005)
    settings = McpServerSettings(_env_file=None, notes_path=tmp_path / "n.json")  # type: ignore[call-arg]
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8005") as client:
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == {"status": "ok"}


def test_chainlit_health_route_answers(services: dict[str, Any]) -> None:
    from chainlit.server import app

    path = _health_path(services["chainlit"], 8001)
    # Chainlit serves its single-page app on every unknown path with 200, so
    # only the JSON body proves the route is the health route.
    response = TestClient(app).get(path)
    assert response.json() == {"status": "ok"}
    assert "json" not in TestClient(app).get(path + "-missing").headers["content-type"]


def test_worker_healthcheck_is_the_hatchet_sdks_health_server(
    services: dict[str, Any], service_env
) -> None:
    from hatchet_sdk.config import HealthcheckConfig
    from hatchet_sdk.worker import action_listener_process

    service_env(services["worker"])
    config = HealthcheckConfig()
    assert config.enabled is True
    path = _health_path(services["worker"], config.port)
    source = inspect.getsource(action_listener_process)
    assert f'web.get("{path}", self._health_handler)' in source


def test_hatchet_lite_is_probed_on_its_readiness_route(
    services: dict[str, Any],
) -> None:
    # Hatchet Lite answers 200 with its dashboard on any unknown path.
    test = services["hatchet-lite"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "curl"]
    assert healthcheck_urls(services["hatchet-lite"]) == [
        "http://127.0.0.1:8888/api/ready"
    ]


# --- the token wrapper ----------------------------------------------------------

WRAPPER = ROOT / "demo/compose/with-hatchet-token.sh"


def _wrapper(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "HATCHET_CLIENT_TOKEN"}
    return subprocess.run(
        ["sh", str(WRAPPER), "sh", "-c", 'printf %s "$HATCHET_CLIENT_TOKEN"'],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )


@pytest.mark.integration
def test_the_wrapper_exports_the_minted_token(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("eyJ.token.sig", encoding="utf-8")
    result = _wrapper({"HATCHET_TOKEN_FILE": str(token)})
    assert (result.returncode, result.stdout) == (0, "eyJ.token.sig")


@pytest.mark.integration
def test_the_wrapper_keeps_an_explicit_token(tmp_path: Path) -> None:
    result = _wrapper(
        {"HATCHET_TOKEN_FILE": str(tmp_path / "none"), "HATCHET_CLIENT_TOKEN": "eyJx"}
    )
    assert (result.returncode, result.stdout) == (0, "eyJx")


@pytest.mark.integration
def test_the_wrapper_refuses_to_start_without_a_token(tmp_path: Path) -> None:
    result = _wrapper({"HATCHET_TOKEN_FILE": str(tmp_path / "missing")})
    assert result.returncode == 1
    assert "hatchet-token" in result.stderr
