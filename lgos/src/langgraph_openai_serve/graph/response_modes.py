"""A run's graph task in each response mode: drained, or streamed in bursts.

:func:`invoked_batches` (no streaming) drains the graph in its task
(:func:`~.graph_task.drain`) and hands its events out once;
:func:`streamed_batches` reads the parts the task pumps through a
:class:`~.graph_task.Channel`, one batch per burst. Both watch the run's
lease and stop switch, and leave the graph's root values in an
:class:`Outcome` for the execution (:mod:`.execution`) to turn into the
run's result.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessageChunk

from langgraph_openai_serve.graph.coordinator import Lease, LeaseLostError
from langgraph_openai_serve.graph.events import RunEvent, TextChunk
from langgraph_openai_serve.graph.graph_task import (
    DONE,
    Channel,
    Failure,
    drain,
    pump,
    settle,
)
from langgraph_openai_serve.graph.run_config import RUN_NAME
from langgraph_openai_serve.graph.run_stop import RunStop, RunStoppedError
from langgraph_openai_serve.graph.server_tools import ServerToolTracker

__all__ = ["Outcome", "TaskContexts", "invoked_batches", "streamed_batches"]

_QUEUE_SIZE = 256


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


@dataclass(slots=True)
class Outcome:
    """What the graph's root ``values`` left: the output, and whether it paused.

    Attributes:
        output: The last root ``values`` part's data (the graph's state).
        has_output: Whether any root ``values`` part arrived.
        interrupted: Whether a root ``values`` part reported interrupts.

    """

    output: Any = None
    has_output: bool = False
    interrupted: bool = False


@dataclass(frozen=True, slots=True)
class TaskContexts:
    """The contexts the graph's own task runs in.

    Attributes:
        graph_context: The workflow span's context (the run's
            ``WorkflowTelemetry.graph_context``).
        run_context: The request's tracing context
            (:func:`~.run_config.run_context`).

    """

    graph_context: Any
    run_context: Any


async def invoked_batches(
    parts: Any,
    lease: Lease | None,
    stop: RunStop | None,
    tracker: ServerToolTracker | None,
    contexts: TaskContexts,
    outcome: Outcome,
) -> AsyncGenerator[list[RunEvent], None]:
    """Without streaming: drain the graph in its task, then one batch of events.

    The only events are server-tool calls and results, in order, once the
    graph finished; ``outcome`` receives the root values.

    Args:
        parts: The graph's ``astream(..., version="v2")`` iterator, not yet
            started; the graph's task reads it.
        lease: The run's lease: its loss stops the graph
            (``LeaseLostError``), and the lease covers the graph's task.
        stop: The run's stop switch, or None.
        tracker: The server-tool tracker of a request selecting server
            tools, or None.
        contexts: The contexts the graph's task runs in.
        outcome: Receives the graph's root values.

    Raises:
        LeaseLostError: The run's lease was lost while the graph ran.
        RunStoppedError: ``stop`` was triggered while the graph ran.

    """
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()
    task = loop.create_task(
        drain(parts, tracker, contexts.graph_context, contexts.run_context, finished),
        name=RUN_NAME,
    )
    if lease is not None:
        lease.cover(task)
    # Also when the task is cancelled before it ever ran.
    task.add_done_callback(lambda _: finished.done() or finished.set_result(None))
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
    outcome.output, outcome.has_output = drained.output, drained.has_output
    outcome.interrupted = drained.interrupted
    if drained.events:
        yield [*drained.events]


async def streamed_batches(
    parts: Any,
    lease: Lease | None,
    stop: RunStop | None,
    tracker: ServerToolTracker | None,
    contexts: TaskContexts,
    outcome: Outcome,
) -> AsyncGenerator[list[RunEvent], None]:
    """Streaming: the graph pumps its parts through a channel; a batch a burst.

    ``messages`` parts become :class:`TextChunk` events, ``custom`` parts
    pass as they are, root ``updates`` become server-tool events, and root
    ``values`` go to ``outcome``. What the run produced before it failed is
    yielded before the error.

    Args:
        parts: The graph's ``astream(..., version="v2")`` iterator, not yet
            started; the graph's task reads it.
        lease: The run's lease: its loss stops the graph
            (``LeaseLostError``), and the lease covers the graph's task.
        stop: The run's stop switch, or None.
        tracker: The server-tool tracker of a request selecting server
            tools, or None.
        contexts: The contexts the graph's task runs in.
        outcome: Receives the graph's root values.

    Raises:
        Exception: Whatever the graph raised.
        LeaseLostError: The run's lease was lost while the graph ran.
        RunStoppedError: ``stop`` was triggered while the graph ran.

    """
    channel = Channel(_QUEUE_SIZE)
    task = asyncio.create_task(
        pump(parts, channel, contexts.graph_context, contexts.run_context),
        name=RUN_NAME,
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
                    _take_part(part, batch, tracker, outcome)
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


def _take_part(
    part: Any,
    batch: list[RunEvent],
    tracker: ServerToolTracker | None,
    outcome: Outcome,
) -> None:
    """Add one streamed part's events to ``batch``; root values to ``outcome``."""
    kind = part["type"]
    if kind == "messages":
        chunk = part["data"][0]
        if isinstance(chunk, AIMessageChunk) and (text := chunk.text):
            batch.append(TextChunk(text))
    elif kind == "values":
        if not part["ns"]:
            outcome.output = part["data"]
            outcome.has_output = True
            if part.get("interrupts"):
                outcome.interrupted = True
    elif kind == "custom":
        batch.append(part)
    elif kind == "updates" and tracker and not part["ns"]:
        batch.extend(tracker.events(part["data"]))
