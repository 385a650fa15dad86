"""``POST /responses``: decode → run → encode."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.body import parse_body
from langgraph_openai_serve.api.responses.background import (
    cancel_background,
    retrieve_background,
    submit_background,
)
from langgraph_openai_serve.api.responses.encode import (
    collect_response,
    stream_response,
)
from langgraph_openai_serve.api.responses.plan import plan_response
from langgraph_openai_serve.api.responses.request import ResponseCreateRequest
from langgraph_openai_serve.api.runs import respond

__all__ = ["router"]

router = APIRouter()


@router.post("/responses")
async def create_response(request: Request) -> Response:
    """Create a Response: foreground JSON or SSE, or a queued background run."""
    body = await parse_body(request, ResponseCreateRequest)
    if body.background:
        return await submit_background(request, body)
    decoded, frame, run_id = plan_response(body, request.app.state.graph_registry)
    return await respond(
        request,
        decoded.graph_request,
        decoded.messages,
        stream=bool(body.stream),
        collect=lambda run: collect_response(run, frame),
        encode=lambda run: stream_response(run, frame),
        resume=decoded.resume,
        run_id=run_id,
        instructions=body.instructions,
    )


@router.get("/responses/{response_id}")
async def retrieve_response(response_id: str, request: Request) -> Response:
    """Read a background Response (foreground Responses are never stored)."""
    return await retrieve_background(request, response_id)


@router.post("/responses/{response_id}/cancel")
async def cancel_response(response_id: str, request: Request) -> Response:
    """Cancel a background Response; a finished one keeps its outcome."""
    return await cancel_background(request, response_id)
