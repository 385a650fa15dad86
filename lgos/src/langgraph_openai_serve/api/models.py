"""``GET /models`` and ``GET /models/{model}`` with the ``lgos`` extension.

OpenAI's ``Model`` object has no metadata field, so LGOS adds a namespaced,
versioned ``lgos`` object. The list carries ``schema_version``,
``description`` and ``features``; retrieval adds ``client_settings``
(``schema_version``, ``json_schema``, ``defaults``, or null),
``server_tools``, ``client_tools`` and ``generation_controls`` (the
generation controls the graph honours). Tool definitions are never published.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.json_response import json_response
from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.metrics import note_model

__all__ = [
    "EXTENSION_SCHEMA_VERSION",
    "OWNED_BY",
    "model_detail",
    "model_entry",
    "router",
]

EXTENSION_SCHEMA_VERSION = 1
CLIENT_SETTINGS_SCHEMA_VERSION = 1
OWNED_BY = "langgraph-openai-serve"

router = APIRouter()


def model_entry(model_id: str, config: GraphConfig, created: int) -> dict[str, Any]:
    """Return a model-list entry: the OpenAI ``Model`` plus the small extension."""
    return {
        "id": model_id,
        "object": "model",
        "created": created,
        "owned_by": OWNED_BY,
        "lgos": {
            "schema_version": EXTENSION_SCHEMA_VERSION,
            "description": config.description,
            "features": sorted(feature.value for feature in config.features),
        },
    }


def model_detail(model_id: str, config: GraphConfig, created: int) -> dict[str, Any]:
    """Return a retrieved model: the OpenAI ``Model`` plus the full extension."""
    entry = model_entry(model_id, config, created)
    settings = config.client_settings
    entry["lgos"]["client_settings"] = (
        None
        if settings is None
        else {
            "schema_version": CLIENT_SETTINGS_SCHEMA_VERSION,
            "json_schema": settings.json_schema(),
            "defaults": settings.default_values(),
        }
    )
    entry["lgos"]["server_tools"] = sorted(config.server_tools)
    entry["lgos"]["client_tools"] = sorted(config.client_tools)
    entry["lgos"]["generation_controls"] = sorted(
        control.value for control in config.generation_controls
    )
    return entry


@router.get("/models")
async def list_models(request: Request) -> Response:
    """List the registered graphs as OpenAI models."""
    registry: GraphRegistry = request.app.state.graph_registry
    created: int = request.app.state.created
    return json_response(
        {
            "object": "list",
            "data": [
                model_entry(model_id, config, created)
                for model_id, config in registry.graphs.items()
            ],
        }
    )


@router.get("/models/{model}")
async def retrieve_model(model: str, request: Request) -> Response:
    """Retrieve one registered graph with its complete ``lgos`` extension.

    Raises:
        InvalidRequestError: 404 ``model_not_found``.

    """
    registry: GraphRegistry = request.app.state.graph_registry
    note_model(model, registry.graphs)
    config = registry.get_graph(model)
    return json_response(model_detail(model, config, request.app.state.created))
