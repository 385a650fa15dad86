"""The registry factory `lgos serve lgos_demo_api.registry:create_registry` runs.

Each demo graph is one entry in `GRAPH_BUILDERS`: the OpenAI model name it is
served as, and a function turning `DemoApiSettings` into its `GraphConfig`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from langgraph_openai_serve import GraphConfig, GraphRegistry
from lgos_demo_api.graphs.approval import approval_graph_config
from lgos_demo_api.graphs.chat import chat_graph_config
from lgos_demo_api.graphs.citations import citations_graph_config
from lgos_demo_api.graphs.deep_research import deep_research_graph_config
from lgos_demo_api.graphs.file_analysis import files_graph_config
from lgos_demo_api.graphs.functions import functions_graph_config
from lgos_demo_api.graphs.mcp_tools import mcp_graph_config
from lgos_demo_api.graphs.server_tools import server_tools_graph_config
from lgos_demo_api.graphs.writer import writer_graph_config
from lgos_demo_api.settings import DemoApiSettings, get_settings
from lgos_demo_api.telemetry import configure_telemetry

if TYPE_CHECKING:
    from langgraph_openai_serve.server import ServerResources

__all__ = [
    "GRAPH_BUILDERS",
    "RESOURCE_GRAPH_BUILDERS",
    "GraphBuilder",
    "ResourceGraphBuilder",
    "create_registry",
]

GraphBuilder = Callable[[DemoApiSettings], GraphConfig]
"""Builds one graph's `GraphConfig` from the demo settings."""

GRAPH_BUILDERS: tuple[tuple[str, GraphBuilder], ...] = (
    ("chat", chat_graph_config),
    ("writer", writer_graph_config),
    ("citations", citations_graph_config),
    ("functions", functions_graph_config),
    ("mcp", mcp_graph_config),
    ("server-tools", server_tools_graph_config),
    ("files", files_graph_config),
)
"""`(model name, builder)` for every served demo graph, in listing order."""

ResourceGraphBuilder = Callable[[DemoApiSettings, "ServerResources"], GraphConfig]
"""Builds a `GraphConfig` that needs the server's resources (a checkpointer)."""

RESOURCE_GRAPH_BUILDERS: tuple[tuple[str, ResourceGraphBuilder], ...] = (
    ("approval", approval_graph_config),
    ("deep-research", deep_research_graph_config),
)
"""`(model name, builder)` for graphs built with `ServerResources`; listed last."""


def create_registry(
    resources: ServerResources, settings: DemoApiSettings | None = None
) -> GraphRegistry:
    """Build the demo registry.

    First installs the OpenTelemetry SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` is
    set (`lgos_demo_api.telemetry`), in `lgos serve` and `lgos worker` alike.

    Args:
        resources: What the server provides; its `run_coordinator` is handed to
            the registry.
        settings: Demo settings; read afresh with `get_settings()` when omitted
            (the `lgos serve` case).

    Returns:
        A `GraphRegistry` serving every graph in `GRAPH_BUILDERS`.

    Raises:
        pydantic.ValidationError: If the settings from the environment are
            invalid.

    """
    configure_telemetry()  # OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set
    settings = settings if settings is not None else get_settings()
    return GraphRegistry(
        graphs={
            **{name: build(settings) for name, build in GRAPH_BUILDERS},
            **{
                name: build(settings, resources)
                for name, build in RESOURCE_GRAPH_BUILDERS
            },
        },
        run_coordinator=resources.run_coordinator,
    )
