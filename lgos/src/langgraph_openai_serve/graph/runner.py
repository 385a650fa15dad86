"""The protocol-neutral graph runner under both OpenAI routes.

A run is prepared (graph resolved, input, runtime context and runnable config
built) and then streamed. Both API adapters and direct Python callers go
through :func:`prepare_run` and :func:`stream_run`; this module imports no
OpenAI request types.

Usage::

    answer = await run_langgraph(GraphRequest(model="chat"), messages, registry)

    async for event in run_langgraph_stream(request, messages, registry):
        if isinstance(event, TextChunk):
            print(event.text, end="")
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from langchain_core.callbacks import BaseCallbackManager
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.request import GraphRequest
from langgraph_openai_serve.graph.usage import UsageCollector

__all__ = [
    "RUN_NAME",
    "PreparedRun",
    "RunEvent",
    "TextChunk",
    "TextParity",
    "prepare_run",
    "run_langgraph",
    "run_langgraph_stream",
    "stream_run",
]

RUN_NAME = "lgos.graph_run"
_STREAM_MODES = ("messages", "custom", "values")
_VALUES_MODE = ("values",)
_QUEUE_SIZE = 256
_CANCEL_GRACE_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class TextChunk:
    """Non-empty assistant text from one streamed ``AIMessageChunk``."""

    text: str


RunEvent = TextChunk | dict[str, Any] | AIMessage
"""What :func:`stream_run` yields: text chunks and LangGraph
``CustomStreamPart`` dicts (``{"type": "custom", "ns": (...), "data": ...}``)
while streaming, then the final ``AIMessage`` exactly once."""


@dataclass(slots=True)
class PreparedRun:
    """Everything one graph execution needs, built before it starts.

    Attributes:
        request: The normalized request.
        config: The registered graph configuration.
        graph: The resolved compiled graph.
        graph_input: The graph's input value.
        context: The LangGraph runtime context, or None.
        runnable_config: Callbacks, run name and correlation metadata.
        usage: Usage aggregated over the run's model calls, once it ran, or
            None when no model reported usage.

    """

    request: GraphRequest
    config: GraphConfig
    graph: CompiledStateGraph
    graph_input: Any
    context: Any
    runnable_config: RunnableConfig
    _usage: UsageCollector = field(repr=False)

    @property
    def usage(self) -> UsageMetadata | None:
        """Aggregated usage reported by the run's model calls, or None."""
        return self._usage.usage


def _callbacks(config: GraphConfig, usage: UsageCollector) -> Any:
    """Add the usage collector without mutating the registered callbacks."""
    callbacks = config.runtime_callbacks
    if callbacks is None:
        return [usage]
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(usage, inherit=True)
        return manager
    return [*callbacks, usage]


@asynccontextmanager
async def prepare_run(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    request_id: str | None = None,
) -> AsyncIterator[PreparedRun]:
    """Prepare one graph run; an async context manager owning its resources.

    Args:
        request: The normalized request; ``request.model`` selects the graph.
        messages: The conversation as LangChain messages.
        registry: Where the graph is registered.
        request_id: Correlation ID recorded in the run's config metadata.

    Yields:
        The :class:`PreparedRun`, valid until the context exits.

    Raises:
        InvalidRequestError: Unknown model (404) or invalid runtime settings.
        GraphError: A graph factory or adapter produced something unusable.

    """
    config = registry.get_graph(request.model)
    graph = await config.resolve_graph()
    context = await config.build_context(request, graph)
    graph_input = await config.build_input(request, list(messages))
    usage = UsageCollector()
    metadata: dict[str, Any] = {"lgos.model": request.model}
    if request_id is not None:
        metadata["lgos.request_id"] = request_id
    if request.user is not None:
        metadata["lgos.user"] = request.user
    if (conversation_id := request.metadata.get("conversation_id")) is not None:
        metadata["langfuse_session_id"] = conversation_id
    runnable_config: RunnableConfig = {
        "callbacks": _callbacks(config, usage),
        "run_name": RUN_NAME,
        "metadata": metadata,
    }
    yield PreparedRun(
        request=request,
        config=config,
        graph=graph,
        graph_input=graph_input,
        context=context,
        runnable_config=runnable_config,
        _usage=usage,
    )


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


_DONE = object()


async def _pump(parts: AsyncIterator[Any], queue: asyncio.Queue[Any]) -> None:
    """Read LangGraph's stream in its own task and hand parts to the consumer."""
    try:
        async with contextlib.aclosing(parts):  # type: ignore[type-var]
            async for part in parts:
                await queue.put(part)
    except Exception as exc:  # handed to the consumer, which re-raises it
        await queue.put(_Failure(exc))
    else:
        await queue.put(_DONE)


