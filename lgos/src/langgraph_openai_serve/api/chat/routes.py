"""``POST /chat/completions``: decode → run → encode."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from langgraph_openai_serve.api.body import parse_body
from langgraph_openai_serve.api.chat.decode import decode_chat_request
from langgraph_openai_serve.api.chat.encode import (
    ChatFrame,
    collect_chat_completion,
    stream_chat_completion,
)
from langgraph_openai_serve.api.chat.request import ChatCompletionRequest
from langgraph_openai_serve.api.runs import start_run
from langgraph_openai_serve.api.tools import check_file_inputs, check_tools
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.config import GraphFeature
from langgraph_openai_serve.graph.session import RunSession

__all__ = ["router"]

router = APIRouter()


@router.post("/chat/completions")
async def create_chat_completion(request: Request) -> Response:
    """Create a chat completion from a graph run (JSON or SSE chunks)."""
    body = await parse_body(request, ChatCompletionRequest)
    registry = request.app.state.graph_registry
    config = registry.get_graph(body.model)
    if config.supports(GraphFeature.INTERRUPTS):
        raise InvalidRequestError(
            f"The model '{body.model}' pauses for human input, which only the "
            "Responses API (/v1/responses) supports.",
            param="model",
        )
    graph_request, messages = decode_chat_request(body)
    check_tools(
        config, graph_request, [tool.function.name for tool in body.tools or ()]
    )
    check_file_inputs(config, body.model, messages)
    frame = ChatFrame(
        model=body.model,
        include_usage=bool(body.stream_options and body.stream_options.include_usage),
    )
    run = await start_run(
        request,
        lambda scope, request_id: RunSession(
            graph_request,
            messages,
            registry,
            config=config,
            checkpoint_scope=scope,
            request_id=request_id,
        ),
    )
    if body.stream:
        return run.sse(stream_chat_completion(frame, run.session))
    return await run.json(collect_chat_completion(frame, run.session))
