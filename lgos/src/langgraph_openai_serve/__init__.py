"""LangGraph OpenAI Serve: LangGraph graphs behind an OpenAI-compatible API.

Usage::

    from fastapi import FastAPI
    from langgraph_openai_serve import GraphConfig, GraphRegistry, LanggraphOpenaiServe

    config = GraphConfig(graph=graph, description="Chat.")
    registry = GraphRegistry(graphs={"chat": config})
    app = FastAPI()
    LanggraphOpenaiServe(registry=registry, app=app).bind_openai_api()
"""

from langgraph_openai_serve.api.api_keys import ApiKeys
from langgraph_openai_serve.api.auth import api_key_tenant
from langgraph_openai_serve.app import LanggraphOpenaiServe
from langgraph_openai_serve.background import (
    BackgroundBackend,
    BackgroundJob,
    BackgroundRun,
    InMemoryBackgroundBackend,
    execute_background_job,
)
from langgraph_openai_serve.errors import (
    GraphError,
    InterruptNotDeclaredError,
    InvalidRequestError,
    OpenAIHTTPException,
)
from langgraph_openai_serve.graph.citations import citation_slice
from langgraph_openai_serve.graph.client_settings import ClientSettings
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.graph.generation import (
    GenerationControl,
    GenerationSettings,
)
from langgraph_openai_serve.graph.graph_request import (
    ClientFunctionTool,
    GraphRequest,
    NamedCustomToolChoice,
    NamedFunctionToolChoice,
)
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.status import status_event
from langgraph_openai_serve.request_context import RequestContextFilter
from langgraph_openai_serve.settings import LgosSettings

__all__ = [
    "ApiKeys",
    "BackgroundBackend",
    "BackgroundJob",
    "BackgroundRun",
    "ClientFunctionTool",
    "ClientSettings",
    "GenerationControl",
    "GenerationSettings",
    "GraphConfig",
    "GraphError",
    "GraphFeature",
    "GraphRegistry",
    "GraphRequest",
    "InMemoryBackgroundBackend",
    "InMemoryRunCoordinator",
    "InterruptNotDeclaredError",
    "InvalidRequestError",
    "LanggraphOpenaiServe",
    "LgosSettings",
    "NamedCustomToolChoice",
    "NamedFunctionToolChoice",
    "OpenAIHTTPException",
    "RequestContextFilter",
    "api_key_tenant",
    "citation_slice",
    "execute_background_job",
    "status_event",
]
