"""``POST /chat/completions``: decode → run → encode."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.body import parse_body
from langgraph_openai_serve.api.chat.chat_request import ChatCompletionRequest
from langgraph_openai_serve.api.chat.decode import decode_chat_request
from langgraph_openai_serve.api.chat.encode import (
    collect_chat_completion,
    stream_chat_completion,
)
from langgraph_openai_serve.api.http_run import start_run

__all__ = ["router"]

router = APIRouter()


@router.post("/chat/completions")
async def create_chat_completion(request: Request) -> Response:
    """Create a chat completion from a graph run (JSON or SSE chunks)."""
    body = await parse_body(request, ChatCompletionRequest)
    registry = request.app.state.graph_registry
    plan = decode_chat_request(body, registry)
    run = await start_run(request, plan.run)
    if body.stream:
        return run.sse(stream_chat_completion(plan.frame, run.session))
    return await run.json(collect_chat_completion(plan.frame, run.session))
