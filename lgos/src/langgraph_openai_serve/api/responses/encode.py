"""Encode a run as one JSON ``Response`` (``stream`` false or omitted)."""

from __future__ import annotations

import contextlib
from typing import Any

from langchain_core.messages import AIMessage

from langgraph_openai_serve.api.answer import Answer, read_answer
from langgraph_openai_serve.api.responses.frame import ResponseFrame
from langgraph_openai_serve.api.responses.interrupts import interrupt_calls
from langgraph_openai_serve.api.responses.items import (
    ServerToolItems,
    answer_items,
    answer_status,
    function_call_item,
)
from langgraph_openai_serve.graph.interrupt import LangGraphInterruptBatch
from langgraph_openai_serve.graph.server_tools import ServerToolCall, ServerToolResult
from langgraph_openai_serve.graph.session import RunSession

__all__ = ["collect_response"]


async def collect_response(frame: ResponseFrame, session: RunSession) -> dict[str, Any]:
    """Run the graph without streaming and return the final ``Response``.

    Raises:
        Exception: Whatever the graph raised (the route turns it into a 500).

    """
    answer: Answer | None = None
    server_items = ServerToolItems(frame.output)
    async with contextlib.aclosing(session.batches(stream=False)) as batches:
        async for batch in batches:
            for event in batch:
                if isinstance(event, ServerToolCall):
                    server_items.call(event)
                elif isinstance(event, ServerToolResult):
                    server_items.result(event)
                elif isinstance(event, LangGraphInterruptBatch):
                    calls = interrupt_calls(event, frame.nonce)
                    frame.output.extend(function_call_item(call) for call in calls)
                    return frame.snapshot("completed", usage=session.usage)
                elif isinstance(event, AIMessage):
                    answer = read_answer(event)
                    frame.output.extend(answer_items(answer))
    assert answer is not None
    return frame.snapshot(
        answer_status(answer),
        usage=session.usage,
        incomplete_reason=answer.incomplete_reason,
    )