async def stream_run(
    run: PreparedRun, *, stream: bool
) -> AsyncGenerator[RunEvent, None]:
    """Execute a prepared run and yield its events.

    With ``stream=False`` only root ``values`` are requested, as LangGraph's
    ``ainvoke()`` does, and the only event is the final ``AIMessage``. With
    ``stream=True`` the run also subscribes to ``messages`` (every non-empty
    ``AIMessageChunk.text`` becomes a :class:`TextChunk`; complete messages
    are not forwarded) and ``custom`` (forwarded as LangGraph's
    ``CustomStreamPart`` dicts for the adapter to filter).

    LangGraph's stream is read in its own asyncio task. Closing this iterator
    early, or cancelling its consumer, cancels that task once and waits for
    it, so graph nodes stop at their next await.

    Raises:
        Exception: Whatever the graph raised.
        GraphError: The final output cannot be rendered.

    """
    modes = _STREAM_MODES if stream else _VALUES_MODE
    parts = run.graph.astream(
        run.graph_input,
        config=run.runnable_config,
        context=run.context,
        stream_mode=list(modes),
        version="v2",
    )
    queue: asyncio.Queue[Any] = asyncio.Queue(_QUEUE_SIZE)
    task = asyncio.create_task(_pump(parts, queue), name=RUN_NAME)
    output: Any = None
    has_output = False
    try:
        while True:
            part = await queue.get()
            if part is _DONE:
                break
            if isinstance(part, _Failure):
                raise part.error
            kind = part["type"]
            if kind == "messages":
                chunk = part["data"][0]
                if isinstance(chunk, AIMessageChunk) and (text := chunk.text):
                    yield TextChunk(text)
            elif kind == "values":
                if not part["ns"]:
                    output = part["data"]
                    has_output = True
            elif kind == "custom":
                yield part
    finally:
        if not task.done():
            task.cancel()
        # Shielded: a cancelled consumer (asyncio or AnyIO, whose cancellation
        # repeats at every await) still waits for the graph task to finish.
        with anyio.move_on_after(_CANCEL_GRACE_SECONDS, shield=True):
            await asyncio.wait((task,))
    if not has_output:
        msg = "The graph finished without producing output."
        raise GraphError(msg)
    yield await run.config.render_output(output)


class TextParity:
    """Check that streamed assistant text equals the final answer text.

    The final ``AIMessage.text`` is canonical. Adapters :meth:`add` every
    streamed chunk, then call :meth:`finish` with the final text.
    """

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def add(self, text: str) -> None:
        """Record one streamed chunk."""
        self._parts.append(text)

    @property
    def streamed(self) -> str:
        """The text streamed so far."""
        return "".join(self._parts)

    def finish(self, final_text: str) -> str:
        """Return the fallback text to emit now ('' when the stream matched).

        Raises:
            GraphError: Text streamed but differs from ``final_text``.

        """
        if not self._parts:
            return final_text
        if self.streamed != final_text:
            msg = (
                "The streamed assistant text does not match the final message; "
                "tag private model calls with TAG_NOSTREAM."
            )
            raise GraphError(msg)
        return ""


async def run_langgraph(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
) -> AIMessage:
    """Run a graph once without streaming and return its final ``AIMessage``.

    Args:
        request: Normalized request; ``request.model`` selects the graph.
        messages: The conversation as LangChain messages.
        registry: Where the graph is registered.

    Raises:
        InvalidRequestError: Unknown model or invalid runtime settings.
        GraphError: Unusable graph output.

    """
    async with prepare_run(request, messages, registry) as run:
        async for event in stream_run(run, stream=False):
            if isinstance(event, AIMessage):
                return event
    raise GraphError("The graph finished without producing output.")  # pragma: no cover


async def run_langgraph_stream(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
) -> AsyncIterator[RunEvent]:
    """Run a graph with streaming; yield text chunks, custom events, the answer.

    The final event is the answer ``AIMessage``. Closing the iterator early
    cancels the graph run.

    Raises:
        InvalidRequestError: Unknown model or invalid runtime settings.
        GraphError: Unusable graph output.

    """
    async with (
        prepare_run(request, messages, registry) as run,
        contextlib.aclosing(stream_run(run, stream=True)) as events,
    ):
        async for event in events:
            yield event
