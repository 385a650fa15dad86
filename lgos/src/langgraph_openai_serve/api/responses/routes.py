"""``POST /responses``: decode → run → encode."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.body import parse_body
from langgraph_openai_serve.api.responses.decode import decode_response_request
from langgraph_openai_serve.api.responses.encode import (
    ResponseFrame,
    collect_response,
    stream_response,
)
from langgraph_openai_serve.api.responses.request import (
    ResponseCreateRequest,
    Tool,
    WebSearchSelector,
)
from langgraph_openai_serve.api.runs import respond
from langgraph_openai_serve.api.tools import check_tools
from langgraph_openai_serve.graph.config import GraphFeature
from langgraph_openai_serve.graph.interrupt import interrupt_response_id, new_nonce

__all__ = ["router"]

router = APIRouter()


def _tool_name(tool: Tool) -> str:
    return "web_search" if isinstance(tool, WebSearchSelector) else tool.name


@router.post("/responses")
async def create_response(request: Request) -> Response:
    """Create a foreground Response from a graph run (JSON or SSE)."""
    body = await parse_body(request, ResponseCreateRequest)
    decoded = decode_response_request(body)
    config = request.app.state.graph_registry.get_graph(body.model)
    check_tools(
        config, decoded.graph_request, [_tool_name(t) for t in body.tools or ()]
    )
    frame = ResponseFrame(request=body)
    run_id = decoded.run_id
    if config.supports(GraphFeature.INTERRUPTS):
        # Interrupt runs carry their run UUID in the Response ID.
        run_id = run_id or uuid.uuid4()
        frame.nonce = new_nonce()
        frame.response_id = interrupt_response_id(run_id, frame.nonce)
    return await respond(
        request,
        decoded.graph_request,
        decoded.messages,
        stream=bool(body.stream),
        collect=lambda run: collect_response(run, frame),
        encode=lambda run: stream_response(run, frame),
        resume=decoded.resume,
        run_id=run_id,
    )
