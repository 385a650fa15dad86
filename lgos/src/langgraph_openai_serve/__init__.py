"""LangGraph OpenAI Serve: LangGraph graphs behind an OpenAI-compatible API.

Usage::

    from fastapi import FastAPI
    from langgraph_openai_serve import GraphConfig, GraphRegistry, LanggraphOpenaiServe

    config = GraphConfig(graph=graph, description="Chat.")
    registry = GraphRegistry(graphs={"chat": config})
    app = FastAPI()
    LanggraphOpenaiServe(registry=registry, app=app).bind_openai_api()
"""

from langgraph_openai_serve.app import LanggraphOpenaiServe
from langgraph_openai_serve.client_settings import ClientSettings
from langgraph_openai_serve.errors import (
    GraphError,
    InvalidRequestError,
    OpenAIHTTPException,
)
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.request import (
    ClientFunctionTool,
    GraphRequest,
    NamedCustomToolChoice,
    NamedFunctionToolChoice,
)
from langgraph_openai_serve.graph.status import status_event
from langgraph_openai_serve.request_context import RequestContextFilter

__all__ = [
    "ClientFunctionTool",
    "ClientSettings",
    "GraphConfig",
    "GraphError",
    "GraphFeature",
    "GraphRegistry",
    "GraphRequest",
    "InvalidRequestError",
    "LanggraphOpenaiServe",
    "NamedCustomToolChoice",
    "NamedFunctionToolChoice",
    "OpenAIHTTPException",
    "RequestContextFilter",
    "status_event",
]
