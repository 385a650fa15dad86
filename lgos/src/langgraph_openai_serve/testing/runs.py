"""Run a registered graph in a test, checking the streamed-text contract on every run.

A graph that post-processes a model's streamed text (a node returning
``AIMessage(draft.text.upper())``) answers correctly without streaming and
fails every streaming request: the client has received the model's own
deltas when the final message says something else. :func:`run_graph` and
:func:`stream_graph` run the graph the streaming way whatever the test asks
for, and fail with an ``AssertionError`` that names the node and
``TAG_NOSTREAM`` as soon as the streamed deltas do not join to the final
message's text, so a graph's first test finds the mistake.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage

from langgraph_openai_serve.graph.execution import RunEvent, TextChunk, TextParity
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.interrupt import (
    InterruptResume,
    LangGraphInterruptBatch,
)
from langgraph_openai_serve.graph.prepare import DEFAULT_CHECKPOINT_SCOPE
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.runner import run_langgraph_stream

__all__ = ["run_graph", "stream_graph"]


async def stream_graph(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
    resume: InterruptResume | None = None,
) -> list[RunEvent]:
    """Run a graph with streaming and return every event; check the text.

    The events are :func:`~langgraph_openai_serve.graph.runner.run_langgraph_stream`'s
    (text chunks, custom parts, server-tool events), the result last: the
    answer ``AIMessage`` or a paused run's ``LangGraphInterruptBatch``.

    Raises:
        AssertionError: Text streamed and the chunks do not join to the
            answer's text; the message names the nodes that streamed and
            ``TAG_NOSTREAM`` (a paused run has no answer to compare).
        Exception: Whatever :func:`run_langgraph_stream` raises (an unknown
            model, invalid settings, a ``GraphError``, the graph's own errors).

    """
    events: list[RunEvent] = []
    parity = TextParity()
    stream = run_langgraph_stream(
        request,
        messages,
        registry,
        checkpoint_scope=checkpoint_scope,
        resume=resume,
    )
    async with contextlib.aclosing(stream):
        async for event in stream:
            events.append(event)
            if isinstance(event, TextChunk):
                parity.add(event)
    result = events[-1] if events else None
    if isinstance(result, AIMessage):
        mismatch = parity.mismatch(result.text)
        if mismatch is not None:
            raise AssertionError(f"Graph {request.model!r}: {mismatch}")
    return events


async def run_graph(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
    resume: InterruptResume | None = None,
) -> AIMessage | LangGraphInterruptBatch:
    """Run a graph once and return its result, as ``run_langgraph``; check the text.

    The graph runs with streaming (:func:`stream_graph`), so that a test of
    the plain answer also checks what a streaming client would receive.

    Returns:
        The answer ``AIMessage``, or the batch of a paused interrupt run.

    Raises:
        AssertionError: The streamed text is not the answer's text (see
            :func:`stream_graph`).
        Exception: Whatever ``run_langgraph`` raises.

    """
    events = await stream_graph(
        request,
        messages,
        registry,
        checkpoint_scope=checkpoint_scope,
        resume=resume,
    )
    result = events[-1]
    assert isinstance(result, AIMessage | LangGraphInterruptBatch)
    return result
