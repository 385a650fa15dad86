"""Execute a prepared run: LangGraph's stream read in its own task, as run events.

The graph advances in a task of its own (see :mod:`.graph_task`), driven in
the request's response mode (:mod:`.response_modes`); this module starts the
graph's stream, hands out the protocol-neutral :data:`RunEvent` values the
adapters encode, in batches (one batch per burst of parts), turns the graph's
final values into the run's result (reading a pause back from the checkpoint
with :func:`~.interrupt.find_pause`), tells the prepared run what happened to
its checkpoint (:meth:`~.prepare.PreparedRun.start`, ``retain``, ``finish``),
and records the run's workflow telemetry.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables.config import patch_config
from langgraph.types import StreamMode

from langgraph_openai_serve.errors import GraphError, InterruptNotDeclaredError
from langgraph_openai_serve.graph.events import RunEvent, TextChunk, is_result
from langgraph_openai_serve.graph.interrupt import LangGraphInterruptBatch, find_pause
from langgraph_openai_serve.graph.lease_guard import LeaseGuardedSaver
from langgraph_openai_serve.graph.prepared_run import PreparedRun
from langgraph_openai_serve.graph.response_modes import (
    GraphDrive,
    invoked_batches,
    streamed_batches,
)
from langgraph_openai_serve.graph.run_config import run_context as tracing_context
from langgraph_openai_serve.graph.run_stop import RunStop
from langgraph_openai_serve.graph.server_tools import ServerToolTracker
from langgraph_openai_serve.telemetry import WorkflowTelemetry

__all__ = [
    "NOSTREAM_SECTION",
    "RunEvent",  # re-exported from .events
    "TextChunk",  # re-exported from .events
    "TextParity",
    "is_result",  # re-exported from .events
    "stream_run",
    "stream_run_batches",
]

_STREAM_MODES: tuple[StreamMode, ...] = ("messages", "custom", "values")
_VALUES_MODE: tuple[StreamMode, ...] = ("values",)


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


async def stream_run_batches(
    run: PreparedRun, *, stream: bool, stop: RunStop | None = None
) -> AsyncGenerator[list[RunEvent], None]:
    """:func:`stream_run`, yielding the events in batches.

    A batch holds the events of every stream part that was waiting when the
    consumer asked for more, so an encoder can write a burst of events as
    one response chunk; no batch waits for parts that have not arrived. The
    result (answer or interrupt batch) always comes alone, in the last batch.
    Events, order, errors, cancellation, ``stop`` and telemetry are those of
    :func:`stream_run`. Each response mode has a function of its own here:
    without streaming the graph is drained in its task and its events come
    in one batch; streaming, its parts are pumped through a channel.

    Raises:
        Exception: Whatever the graph raised.
        GraphError: The final output cannot be rendered.
        RunStoppedError: ``stop`` was triggered while the graph ran.

    """
    if run.pending is not None:
        run.retain()
        yield [run.pending]
        return
    tracker = (
        ServerToolTracker(run.request.server_tools)
        if run.request.server_tools
        else None
    )
    parts = _graph_stream(run, stream=stream, updates=tracker is not None)
    telemetry = WorkflowTelemetry(run.request.model)
    drive = GraphDrive(
        parts,
        run.lease,
        stop,
        tracker,
        telemetry.graph_context,
        tracing_context(run.request),
    )
    batches = streamed_batches(drive) if stream else invoked_batches(drive)
    # Everything until the final output belongs to the workflow span: a
    # failure, a cancellation or a consumer closing this generator at one of
    # the yields below (GeneratorExit) ends it with an error.
    try:
        async with contextlib.aclosing(batches):
            async for batch in batches:
                yield batch
        final = await _result(run, drive)
    except BaseException as exc:
        telemetry.fail(exc)
        raise
    # The output exists: closing the stream from here on is not a failure.
    telemetry.succeed()
    yield [final]


def _graph_stream(run: PreparedRun, *, stream: bool, updates: bool) -> Any:
    """Start the run (:meth:`~.prepare.PreparedRun.start`); return its graph stream.

    The stream modes follow the response mode (``values`` alone without
    streaming, as ``ainvoke()``), plus root ``updates`` for server tools. An
    interrupt run executes with exit durability, its checkpoint writes
    guarded by its lease, from the pause a resume forks from.
    """
    modes: list[StreamMode] = list(_STREAM_MODES if stream else _VALUES_MODE)
    if updates:
        modes.append("updates")
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
        # Until the graph finishes, a resume keeps the pause it answers.
        run.start()
        if run.resume_from is not None:
            config = patch_config(
                config,
                configurable={
                    **config.get("configurable", {}),
                    "checkpoint_id": run.resume_from,
                },
            )
    return graph.astream(
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


async def _result(
    run: PreparedRun, drive: GraphDrive
) -> AIMessage | LangGraphInterruptBatch:
    """Return the run's result once the graph stopped: its pause, or its answer.

    A pause is read back from the checkpoint (:func:`~.interrupt.find_pause`)
    and retained (:meth:`~.prepare.PreparedRun.retain`); a finished interrupt
    run's thread is deleted on close (:meth:`~.prepare.PreparedRun.finish`).

    Raises:
        InterruptNotDeclaredError: The graph paused (a node called
            ``interrupt()``) but is not registered with
            ``GraphFeature.INTERRUPTS``.
        GraphError: Interrupts without a saved pause, no output, an output
            that cannot be rendered, or a selected server-tool call without
            its result.

    """
    if drive.interrupted and run.run_id is None:
        model = run.request.model
        msg = (
            f"A node of graph {model!r} called interrupt(), but the graph is "
            "registered without GraphFeature.INTERRUPTS, so the pause cannot be "
            "resumed: add features={GraphFeature.INTERRUPTS} to its GraphConfig, "
            "compile it with a checkpointer and give the registry a run "
            "coordinator (in lgos serve's factory: "
            "builder.compile(checkpointer=resources.checkpointer) and "
            "GraphRegistry(..., run_coordinator=resources.run_coordinator)); see "
            "docs/how-to/interrupts.md."
        )
        raise InterruptNotDeclaredError(msg)
    if drive.interrupted:
        assert run.run_id is not None
        pause = await find_pause(run.graph, run.runnable_config, run.run_id)
        if pause is None or pause.hidden:
            msg = "The graph reported interrupts but no pending state was saved."
            raise GraphError(msg)
        run.retain()
        return pause.batch
    run.finish()  # nothing is left to resume
    if not drive.has_output:
        msg = "The graph finished without producing output."
        raise GraphError(msg)
    if drive.tracker is not None:
        drive.tracker.check_complete()
    return await run.config.render_output(drive.output, graph=run.request.model)


NOSTREAM_SECTION = "Getting started, 'Change a model's text before answering'"
"""Where the docs show ``TAG_NOSTREAM`` on a model call whose text a node changes."""

_EXCERPT = 60


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= _EXCERPT else text[:_EXCERPT] + "...")


class TextParity:
    """Check that streamed assistant text equals the final answer text.

    The final ``AIMessage.text`` is canonical. Adapters :meth:`add` every
    streamed chunk, then call :meth:`finish` with the final text. The
    contract fails when a node changes the text of a model call that
    streamed (``AIMessage(draft.text.upper())``): that call must be tagged
    ``TAG_NOSTREAM`` so that only the node's own answer is the text.
    """

    __slots__ = ("_nodes", "_parts")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._nodes: dict[str, None] = {}

    def add(self, text: str | TextChunk, node: str | None = None) -> None:
        """Record one streamed chunk: its text, or the :class:`TextChunk`.

        ``node`` (or the chunk's own ``node``) is the graph node that
        streamed it, named by :meth:`mismatch`.
        """
        if isinstance(text, TextChunk):
            text, node = text.text, node or text.node
        self._parts.append(text)
        if node is not None:
            self._nodes[node] = None

    @property
    def streamed(self) -> str:
        """The text streamed so far."""
        return "".join(self._parts)

    @property
    def nodes(self) -> list[str]:
        """The nodes that streamed text, in the order they first did."""
        return list(self._nodes)

    def mismatch(self, final_text: str) -> str | None:
        """Say how the streamed text breaks the contract, or None when it holds.

        The contract holds when nothing streamed or the streamed chunks
        join to ``final_text``. The message names the nodes that streamed,
        both texts (shortened), ``TAG_NOSTREAM`` and the docs section.
        """
        if not self._parts or self.streamed == final_text:
            return None
        nodes = ", ".join(repr(node) for node in self._nodes) or "an unknown node"
        noun = "nodes" if len(self._nodes) > 1 else "node"
        return (
            f"The text streamed by {noun} {nodes} ({_excerpt(self.streamed)}) "
            f"is not the final message's text ({_excerpt(final_text)}): a node "
            "that changes a model's text must call that model with "
            ".with_config(tags=[TAG_NOSTREAM]) (from langgraph.constants "
            "import TAG_NOSTREAM), so that only its own answer streams; see "
            f"{NOSTREAM_SECTION}."
        )

    def finish(self, final_text: str) -> str:
        """Return the fallback text to emit now ('' when the stream matched).

        Raises:
            GraphError: Text streamed but differs from ``final_text``; the
                message is :meth:`mismatch`'s.

        """
        if not self._parts:
            return final_text
        if (msg := self.mismatch(final_text)) is not None:
            raise GraphError(msg)
        return ""
