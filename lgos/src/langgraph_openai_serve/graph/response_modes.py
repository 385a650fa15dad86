"""A run's graph task in each response mode: drained, or streamed in bursts.

:func:`invoked_batches` (no streaming) drains the graph in its task
(:func:`~.graph_task.drain`) and hands its events out once;
:func:`streamed_batches` reads the parts the task pumps through a
:class:`~.graph_task.Channel`, one batch per burst. Both drive one
:class:`GraphDrive`: they watch its lease and stop switch, and leave the
graph's root values in it for the execution (:mod:`.execution`) to turn into
the run's result.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
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

__all__ = ["GraphDrive", "invoked_batches", "streamed_batches"]

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


@contextlib.asynccontextmanager
async def _watched(
    task: asyncio.Task[Any],
    lease: Lease | None,
    on_lost: Callable[[], object],
    stop: RunStop | None,
    on_stop: Callable[[], object],
) -> AsyncIterator[None]:
    """Watch the graph's task: ``on_lost`` when the lease is lost, ``on_stop``.

    On exit, however it comes, the watches end and the task is settled
    (:func:`~.graph_task.settle`: cancelled once if still running, awaited).
    """
    watch = _on_lease_lost(lease, on_lost)
    unsubscribe = _on_stop(stop, on_stop)
    try:
        yield
    finally:
        unsubscribe()
        if watch is not None:
            watch.cancel()
        await settle(task)


@dataclass(slots=True)
class GraphDrive:
    """A graph task to drive in a response mode, and what its root values left.

    Attributes:
        parts: The graph's ``astream(..., version="v2")`` iterator, not yet
            started; the graph's task reads it.
        lease: The run's lease, or None: its loss stops the graph
            (``LeaseLostError``), and it covers the graph's task.
        stop: The run's stop switch, or None (``RunStoppedError``).
        tracker: The server-tool tracker of a request selecting server
            tools, or None.
        graph_context: The workflow span's context (the run's
            ``WorkflowTelemetry.graph_context``).
        run_context: The request's tracing context
            (:func:`~.run_config.run_context`).
        output: The last root ``values`` part's data (the graph's state).
        has_output: Whether any root ``values`` part arrived.
        interrupted: Whether a root ``values`` part reported interrupts.

    """

    parts: Any
    lease: Lease | None
    stop: RunStop | None
    tracker: ServerToolTracker | None
    graph_context: Any
    run_context: Any
    output: Any = None
    has_output: bool = False
    interrupted: bool = False


async def invoked_batches(drive: GraphDrive) -> AsyncGenerator[list[RunEvent], None]:
    """Without streaming: drain the graph in its task, then one batch of events.

    The only events are server-tool calls and results, in order, once the
    graph finished; ``drive`` receives the root values.

    Raises:
        LeaseLostError: The run's lease was lost while the graph ran.
        RunStoppedError: The run's stop switch was triggered while the graph
            ran.

    """
    lease, stop = drive.lease, drive.stop
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()
    task = loop.create_task(
        drain(
            drive.parts,
            drive.tracker,
            drive.graph_context,
            drive.run_context,
            finished,
        ),
        name=RUN_NAME,
    )
    if lease is not None:
        lease.cover(task)
    # Also when the task is cancelled before it ever ran.
    task.add_done_callback(lambda _: finished.done() or finished.set_result(None))
    stopped = False

    def stop_graph() -> None:
        nonlocal stopped
        stopped = finished.cancel()  # False: the graph already finished

    async with _watched(task, lease, finished.cancel, stop, stop_graph):
        try:
            await finished
        except asyncio.CancelledError:
            if not (_lost(lease) or stopped):
                raise
    if _lost(lease):
        raise LeaseLostError
    if stopped:
        raise RunStoppedError
    drained = task.result()
    drive.output, drive.has_output = drained.output, drained.has_output
    drive.interrupted = drained.interrupted
    if drained.events:
        yield [*drained.events]


async def streamed_batches(drive: GraphDrive) -> AsyncGenerator[list[RunEvent], None]:
    """Streaming: the graph pumps its parts through a channel; a batch a burst.

    ``messages`` parts become :class:`TextChunk` events, ``custom`` parts
    pass as they are, root ``updates`` become server-tool events, and root
    ``values`` go to ``drive``. What the run produced before it failed is
    yielded before the error.

    Raises:
        Exception: Whatever the graph raised.
        LeaseLostError: The run's lease was lost while the graph ran.
        RunStoppedError: The run's stop switch was triggered while the graph
            ran.

    """
    lease, stop = drive.lease, drive.stop
    channel = Channel(_QUEUE_SIZE)
    task = asyncio.create_task(
        pump(drive.parts, channel, drive.graph_context, drive.run_context),
        name=RUN_NAME,
    )
    if lease is not None:
        lease.cover(task)

    def lost() -> None:
        channel.fail(LeaseLostError())

    def stopped() -> None:
        channel.fail(RunStoppedError())

    async with _watched(task, lease, lost, stop, stopped):
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
                    _take_part(part, batch, drive)
            except Exception:
                if batch:  # what the run produced before it failed
                    yield batch
                raise
            if batch:
                yield batch


def _take_part(part: Any, batch: list[RunEvent], drive: GraphDrive) -> None:
    """Add one streamed part's events to ``batch``; root values to ``drive``."""
    kind = part["type"]
    if kind == "messages":
        chunk, metadata = part["data"]
        if isinstance(chunk, AIMessageChunk) and (text := chunk.text):
            batch.append(TextChunk(text, metadata.get("langgraph_node")))
    elif kind == "values":
        if not part["ns"]:
            drive.output = part["data"]
            drive.has_output = True
            if part.get("interrupts"):
                drive.interrupted = True
    elif kind == "custom":
        batch.append(part)
    elif kind == "updates" and drive.tracker and not part["ns"]:
        batch.extend(drive.tracker.events(part["data"]))
