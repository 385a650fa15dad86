"""``POST /responses``: decode → run → encode."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.responses.decode import decode_response_request
from langgraph_openai_serve.api.responses.encode import (
    ResponseFrame,
    collect_response,
    stream_response,
)
from langgraph_openai_serve.api.responses.request import ResponseCreateRequest
from langgraph_openai_serve.api.runs import respond

__all__ = ["router"]

router = APIRouter()


@router.post("/responses")
async def create_response(body: ResponseCreateRequest, request: Request) -> Response:
    """Create a foreground Response from a graph run (JSON or SSE)."""
    graph_request, messages = decode_response_request(body)
    frame = ResponseFrame(request=body)
    return await respond(
        request,
        graph_request,
        messages,
        stream=bool(body.stream),
        collect=lambda run: collect_response(run, frame),
        encode=lambda run: stream_response(run, frame),
    )
