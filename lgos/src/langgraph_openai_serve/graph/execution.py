"""Execute a prepared run: LangGraph's stream read in its own task, as run events.

The graph advances in a task of its own (see :mod:`.graph_task`); this module
turns its stream parts into the protocol-neutral :data:`RunEvent` values the
adapters encode, in batches (one batch per burst of parts), watches the run's
lease, and records the run's workflow telemetry.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.runnables.config import patch_config
from langgraph.types import Command, StreamMode

from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.coordinator import Lease, LeaseLostError
from langgraph_openai_serve.graph.graph_task import (
    DONE,
    Channel,
    Failure,
    drain,
    pump,
    settle,
)
from langgraph_openai_serve.graph.interrupt import LangGraphInterruptBatch
from langgraph_openai_serve.graph.lease_guard import LeaseGuardedSaver
from langgraph_openai_serve.graph.prepare import Disposition, PreparedRun, find_pause
from langgraph_openai_serve.graph.run_config import RUN_NAME
from langgraph_openai_serve.graph.run_config import run_context as tracing_context
from langgraph_openai_serve.graph.run_stop import RunStop, RunStoppedError
from langgraph_openai_serve.graph.server_tools import (
    ServerToolCall,
    ServerToolResult,
    ServerToolTracker,
)
from langgraph_openai_serve.telemetry import WorkflowTelemetry

__all__ = [
    "RunEvent",
    "TextChunk",
    "TextParity",
    "is_result",
    "stream_run",
    "stream_run_batches",
]

_STREAM_MODES: tuple[StreamMode, ...] = ("messages", "custom", "values")
_VALUES_MODE: tuple[StreamMode, ...] = ("values",)
_QUEUE_SIZE = 256


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
"""What a run hands out (:meth:`~.session.RunSession.batches`,
:func:`stream_run`): text chunks and LangGraph
``CustomStreamPart`` dicts (``{"type": "custom", "ns": (...), "data": ...}``)
while streaming; server-tool calls and results when the request selected
server tools; then exactly one result: the answer ``AIMessage`` or, for a
paused interrupt run, the :class:`LangGraphInterruptBatch`."""


def is_result(event: RunEvent) -> bool:
    """Whether ``event`` is a run's result: the answer or the pause."""
    return isinstance(event, AIMessage | LangGraphInterruptBatch)


async def stream_run(
    run: PreparedRun, *, stream: bool, stop: RunStop | None = None
) -> AsyncGenerator[RunEvent, None]:
    """Execute a prepared run and yield its events.

    The building block under :class:`~.session.RunSession`: used directly
    (inside :func:`~.prepare.prepare_run`'s context), the result arrives
    while the run is still held, so a resume sent on receiving a pause would
    meet ``RunBusyError``. Prefer the session or ``run_langgraph_stream``,
    which hand the result out after the release.

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

    When ``stop`` is triggered before the graph's output is complete, the
    graph task is cancelled as for a lost lease and the run fails with
    :class:`~.run_stop.RunStoppedError`.

    Raises:
        Exception: Whatever the graph raised.
        GraphError: The final output cannot be rendered.
        RunStoppedError: ``stop`` was triggered while the graph ran.

    """
    batches = stream_run_batches(run, stream=stream, stop=stop)
    async with contextlib.aclosing(batches) as parts:
        async for batch in parts:
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


def _on_stop(stop: RunStop | None, action: Callable[[], object]) -> Callable[[], None]:
    """Call ``action`` when ``stop`` is triggered; call the returned to stop."""
    if stop is None:
        return _nothing
    return stop.subscribe(action)


def _nothing() -> None:
    return None


async def stream_run_batches(
    run: PreparedRun, *, stream: bool, stop: RunStop | None = None
) -> AsyncGenerator[list[RunEvent], None]:
    """:func:`stream_run`, yielding the events in batches.

    A batch holds the events of every stream part that was waiting when the
    consumer asked for more, so an encoder can write a burst of events as
    one response chunk; no batch waits for parts that have not arrived. The
    result (answer or interrupt batch) always comes alone, in the last batch.
    Events, order, errors, cancellation, ``stop`` and telemetry are those of
    :func:`stream_run`.

    Raises:
        Exception: Whatever the graph raised.
        GraphError: The final output cannot be rendered.
        RunStoppedError: ``stop`` was triggered while the graph ran.

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
            if lease is not None:
                lease.cover(task)
            # Also when the task is cancelled before it ever ran.
            task.add_done_callback(
                lambda _: finished.done() or finished.set_result(None)
            )
            watch = _on_lease_lost(lease, finished.cancel)
            stopped = False

            def stop_graph() -> None:
                nonlocal stopped
                stopped = finished.cancel()  # False: the graph already finished

            unsubscribe = _on_stop(stop, stop_graph)
            try:
                await finished
            except asyncio.CancelledError:
                if not (_lost(lease) or stopped):
                    raise
            finally:
                unsubscribe()
                if watch is not None:
                    watch.cancel()
                await settle(task)
            if _lost(lease):
                raise LeaseLostError
            if stopped:
                raise RunStoppedError
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
            if lease is not None:
                lease.cover(task)
            watch = _on_lease_lost(lease, lambda: channel.fail(LeaseLostError()))
            unsubscribe = _on_stop(stop, lambda: channel.fail(RunStoppedError()))
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
                unsubscribe()
                if watch is not None:
                    watch.cancel()
                await settle(task)
        if interrupted:
            assert run.run_id is not None
            pause = await find_pause(run.graph, run.runnable_config, run.run_id)
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
