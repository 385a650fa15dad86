"""``GET /health``: the OpenAI app is up and its registry is loaded."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.json_response import json_response

__all__ = ["router"]

router = APIRouter()


@router.get("/health")
async def health(request: Request) -> Response:
    """Return ``{"status": "ok", "models": <count>}``."""
    return json_response(
        {"status": "ok", "models": len(request.app.state.graph_registry.graphs)}
    )
