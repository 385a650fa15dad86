"""LangGraph's stream read in a task of its own, and its hand-off to the runner.

Every run reads LangGraph's stream in its own asyncio task (the integration
contract): cancelling the consumer, through asyncio or AnyIO, then cancels
the graph exactly once (:func:`settle`). With streaming, :func:`pump` hands
the parts over through a :class:`Channel` that the consumer empties a burst
at a time; without, :func:`drain` keeps only what the result needs.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import anyio
from opentelemetry import context as otel_context

from langgraph_openai_serve.graph.server_tools import (
    ServerToolCall,
    ServerToolResult,
    ServerToolTracker,
)

__all__ = [
    "CANCEL_GRACE_SECONDS",
    "DONE",
    "Channel",
    "Drained",
    "Failure",
    "drain",
    "enter_graph_context",
    "pump",
    "settle",
]

CANCEL_GRACE_SECONDS = 10.0
"""How long a cancelled consumer waits for the graph task to stop."""


class Failure:
    """An exception of the graph task, handed to the consumer to re-raise."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


DONE = object()
"""Put on the channel after the last part of a run that did not fail."""


class Channel:
    """A bounded hand-off of stream parts from the graph task to its consumer.

    The consumer takes every waiting part at once, so a burst of parts costs
    one wake-up rather than one per part; the graph task waits only while
    ``limit`` parts are waiting.
    """

    __slots__ = ("_items", "_limit", "_loop", "_reader", "_writer")

    def __init__(self, limit: int) -> None:
        self._items: collections.deque[Any] = collections.deque()
        self._limit = limit
        self._loop = asyncio.get_running_loop()
        self._reader: asyncio.Future[None] | None = None
        self._writer: asyncio.Future[None] | None = None

    async def put(self, item: Any) -> None:
        """Append ``item``, first waiting while the channel is full."""
        while len(self._items) >= self._limit:
            self._writer = self._loop.create_future()
            await self._writer
        self._items.append(item)
        if (reader := self._reader) is not None:
            self._reader = None
            if not reader.done():
                reader.set_result(None)

    def fail(self, error: BaseException) -> None:
        """Hand ``error`` to the consumer now, past any limit (it re-raises it)."""
        self._items.append(Failure(error))
        if (reader := self._reader) is not None:
            self._reader = None
            if not reader.done():
                reader.set_result(None)

    async def take(self) -> collections.deque[Any]:
        """Wait for at least one part; return (and remove) all waiting parts."""
        while not self._items:
            self._reader = self._loop.create_future()
            await self._reader
        items, self._items = self._items, collections.deque()
        if (writer := self._writer) is not None:
            self._writer = None
            if not writer.done():
                writer.set_result(None)
        return items


def enter_graph_context(
    graph_context: otel_context.Context | None,
    run_context: Callable[[], AbstractContextManager[object]] | None,
) -> AbstractContextManager[object]:
    """Make the workflow span's context current in the graph's task.

    The task's context is a copy that ends with the task: no detach. Returns
    Langfuse's run-attribute context to enter around the graph, if any.
    """
    if graph_context is not None:
        otel_context.attach(graph_context)
    return run_context() if run_context is not None else contextlib.nullcontext()


async def pump(
    parts: AsyncIterator[Any],
    channel: Channel,
    graph_context: otel_context.Context | None,
    run_context: Callable[[], AbstractContextManager[object]] | None,
) -> None:
    """Read LangGraph's stream in its own task and hand parts to the consumer.

    The graph advances in this task, so the workflow span's context (and
    Langfuse's run attributes) are attached here, never in the consumer's.
    """
    try:
        with enter_graph_context(graph_context, run_context):
            async with contextlib.aclosing(parts):  # type: ignore[type-var]
                async for part in parts:
                    await channel.put(part)
    except Exception as exc:  # handed to the consumer, which re-raises it
        await channel.put(Failure(exc))
    else:
        await channel.put(DONE)


@dataclass(slots=True)
class Drained:
    """What a run without streaming produced: its last root values and events."""

    output: Any = None
    has_output: bool = False
    interrupted: bool = False
    events: list[ServerToolCall | ServerToolResult] = field(default_factory=list)


async def drain(
    parts: AsyncIterator[Any],
    tracker: ServerToolTracker | None,
    graph_context: otel_context.Context | None,
    run_context: Callable[[], AbstractContextManager[object]] | None,
    finished: asyncio.Future[None],
) -> Drained:
    """Run a graph without streaming in its own task; keep only what counts.

    Root ``values`` replace each other (the last is the output, as in
    ``ainvoke()``); root ``updates`` go through the server-tool tracker as
    they arrive, so a rule violation stops the graph at once. Parts are not
    handed over one by one: ``finished`` wakes the consumer, which reads the
    task's result, as the task ends (one event-loop step sooner than the
    task's own completion callbacks would).
    """
    try:
        drained = Drained()
        with enter_graph_context(graph_context, run_context):
            async with contextlib.aclosing(parts):  # type: ignore[type-var]
                async for part in parts:
                    if part["ns"]:
                        continue
                    kind = part["type"]
                    if kind == "values":
                        drained.output = part["data"]
                        drained.has_output = True
                        if part.get("interrupts"):
                            drained.interrupted = True
                    elif kind == "updates" and tracker is not None:
                        drained.events.extend(tracker.events(part["data"]))
        return drained
    finally:
        if not finished.done():
            finished.set_result(None)


async def settle(task: asyncio.Task[Any]) -> None:
    """Cancel an unfinished graph task once and wait for it to stop.

    Shielded: a cancelled consumer (asyncio or AnyIO, whose cancellation
    repeats at every await) still waits for the graph task to finish.
    """
    if not task.done():
        task.cancel()
        with anyio.move_on_after(CANCEL_GRACE_SECONDS, shield=True):
            await asyncio.wait((task,))
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: an error while stopping is not logged
