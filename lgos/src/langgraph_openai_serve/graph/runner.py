"""Run a registered graph from Python, as both OpenAI routes do.

The public entry points of the protocol-neutral runner: :func:`run_langgraph`
and :func:`run_langgraph_stream` take a :class:`GraphRequest` and LangChain
messages and go through the same :class:`~.session.RunSession` the HTTP
routes and the background worker use. This module (and everything it
imports) knows no OpenAI request type.

Usage::

    answer = await run_langgraph(GraphRequest(model="chat"), messages, registry)

    async for event in run_langgraph_stream(request, messages, registry):
        if isinstance(event, TextChunk):
            print(event.text, end="")

To answer a pause, pass ``resume=InterruptResume(batch.run_id, {interrupt ID:
answer, ...})`` with the same ``checkpoint_scope``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Sequence

from langchain_core.messages import AIMessage, BaseMessage

from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.execution import (
    RunEvent,
    TextChunk,
    TextParity,
    stream_run,
    stream_run_batches,
)
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.interrupt import (
    InterruptResume,
    LangGraphInterruptBatch,
)
from langgraph_openai_serve.graph.prepare import (
    DEFAULT_CHECKPOINT_SCOPE,
    PreparedRun,
    prepare_run,
)
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_config import RUN_NAME
from langgraph_openai_serve.graph.run_spec import RunSpec
from langgraph_openai_serve.graph.session import RunSession

__all__ = [
    "DEFAULT_CHECKPOINT_SCOPE",
    "RUN_NAME",
    "PreparedRun",
    "RunEvent",
    "RunSession",
    "RunSpec",
    "TextChunk",
    "TextParity",
    "prepare_run",
    "run_langgraph",
    "run_langgraph_stream",
    "stream_run",
    "stream_run_batches",
]


async def _events(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str,
    resume: InterruptResume | None,
    stream: bool,
) -> AsyncGenerator[RunEvent, None]:
    """One run session's events, one at a time; the result comes last."""
    async with RunSession(
        request, messages, registry, checkpoint_scope=checkpoint_scope, resume=resume
    ) as session:
        batches = session.batches(stream=stream)
        async with contextlib.aclosing(batches):
            async for batch in batches:
                for event in batch:
                    yield event


async def run_langgraph(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
    resume: InterruptResume | None = None,
) -> AIMessage | LangGraphInterruptBatch:
    """Run a graph once without streaming.

    The run is released (lease, checkpoint clean-up) before this returns.

    Args:
        request: Normalized request; ``request.model`` selects the graph.
        messages: The conversation as LangChain messages.
        registry: Where the graph is registered.
        checkpoint_scope: Server-trusted scope for interrupt checkpoints.
        resume: Answers for a paused run, or None.

    Returns:
        The answer ``AIMessage``, or the batch of a paused interrupt run.

    Raises:
        InvalidRequestError: Unknown model (404) or invalid runtime settings.
        RunBusyError: Another caller holds this run's lease.
        ResumeError: A resume the run cannot take.
        GraphError: Unusable graph output.

    """
    events = _events(
        request,
        messages,
        registry,
        checkpoint_scope=checkpoint_scope,
        resume=resume,
        stream=False,
    )
    async with contextlib.aclosing(events):
        async for event in events:
            if isinstance(event, AIMessage | LangGraphInterruptBatch):
                return event
    raise GraphError("The graph finished without producing output.")  # pragma: no cover


def run_langgraph_stream(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
    resume: InterruptResume | None = None,
) -> AsyncGenerator[RunEvent, None]:
    """Run a graph with streaming: text chunks, custom events, then the result.

    The last event is the answer ``AIMessage`` or a
    :class:`LangGraphInterruptBatch`, yielded once the run is released, so a
    caller may resume a paused run as soon as it receives the batch. Closing
    the iterator early cancels the graph run.

    Raises:
        InvalidRequestError: Unknown model (404) or invalid runtime settings.
        RunBusyError: Another caller holds this run's lease.
        ResumeError: A resume the run cannot take.
        GraphError: Unusable graph output.

    """
    return _events(
        request,
        messages,
        registry,
        checkpoint_scope=checkpoint_scope,
        resume=resume,
        stream=True,
    )
