"""The sync's pieces without processes: the configuration it writes, and its errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from lgos_demo_gateway import GatewaySettings, LgosModel, SyncError, fetch_models
from lgos_demo_gateway.proxy import proxy_env
from lgos_demo_gateway.sync import build_config, stale_models, write_config
from tests.procs import free_port

RESEARCH = LgosModel(
    "deep-research",
    {"schema_version": 1, "description": "Researches.", "features": ["background"]},
)
CHAT = LgosModel("chat", {"schema_version": 1, "description": "", "features": []})


def test_one_deployment_per_graph_with_its_lgos_object() -> None:
    config = build_config([RESEARCH, CHAT], lgos_base_url="http://lgos:8000/v1/")
    assert config["model_list"] == [
        {
            "model_name": "deep-research",
            "litellm_params": {
                "model": "openai/deep-research",
                "api_base": "http://lgos:8000/v1",
                "api_key": "os.environ/DEMO_GATEWAY_LGOS_API_KEY",
            },
            "model_info": {"lgos": RESEARCH.lgos, "description": "Researches."},
        },
        {
            "model_name": "chat",
            "litellm_params": {
                "model": "openai/chat",
                "api_base": "http://lgos:8000/v1",
                "api_key": "os.environ/DEMO_GATEWAY_LGOS_API_KEY",
            },
            "model_info": {"lgos": CHAT.lgos},  # no empty description
        },
    ]
    # No secret in the file; no retried POSTs.
    assert config["general_settings"] == {"master_key": "os.environ/LITELLM_MASTER_KEY"}
    assert config["litellm_settings"]["num_retries"] == 0
    assert config["router_settings"] == {"num_retries": 0}


def test_write_config_writes_only_a_change(tmp_path: Path) -> None:
    path = tmp_path / "gateway" / "litellm.yaml"
    config = build_config([RESEARCH], lgos_base_url="http://127.0.0.1:8000/v1")
    assert write_config(config, path) is True
    assert yaml.safe_load(path.read_text())["model_list"][0]["model_info"]["lgos"] == (
        RESEARCH.lgos
    )
    before = path.stat().st_mtime_ns
    assert write_config(config, path) is False
    assert path.stat().st_mtime_ns == before
    assert write_config(build_config([CHAT], lgos_base_url="x"), path) is True
    assert list(path.parent.iterdir()) == [path]  # no temporary file left


def test_stale_models_names_every_difference() -> None:
    served = {
        "deep-research": {"lgos": {**RESEARCH.lgos, "features": []}},
        "old": {"lgos": {}},
    }
    assert stale_models([RESEARCH, CHAT], served) == [
        "missing: chat",
        "outdated: deep-research",
        "extra: old",
    ]
    assert stale_models([CHAT], {"chat": {"lgos": CHAT.lgos, "id": "x"}}) == []


def test_an_unreachable_lgos_is_a_sync_error() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(SyncError, match="did not answer"):
        fetch_models(url, wait_seconds=0.3)
    with pytest.raises(SyncError, match=r"GET .*/models failed"):
        fetch_models(url)


def test_the_proxy_runs_offline_without_a_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://somewhere/litellm")
    monkeypatch.setenv("LITELLM_MASTER_KEY", "from-elsewhere")
    settings = GatewaySettings(_env_file=None, master_key="sk-demo")  # type: ignore[call-arg]
    env = proxy_env(settings)
    assert "DATABASE_URL" not in env
    assert env["LITELLM_MASTER_KEY"] == "sk-demo"
    assert env["DEMO_GATEWAY_LGOS_API_KEY"] == "lgos-demo"
    assert env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert env["LITELLM_TELEMETRY"] == "False"


def test_settings_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("DEMO_GATEWAY_", "DEMO_API_")):
            monkeypatch.delenv(name)
    settings = GatewaySettings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.host, settings.port) == ("127.0.0.1", 4000)
    assert settings.master_key.get_secret_value() == "lgos-demo"
    assert settings.lgos_base_url == "http://127.0.0.1:8000/v1"
    assert settings.config_path == Path(".data/gateway/litellm.yaml")
    assert settings.gateway_url == "http://127.0.0.1:4000"


def test_the_lgos_url_follows_the_demo_api_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `just demo` moved the API (DEMO_API_PORT): a sync run by hand in the same
    # shell reads that LGOS, not whatever answers on 8000.
    monkeypatch.delenv("DEMO_GATEWAY_LGOS_BASE_URL", raising=False)
    monkeypatch.setenv("DEMO_API_PORT", "18400")
    monkeypatch.setenv("DEMO_API_HOST", "0.0.0.0")
    settings = GatewaySettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.lgos_base_url == "http://127.0.0.1:18400/v1"
    monkeypatch.setenv("DEMO_GATEWAY_LGOS_BASE_URL", "http://lgos.test/v1")
    explicit = GatewaySettings(_env_file=None)  # type: ignore[call-arg]
    assert explicit.lgos_base_url == "http://lgos.test/v1"


def test_an_mcp_url_adds_one_mcp_server() -> None:
    plain = build_config([CHAT], lgos_base_url="http://lgos:8000/v1")
    assert "mcp_servers" not in plain
    config = build_config(
        [CHAT], lgos_base_url="http://lgos:8000/v1", mcp_url="http://mcp:8005/mcp"
    )
    # LiteLLM's streamable HTTP transport is "http"; its /mcp prefixes each
    # tool with the server's name and "-", so the name has no "-".
    assert config["mcp_servers"] == {
        "lgos_demo": {
            "url": "http://mcp:8005/mcp",
            "transport": "http",
            "description": "The LGOS demo MCP server's tools",
        }
    }
    assert {k: v for k, v in config.items() if k != "mcp_servers"} == plain
    with pytest.raises(ValueError, match="letters, digits and _"):
        build_config(
            [CHAT],
            lgos_base_url="x",
            mcp_url="http://m/mcp",
            mcp_server_name="lgos-demo",
        )


def test_the_mcp_settings_default_to_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEMO_GATEWAY_MCP_URL", raising=False)
    settings = GatewaySettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.mcp_url == ""
    assert settings.mcp_server_name == "lgos_demo"
    monkeypatch.setenv("DEMO_GATEWAY_MCP_URL", "http://127.0.0.1:8005/mcp")
    assert GatewaySettings(_env_file=None).mcp_url == "http://127.0.0.1:8005/mcp"  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        GatewaySettings(_env_file=None, mcp_server_name="lgos-demo")  # type: ignore[call-arg]
