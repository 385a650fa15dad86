"""The package's public names: what ``from langgraph_openai_serve import ...`` offers.

The set is pinned so that adding or removing a public name is a deliberate,
reviewed change; every name is importable from the root and from the module
the reference documents it in.
"""

from __future__ import annotations

import importlib

import pytest

import langgraph_openai_serve

ROOT_NAMES = {
    # serving
    "LanggraphOpenaiServe",
    "LgosSettings",
    # API keys
    "ApiKeys",
    "api_key_tenant",
    # registration
    "GraphConfig",
    "GraphFeature",
    "GraphRegistry",
    "ClientSettings",
    "GenerationControl",
    # what adapters receive
    "GraphRequest",
    "ClientFunctionTool",
    "NamedCustomToolChoice",
    "NamedFunctionToolChoice",
    "GenerationSettings",
    # inside graphs
    "status_event",
    "citation_slice",
    # interrupts
    "InMemoryRunCoordinator",
    # background Responses
    "BackgroundBackend",
    "BackgroundJob",
    "BackgroundRun",
    "InMemoryBackgroundBackend",
    "execute_background_job",
    # errors and logging
    "GraphError",
    "InterruptNotDeclaredError",
    "InvalidRequestError",
    "OpenAIHTTPException",
    "RequestContextFilter",
}

# Where the reference documents each name besides the root.
HOMES = {
    "BackgroundBackend": "langgraph_openai_serve.background",
    "BackgroundJob": "langgraph_openai_serve.background",
    "BackgroundRun": "langgraph_openai_serve.background",
    "InMemoryBackgroundBackend": "langgraph_openai_serve.background",
    "execute_background_job": "langgraph_openai_serve.background",
    "citation_slice": "langgraph_openai_serve.graph.citations",
    "InMemoryRunCoordinator": "langgraph_openai_serve.graph.coordinator",
    "LgosSettings": "langgraph_openai_serve.settings",
    "ApiKeys": "langgraph_openai_serve.api.api_keys",
    "api_key_tenant": "langgraph_openai_serve.api.auth",
    "GenerationControl": "langgraph_openai_serve.graph.generation",
    "GenerationSettings": "langgraph_openai_serve.graph.generation",
}


def test_the_exported_set_is_pinned() -> None:
    assert set(langgraph_openai_serve.__all__) == ROOT_NAMES
    assert len(langgraph_openai_serve.__all__) == len(ROOT_NAMES)  # no duplicates


@pytest.mark.parametrize("name", sorted(ROOT_NAMES))
def test_each_name_imports_from_the_root(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from langgraph_openai_serve import {name}", namespace)
    value = namespace[name]
    home = HOMES.get(name)
    if home is not None:
        assert getattr(importlib.import_module(home), name) is value


def test_the_run_coordinator_lives_beside_the_interrupt_helpers() -> None:
    from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
    from langgraph_openai_serve.graph.interrupt import (
        InMemoryRunCoordinator as beside_helpers,
    )
    from langgraph_openai_serve.graph.interrupt import delete_expired_interrupt_runs

    assert beside_helpers is InMemoryRunCoordinator
    assert callable(delete_expired_interrupt_runs)
    assert (
        "InMemoryRunCoordinator"
        in importlib.import_module("langgraph_openai_serve.graph.interrupt").__all__
    )


# Public paths kept by re-export: the path the specification or the reference
# names → each of its names → the module that defines it.
_COORDINATOR = "langgraph_openai_serve.integrations.postgres_coordinator"
_MIGRATIONS = "langgraph_openai_serve.integrations.postgres_migrations"
_PROBE = "langgraph_openai_serve.integrations.postgres_probe"
REEXPORTS = {
    "langgraph_openai_serve.integrations.postgres": {
        "PostgresRunCoordinator": _COORDINATOR,
        "LeaseSession": _COORDINATOR,
        "LOCK_READ": _COORDINATOR,
        "LEASE_CHECK_SECONDS": _COORDINATOR,
        "LEASE_CHECK_TIMEOUT_SECONDS": _COORDINATOR,
        "LEASE_SLOT_WAIT_SECONDS": _COORDINATOR,
        "LEASE_STOP_MARGIN_SECONDS": _COORDINATOR,
        "setup_storage": _MIGRATIONS,
        "advisory_lock_id": _MIGRATIONS,
        "check_connection": _PROBE,
    },
    "langgraph_openai_serve.server": {
        "ServerSettings": "langgraph_openai_serve.server.server_settings",
        "ServerResources": "langgraph_openai_serve.server.resources",
        "RegistryFactory": "langgraph_openai_serve.server.resources",
        "open_resources": "langgraph_openai_serve.server.resources",
        "create_app": "langgraph_openai_serve.server.app",
        "load_factory": "langgraph_openai_serve.server.app",
        "load_scope_resolver": "langgraph_openai_serve.server.app",
    },
}


@pytest.mark.parametrize(
    ("path", "name"),
    sorted((path, name) for path, names in REEXPORTS.items() for name in names),
)
def test_each_reexported_name_imports_from_its_public_path(
    path: str, name: str
) -> None:
    if path.endswith(".postgres"):
        pytest.importorskip("psycopg_pool")
    public = importlib.import_module(path)
    home = importlib.import_module(REEXPORTS[path][name])
    assert getattr(public, name) is getattr(home, name)
    assert name in public.__all__


@pytest.mark.parametrize("path", sorted(REEXPORTS))
def test_a_reexport_path_offers_exactly_its_pinned_names(path: str) -> None:
    if path.endswith(".postgres"):
        pytest.importorskip("psycopg_pool")
    assert set(importlib.import_module(path).__all__) == set(REEXPORTS[path])
