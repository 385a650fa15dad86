"""``POST /responses``: decode → run → encode; and the background routes."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.body import parse_body
from langgraph_openai_serve.api.http_run import start_run
from langgraph_openai_serve.api.responses.background import (
    cancel_background,
    retrieve_background,
    submit_background,
)
from langgraph_openai_serve.api.responses.decode import decode_response_request
from langgraph_openai_serve.api.responses.encode import collect_response
from langgraph_openai_serve.api.responses.interrupts import resume_error
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest
from langgraph_openai_serve.api.responses.stream import stream_response

__all__ = ["router"]

router = APIRouter()


@router.post("/responses")
async def create_response(request: Request) -> Response:
    """Create a Response: foreground JSON or SSE, or a queued background run."""
    body = await parse_body(request, ResponseCreateRequest)
    if body.background:
        return await submit_background(request, body)
    registry = request.app.state.graph_registry
    plan = decode_response_request(body, registry)
    run = await start_run(request, plan.run, errors=resume_error)
    if body.stream:
        return run.sse(stream_response(plan.frame, run.session))
    return await run.json(collect_response(plan.frame, run.session))


@router.get("/responses/{response_id}")
async def retrieve_response(response_id: str, request: Request) -> Response:
    """Read a background Response (foreground Responses are never stored)."""
    return await retrieve_background(request, response_id)


@router.post("/responses/{response_id}/cancel")
async def cancel_response(response_id: str, request: Request) -> Response:
    """Cancel a background Response; a finished one keeps its outcome."""
    return await cancel_background(request, response_id)
