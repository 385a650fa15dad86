"""Decode a Responses request and lay out its Response identity."""

from __future__ import annotations

import uuid

from langgraph_openai_serve.api.responses.decode import (
    DecodedResponseRequest,
    decode_response_request,
)
from langgraph_openai_serve.api.responses.encode import ResponseFrame
from langgraph_openai_serve.api.responses.request import (
    ResponseCreateRequest,
    Tool,
    WebSearchSelector,
)
from langgraph_openai_serve.api.tools import check_file_inputs, check_tools
from langgraph_openai_serve.graph.config import GraphFeature
from langgraph_openai_serve.graph.interrupt import interrupt_response_id, new_nonce
from langgraph_openai_serve.graph.registry import GraphRegistry

__all__ = ["plan_response"]


def _tool_name(tool: Tool) -> str:
    return "web_search" if isinstance(tool, WebSearchSelector) else tool.name


def plan_response(
    body: ResponseCreateRequest,
    registry: GraphRegistry,
    *,
    run_id: uuid.UUID | None = None,
    nonce: str | None = None,
) -> tuple[DecodedResponseRequest, ResponseFrame, uuid.UUID | None]:
    """Decode a Responses request and lay out its Response identity.

    Interrupt runs (and background runs, which pass ``run_id`` and ``nonce``)
    carry their run UUID in a ``resp_lg_…`` Response ID.

    Returns:
        The decoded request, the Response frame, and the run UUID (None for
        an ordinary foreground run).

    Raises:
        InvalidRequestError: Unknown model, or any decoding or tool error.

    """
    decoded = decode_response_request(body)
    config = registry.get_graph(body.model)
    check_tools(
        config, decoded.graph_request, [_tool_name(t) for t in body.tools or ()]
    )
    check_file_inputs(config, body.model, decoded.messages)
    frame = ResponseFrame(request=body)
    run_id = decoded.run_id or run_id
    if config.supports(GraphFeature.INTERRUPTS) or nonce is not None:
        run_id = run_id or uuid.uuid4()
        frame.nonce = nonce or new_nonce()
        frame.response_id = interrupt_response_id(run_id, frame.nonce)
    return decoded, frame, run_id
