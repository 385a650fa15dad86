"""The protocol-neutral graph runner under both OpenAI routes.

A run is prepared (graph resolved, input, runtime context and runnable config
built, and for interrupt graphs the run's lease taken and its checkpoint
read) and then streamed. Both API adapters and direct Python callers go
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
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import anyio
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import patch_config
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StreamMode

from langgraph_openai_serve.errors import GraphError, InvalidRequestError, ServerError
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.coordinator import (
    Lease,
    LeaseLostError,
    LeasesExhaustedError,
    RunBusyError,
)
from langgraph_openai_serve.graph.graph_task import (
    DONE,
    Channel,
    Failure,
    drain,
    pump,
    settle,
)
from langgraph_openai_serve.graph.interrupt import (
    INSTRUCTIONS_METADATA_KEY,
    NOT_A_PAUSE,
    InterruptResume,
    LangGraphInterruptBatch,
    PendingInterrupt,
    check_resumed_instructions,
    checkpoint_key,
    conflict,
    instructions_digest,
    resume_command_values,
)
from langgraph_openai_serve.graph.lease_guard import LeaseGuardedSaver
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.request import GraphRequest
from langgraph_openai_serve.graph.run_config import (
    RUN_NAME,
)
from langgraph_openai_serve.graph.run_config import (
    run_context as tracing_context,
)
from langgraph_openai_serve.graph.run_config import (
    runnable_config as build_runnable_config,
)
from langgraph_openai_serve.graph.server_tools import (
    ServerToolCall,
    ServerToolResult,
    ServerToolTracker,
)
from langgraph_openai_serve.graph.usage import UsageCollector
from langgraph_openai_serve.telemetry import WorkflowTelemetry

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
    "stream_run_batches",
]

logger = logging.getLogger(__name__)

DEFAULT_CHECKPOINT_SCOPE = "default"
_STREAM_MODES: tuple[StreamMode, ...] = ("messages", "custom", "values")
_VALUES_MODE: tuple[StreamMode, ...] = ("values",)
_QUEUE_SIZE = 256
_CLEANUP_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class TextChunk:
    """Non-empty assistant text from one streamed ``AIMessageChunk``."""

    text: str


RunEvent = (
    TextChunk
    | dict[str, Any]
    | ServerToolCall
    | ServerToolResult
    | AIMessage
    | LangGraphInterruptBatch
)
"""What :func:`stream_run` yields: text chunks and LangGraph
``CustomStreamPart`` dicts (``{"type": "custom", "ns": (...), "data": ...}``)
while streaming; server-tool calls and results when the request selected
server tools; then exactly one result: the answer ``AIMessage`` or, for a
paused interrupt run, the :class:`LangGraphInterruptBatch`."""


class Disposition(Enum):
    """What happens to an interrupt run's checkpoint when the run closes.

    A first request cleans up unless it hands out a batch; a resume keeps the
    pause it answers until it hands out a new batch or the graph finishes, so
    a resume cut off by a disconnect, a cancellation or a failure leaves the
    pause resumable, as a crash does (beyond seed 000's best-effort cleanup).
    """

    UNTOUCHED = "untouched"  # nothing executed: leave state as it is
    CLEANUP = "cleanup"  # a first run executing, or the graph finished: delete
    RETAINED = "retained"  # a batch is out (or being answered): keep the thread


@dataclass(slots=True)
class PreparedRun:
    """Everything one graph execution needs, built before it starts.

    Attributes:
        request: The normalized request.
        config: The registered graph configuration.
        graph: The resolved compiled graph.
        graph_input: The graph's input (a ``Command`` when resuming).
        context: The LangGraph runtime context, or None.
        runnable_config: Callbacks, run name, correlation metadata and, for
            interrupt runs, the checkpoint ``thread_id``.
        run_id: The run UUID of an interrupt run, else None.
        pending: A batch to re-emit without executing (a retried initial
            request whose run is already paused), else None.
        resume_from: The checkpoint ID of the pause a resume answers when a
            later checkpoint (left by an earlier, cut-off resume) hides it;
            the run forks from it. None to continue from the latest.
        lease: The interrupt run's lease, when the coordinator hands one out;
            if it is lost the run stops and writes nothing more.

    """

    request: GraphRequest
    config: GraphConfig
    graph: CompiledStateGraph
    graph_input: Any
    context: Any
    runnable_config: RunnableConfig
    _usage: UsageCollector = field(repr=False)
    run_id: uuid.UUID | None = None
    pending: LangGraphInterruptBatch | None = None
    resume_from: str | None = None
    lease: Lease | None = None
    disposition: Disposition = Disposition.UNTOUCHED

    @property
    def usage(self) -> UsageMetadata | None:
        """Aggregated usage reported by the run's model calls, or None."""
        return self._usage.usage

    @property
    def interrupts(self) -> bool:
        """Whether this is an interrupt-enabled (checkpointed) run."""
        return self.run_id is not None


# How far back a pause may hide: a cut-off resume leaves one exit checkpoint
# (exit durability), and a retry forks from the pause again.
_PAUSE_SEARCH_DEPTH = 3


@dataclass(frozen=True, slots=True)
class _Pause:
    batch: LangGraphInterruptBatch
    instructions: str | None  # the run's instructions digest
    hidden: bool  # a later checkpoint (of a cut-off resume) hides it


async def _find_pause(
    graph: CompiledStateGraph, config: RunnableConfig, run_id: uuid.UUID
) -> _Pause | None:
    """Return the run's pause, or None when it is not paused.

    The pause is the latest checkpoint with pending interrupts: the latest
    one, or an ancestor hidden by the exit checkpoint that a cut-off resume
    wrote (a finished run has no thread left to search).
    """
    snapshot = await graph.aget_state(config)
    hidden = False
    for _ in range(_PAUSE_SEARCH_DEPTH):
        # A checkpoint with nothing next is a finished run (its thread was
        # about to be deleted when the request was cut off): never walk past
        # it to the pause it answered, or a retry would run the work again.
        if snapshot.interrupts or not snapshot.next or snapshot.parent_config is None:
            break
        snapshot = await graph.aget_state(snapshot.parent_config)
        hidden = True
    if not snapshot.interrupts:
        return None
    batch = LangGraphInterruptBatch(
        run_id=run_id,
        checkpoint_key=config.get("configurable", {})["thread_id"],
        checkpoint_id=snapshot.config.get("configurable", {})["checkpoint_id"],
        interrupts=tuple(PendingInterrupt(i.id, i.value) for i in snapshot.interrupts),
    )
    digest = (snapshot.metadata or {}).get(INSTRUCTIONS_METADATA_KEY)
    return _Pause(batch, digest, hidden)


async def _still_held(lease: Lease | None) -> bool:
    """Whether the run still holds its lease; shielded, as clean-up must be."""
    if lease is None:
        return True
    with anyio.move_on_after(_CLEANUP_SECONDS, shield=True):
        return await lease.holds()
    return False  # the check itself timed out: treat the lease as lost


async def _delete_thread(graph: CompiledStateGraph, thread_id: str) -> None:
    """Best-effort, shielded deletion; a failure is logged, never raised."""
    checkpointer = graph.checkpointer
    with anyio.move_on_after(_CLEANUP_SECONDS, shield=True):
        try:
            await checkpointer.adelete_thread(thread_id)  # type: ignore[union-attr]
        except Exception:
            logger.exception("Could not delete checkpoint thread %s", thread_id)


@asynccontextmanager
async def prepare_run(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
    resume: InterruptResume | None = None,
    run_id: uuid.UUID | None = None,
    request_id: str | None = None,
    instructions: str | None = None,
) -> AsyncIterator[PreparedRun]:
    """Prepare one graph run; an async context manager owning its resources.

    For a graph declaring ``GraphFeature.INTERRUPTS`` the context holds the
    run's coordinator lease for its whole life, reads the checkpoint, checks
    a ``resume`` against the durable pending batch, and on exit deletes the
    checkpoint thread unless an interrupt batch was handed out (terminal
    completion, failure and cancellation all clean up; cleanup is shielded
    and never replaces the original error).

    Args:
        request: The normalized request; ``request.model`` selects the graph.
        messages: The conversation as LangChain messages (unused on resume).
        registry: Where the graph is registered.
        checkpoint_scope: Server-trusted scope of interrupt checkpoints; the
            same value must be used for the initial request and each resume.
        resume: The answers for a paused run, or None.
        run_id: The run UUID of a new interrupt run (random when None).
        request_id: Correlation ID recorded in the run's config metadata.
        instructions: The client's system instructions (Responses
            ``instructions``) of a new interrupt run: their digest is kept
            with the run's checkpoints, so that a resume may repeat them
            (``resume.instructions``) but not change them.

    Yields:
        The :class:`PreparedRun`, valid until the context exits.

    Raises:
        InvalidRequestError: Unknown model (404), invalid runtime settings or
            resume input (400; instructions other than the run's too), a busy
            lease (409 ``run_busy``), or a resume
            that does not match the pending batch (409
            ``interrupt_state_conflict``).
        GraphError: A graph factory or adapter produced something unusable.

    """
    config = registry.get_graph(request.model)
    interrupts = config.supports(GraphFeature.INTERRUPTS)
    if resume is not None and not interrupts:
        raise InvalidRequestError(
            NOT_A_PAUSE,
            param="previous_response_id",
        )
    if not checkpoint_scope:
        msg = "The checkpoint scope resolver returned an empty scope."
        raise GraphError(msg)
    graph = await config.resolve_graph()
    context = await config.build_context(request, graph)
    usage = UsageCollector()
    if interrupts:
        run_id = resume.run_id if resume is not None else (run_id or uuid.uuid4())
    runnable_config = build_runnable_config(
        config,
        request,
        [usage],
        request_id=request_id,
        operation_id=str(run_id) if interrupts else None,
    )
    if not interrupts:
        yield PreparedRun(
            request=request,
            config=config,
            graph=graph,
            graph_input=await config.build_input(request, list(messages)),
            context=context,
            runnable_config=runnable_config,
            _usage=usage,
        )
        return

    assert run_id is not None
    key = checkpoint_key(checkpoint_scope, request.model, run_id)
    runnable_config["configurable"] = {"thread_id": key}
    async with AsyncExitStack() as stack:
        try:
            lease = await stack.enter_async_context(registry.run_coordinator.lease(key))
        except RunBusyError:
            raise InvalidRequestError(
                "Another request is running this operation; retry later.",
                code="run_busy",
                status_code=409,
            ) from None
        except LeasesExhaustedError:
            raise ServerError(
                "This server runs as many interrupt runs as it can; retry shortly.",
                code="leases_exhausted",
                status_code=503,
            ) from None
        pause = await _find_pause(graph, runnable_config, run_id)
        pending = pause.batch if pause is not None else None
        recorded = pause.instructions if pause is not None else None
        resume_from = None
        if resume is not None:
            if pause is None or pending is None:
                # What is left, if anything, is a finished run cut off before
                # its thread was deleted: finish the clean-up now.
                await _delete_thread(graph, key)
                raise conflict("This operation is not paused: it finished or expired.")
            graph_input: Any = Command(resume=resume_command_values(resume, pending))
            check_resumed_instructions(resume, recorded)
            if pause.hidden:  # fork from the pause, past the cut-off attempt
                resume_from = pending.checkpoint_id
            pending = None
        elif pending is None:
            # A leftover without pending interrupts is a dead run: start afresh.
            await _delete_thread(graph, key)
            graph_input = await config.build_input(request, list(messages))
            recorded = instructions_digest(instructions)
        else:
            graph_input = None
        if recorded is not None:  # kept with every checkpoint of the run
            runnable_config.setdefault("metadata", {})[INSTRUCTIONS_METADATA_KEY] = (
                recorded
            )
        run = PreparedRun(
            request=request,
            config=config,
            graph=graph,
            graph_input=graph_input,
            context=context,
            runnable_config=runnable_config,
            _usage=usage,
            run_id=run_id,
            pending=pending,
            resume_from=resume_from,
            lease=lease,
        )
        try:
            yield run
        finally:
            # A lost lease may have a new holder: write (delete) nothing more.
            if run.disposition is Disposition.CLEANUP and await _still_held(lease):
                await _delete_thread(graph, key)


async def stream_run(
    run: PreparedRun, *, stream: bool
) -> AsyncGenerator[RunEvent, None]:
    """Execute a prepared run and yield its events.

    With ``stream=False`` only root ``values`` are requested, as LangGraph's
    ``ainvoke()`` does, and the only event is the result. With ``stream=True``
    the run also subscribes to ``messages`` (every non-empty
    ``AIMessageChunk.text`` becomes a :class:`TextChunk`; complete messages
    are not forwarded) and ``custom`` (forwarded as LangGraph's
    ``CustomStreamPart`` dicts for the adapter to filter). A request that
    selected server tools also consumes root ``updates`` and yields
    :class:`ServerToolCall` and :class:`ServerToolResult` events (without
    streaming, in order once the graph finished; a violation of the
    server-tool rules stops the graph at once either way).

    Interrupt runs execute with exit durability and are drained completely
    before their :class:`LangGraphInterruptBatch` (every pending interrupt,
    accumulated across parts) is yielded.

    LangGraph's stream is read in its own asyncio task. Closing this iterator
    early, or cancelling its consumer, cancels that task once and waits for
    it, so graph nodes stop at their next await.

    The execution is one OpenTelemetry workflow span and one
    ``gen_ai.workflow.duration`` measurement (see
    :mod:`langgraph_openai_serve.telemetry`), from the start of the graph to
    its final output; the span's context is current only in the graph's task.
    A run that raises, is cancelled, or whose iterator is closed before the
    final output is yielded is recorded as failed.

    Raises:
        Exception: Whatever the graph raised.
        GraphError: The final output cannot be rendered.

    """
    async with contextlib.aclosing(stream_run_batches(run, stream=stream)) as batches:
        async for batch in batches:
            for event in batch:
                yield event


def _lost(lease: Lease | None) -> bool:
    return lease is not None and lease.lost.is_set()


def _on_lease_lost(
    lease: Lease | None, action: Callable[[], object]
) -> asyncio.Task[None] | None:
    """Call ``action`` when ``lease`` is lost; cancel the returned task to stop."""
    if lease is None:
        return None

    async def watch(lost: asyncio.Event) -> None:
        await lost.wait()
        action()

    return asyncio.ensure_future(watch(lease.lost))


async def stream_run_batches(
    run: PreparedRun, *, stream: bool
) -> AsyncGenerator[list[RunEvent], None]:
    """:func:`stream_run`, yielding the events in batches.

    A batch holds the events of every stream part that was waiting when the
    consumer asked for more, so an encoder can write a burst of events as
    one response chunk; no batch waits for parts that have not arrived. The
    result (answer or interrupt batch) always comes alone, in the last batch.
    Events, order, errors, cancellation and telemetry are those of
    :func:`stream_run`.

    Raises:
        Exception: Whatever the graph raised.
        GraphError: The final output cannot be rendered.

    """
    if run.pending is not None:
        run.disposition = Disposition.RETAINED
        yield [run.pending]
        return
    modes: list[StreamMode] = list(_STREAM_MODES if stream else _VALUES_MODE)
    tracker: ServerToolTracker | None = None
    if run.request.server_tools:
        modes.append("updates")
        tracker = ServerToolTracker(run.request.server_tools)
    kwargs: dict[str, Any] = {}
    config = run.runnable_config
    graph = run.graph
    lease = run.lease
    if lease is not None and graph.checkpointer is not None:
        # Its checkpoint writes stop the moment the lease is known lost.
        saver = LeaseGuardedSaver(graph.checkpointer, lease)  # type: ignore[arg-type]
        graph = graph.copy(update={"checkpointer": saver})
    if run.interrupts:
        kwargs["durability"] = "exit"
        resuming = isinstance(run.graph_input, Command)
        # Until the graph finishes, a resume keeps the pause it answers.
        run.disposition = Disposition.RETAINED if resuming else Disposition.CLEANUP
        if run.resume_from is not None:
            config = patch_config(
                config,
                configurable={
                    **config.get("configurable", {}),
                    "checkpoint_id": run.resume_from,
                },
            )
    parts = graph.astream(
        run.graph_input,
        config=config,
        context=run.context,
        stream_mode=modes,
        # Custom (status) events written inside subgraphs reach the root
        # stream only with subgraphs=True; nested values and updates are
        # filtered out below by their namespace.
        subgraphs=stream,
        version="v2",
        **kwargs,
    )
    telemetry = WorkflowTelemetry(run.request.model)
    graph_context = telemetry.graph_context
    run_context = tracing_context(run.request)
    output: Any = None
    has_output = interrupted = False
    final: AIMessage | LangGraphInterruptBatch
    # Everything until the final output belongs to the workflow span: a
    # failure, a cancellation or a consumer closing this generator at one of
    # the yields below (GeneratorExit) ends it with an error.
    try:
        if not stream:
            loop = asyncio.get_running_loop()
            finished: asyncio.Future[None] = loop.create_future()
            task = loop.create_task(
                drain(parts, tracker, graph_context, run_context, finished),
                name=RUN_NAME,
            )
            # Also when the task is cancelled before it ever ran.
            task.add_done_callback(
                lambda _: finished.done() or finished.set_result(None)
            )
            stop = _on_lease_lost(lease, finished.cancel)
            try:
                await finished
            except asyncio.CancelledError:
                if not _lost(lease):
                    raise
            finally:
                if stop is not None:
                    stop.cancel()
                await settle(task)
            if _lost(lease):
                raise LeaseLostError
            drained = task.result()
            output, has_output = drained.output, drained.has_output
            interrupted = drained.interrupted
            if drained.events:
                yield [*drained.events]
        else:
            channel = Channel(_QUEUE_SIZE)
            task = asyncio.create_task(
                pump(parts, channel, graph_context, run_context), name=RUN_NAME
            )
            stop = _on_lease_lost(lease, lambda: channel.fail(LeaseLostError()))
            try:
                done = False
                while not done:
                    batch: list[RunEvent] = []
                    try:
                        for part in await channel.take():
                            if part is DONE:
                                done = True
                                break
                            if isinstance(part, Failure):
                                raise part.error
                            kind = part["type"]
                            if kind == "messages":
                                chunk = part["data"][0]
                                if isinstance(chunk, AIMessageChunk) and (
                                    text := chunk.text
                                ):
                                    batch.append(TextChunk(text))
                            elif kind == "values":
                                if not part["ns"]:
                                    output = part["data"]
                                    has_output = True
                                    if part.get("interrupts"):
                                        interrupted = True
                            elif kind == "custom":
                                batch.append(part)
                            elif kind == "updates" and tracker and not part["ns"]:
                                batch.extend(tracker.events(part["data"]))
                    except Exception:
                        if batch:  # what the run produced before it failed
                            yield batch
                        raise
                    if batch:
                        yield batch
            finally:
                if stop is not None:
                    stop.cancel()
                await settle(task)
        if interrupted:
            assert run.run_id is not None
            pause = await _find_pause(run.graph, run.runnable_config, run.run_id)
            if pause is None or pause.hidden:
                msg = "The graph reported interrupts but no pending state was saved."
                raise GraphError(msg)
            run.disposition = Disposition.RETAINED
            final = pause.batch
        else:
            if run.interrupts:  # finished: nothing is left to resume
                run.disposition = Disposition.CLEANUP
            if not has_output:
                msg = "The graph finished without producing output."
                raise GraphError(msg)
            if tracker is not None:
                tracker.check_complete()
            final = await run.config.render_output(output)
    except BaseException as exc:
        telemetry.fail(exc)
        raise
    # The output exists: closing the stream from here on is not a failure.
    telemetry.succeed()
    yield [final]


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


async def _run_events(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str,
    resume: InterruptResume | None,
    stream: bool,
) -> AsyncGenerator[RunEvent, None]:
    """Prepare and execute one run; its result comes last, once it is released.

    The events of :func:`stream_run`, except that the result (the answer or
    the interrupt batch) is yielded only after :func:`prepare_run` has exited:
    an interrupt run's lease is free and a finished run's checkpoint deleted
    by the time the caller sees it, so the caller may resume at once.
    """
    result: AIMessage | LangGraphInterruptBatch | None = None
    async with (
        prepare_run(
            request,
            messages,
            registry,
            checkpoint_scope=checkpoint_scope,
            resume=resume,
        ) as run,
        contextlib.aclosing(stream_run(run, stream=stream)) as events,
    ):
        async for event in events:
            if isinstance(event, AIMessage | LangGraphInterruptBatch):
                result = event  # always the last event
                break
            yield event
    if result is None:  # pragma: no cover - stream_run ends with a result or raises
        raise GraphError("The graph finished without producing output.")
    yield result


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
        InvalidRequestError: See :func:`prepare_run`.
        GraphError: Unusable graph output.

    """
    events = _run_events(
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


async def run_langgraph_stream(
    request: GraphRequest,
    messages: Sequence[BaseMessage],
    registry: GraphRegistry,
    *,
    checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
    resume: InterruptResume | None = None,
) -> AsyncIterator[RunEvent]:
    """Run a graph with streaming: text chunks, custom events, then the result.

    The last event is the answer ``AIMessage`` or a
    :class:`LangGraphInterruptBatch`, yielded once the run is released, so a
    caller may resume a paused run as soon as it receives the batch. Closing
    the iterator early cancels the graph run.

    Raises:
        InvalidRequestError: See :func:`prepare_run`.
        GraphError: Unusable graph output.

    """
    events = _run_events(
        request,
        messages,
        registry,
        checkpoint_scope=checkpoint_scope,
        resume=resume,
        stream=True,
    )
    async with contextlib.aclosing(events):
        async for event in events:
            yield event
