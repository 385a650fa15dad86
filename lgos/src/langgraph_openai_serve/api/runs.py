"""Own a prepared run across a JSON or streaming HTTP response."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from typing import Any

from langchain_core.messages import BaseMessage
from starlette.requests import Request
from starlette.responses import Response

from langgraph_openai_serve.api.ids import new_id
from langgraph_openai_serve.api.json import json_response
from langgraph_openai_serve.api.sse import sse_response
from langgraph_openai_serve.graph.request import GraphRequest
from langgraph_openai_serve.graph.runner import PreparedRun, prepare_run

__all__ = ["respond"]


async def respond(
    http_request: Request,
    graph_request: GraphRequest,
    messages: Sequence[BaseMessage],
    *,
    stream: bool,
    collect: Callable[[PreparedRun], Awaitable[dict[str, Any]]],
    encode: Callable[[PreparedRun], AsyncIterator[bytes]],
) -> Response:
    """Prepare a run, then answer with JSON (``collect``) or SSE (``encode``).

    Preparation errors (unknown model, invalid settings) surface before any
    byte is sent, so they keep their HTTP status. A streaming run is released
    when its event stream ends, fails, or the client disconnects.
    """
    request_id = new_id("req")
    stack = AsyncExitStack()
    run = await stack.enter_async_context(
        prepare_run(
            graph_request,
            messages,
            http_request.app.state.graph_registry,
            request_id=request_id,
        )
    )
    headers = {"x-request-id": request_id}
    if not stream:
        async with stack:
            response = json_response(await collect(run))
        response.headers.update(headers)
        return response

    async def body() -> AsyncIterator[bytes]:
        async with stack:
            async for chunk in encode(run):
                yield chunk

    response = sse_response(body())
    response.headers.update(headers)
    return response
