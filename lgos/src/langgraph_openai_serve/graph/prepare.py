"""Prepare a run: graph, input, context, config; for interrupt runs, lease and pause.

:func:`prepare_run` builds everything a graph execution needs and, for a graph
declaring ``GraphFeature.INTERRUPTS``, takes the run's lease, reads its
checkpoint (:func:`find_pause`) and checks a resume against the pause; on exit
it releases the lease and deletes the checkpoint thread unless a pause is
handed out (:class:`Disposition`). :class:`~.session.RunSession` is how
callers use it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import anyio
from langchain_core.messages import BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.coordinator import Lease, LeaseLostError
from langgraph_openai_serve.graph.interrupt import (
    INSTRUCTIONS_METADATA_KEY,
    InterruptResume,
    LangGraphInterruptBatch,
    NotPausedError,
    PendingInterrupt,
    check_resumed_instructions,
    checkpoint_key,
    instructions_digest,
    resume_values,
)
from langgraph_openai_serve.graph.lease_guard import LeaseSessionSaver
from langgraph_openai_serve.graph.lease_metrics import measured_lease
from langgraph_openai_serve.graph.message_ids import graph_messages
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.request import GraphRequest
from langgraph_openai_serve.graph.run_config import (
    runnable_config as build_runnable_config,
)
from langgraph_openai_serve.graph.usage import UsageCollector

__all__ = [
    "DEFAULT_CHECKPOINT_SCOPE",
    "Disposition",
    "Pause",
    "PreparedRun",
    "find_pause",
    "prepare_run",
]

logger = logging.getLogger(__name__)

DEFAULT_CHECKPOINT_SCOPE = "default"
_CLEANUP_SECONDS = 10.0


class Disposition(Enum):
    """What happens to an interrupt run's checkpoint when the run closes.

    A first request cleans up unless it hands out a batch; a resume keeps the
    pause it answers until it hands out a new batch or the graph finishes, so
    a resume cut off by a disconnect, a cancellation or a failure leaves the
    pause resumable, as a crash does (more than the best-effort clean-up the
    specification asks for). The run's execution
    (:func:`~.execution.stream_run_batches`) sets it as it goes.
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
class Pause:
    """A run's pause: its batch, instructions digest, and whether it is hidden."""

    batch: LangGraphInterruptBatch
    instructions: str | None  # the run's instructions digest
    hidden: bool  # a later checkpoint (of a cut-off resume) hides it


async def find_pause(
    graph: CompiledStateGraph, config: RunnableConfig, run_id: uuid.UUID
) -> Pause | None:
    """Return the run's pause, or None when it is not paused.

    The pause is the latest checkpoint with pending interrupts: the latest
    one, or an ancestor hidden by the exit checkpoint that a cut-off resume
    wrote (a finished run has no thread left to search).
    """
    pause, _ = await _read_thread(graph, config, run_id)
    return pause


async def _read_thread(
    graph: CompiledStateGraph, config: RunnableConfig, run_id: uuid.UUID
) -> tuple[Pause | None, bool]:
    """Return :func:`find_pause`'s answer, and whether the thread has a checkpoint.

    The second value is False when the thread has no root checkpoint at all:
    a new run, or one whose thread was deleted.
    """
    snapshot = await graph.aget_state(config)
    if snapshot.created_at is None:  # LangGraph's snapshot of no checkpoint
        return None, False
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
        return None, True
    batch = LangGraphInterruptBatch(
        run_id=run_id,
        checkpoint_key=config.get("configurable", {})["thread_id"],
        checkpoint_id=snapshot.config.get("configurable", {})["checkpoint_id"],
        interrupts=tuple(PendingInterrupt(i.id, i.value) for i in snapshot.interrupts),
    )
    digest = (snapshot.metadata or {}).get(INSTRUCTIONS_METADATA_KEY)
    return Pause(batch, digest, hidden), True


async def _still_held(graph: CompiledStateGraph, lease: Lease | None) -> bool:
    """Whether the run may still delete its thread; shielded, as clean-up must be.

    A checkpointer deleting on the lease's own session
    (:class:`~.lease_guard.LeaseSessionSaver`) needs no check: its deletion
    cannot land once the session ended and freed the lease, and fails (marking
    the lease lost) instead. Any other asks the lease now.
    """
    if lease is None:
        return True
    if lease.lost.is_set():
        return False
    saver = graph.checkpointer
    if isinstance(saver, LeaseSessionSaver) and saver.writes_on_lease(lease):
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
        except LeaseLostError:  # its session ended: another holder decides
            logger.warning(
                "Did not delete checkpoint thread %s: the run lost its lease",
                thread_id[:12],
            )
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
    config: GraphConfig | None = None,
) -> AsyncIterator[PreparedRun]:
    """Prepare one graph run; an async context manager owning its resources.

    For a graph declaring ``GraphFeature.INTERRUPTS`` the context holds the
    run's coordinator lease for its whole life, reads the checkpoint, checks
    a ``resume`` against the durable pending batch, and on exit deletes the
    checkpoint thread as the run's :class:`Disposition` says: a first
    request's thread unless it handed out a batch; a resume's only once its
    graph finished (a resume cut off by a failure or a cancellation keeps the
    pause it answered). Clean-up is shielded and never replaces the original
    error.

    Args:
        request: The normalized request; ``request.model`` selects the graph.
        messages: The conversation as LangChain messages (unused on resume).
        registry: Where the graph is registered.
        checkpoint_scope: Server-trusted scope of interrupt checkpoints; the
            same value must be used for the initial request and each resume.
        resume: The answers for a paused run, or None.
        run_id: The run UUID of a new interrupt run (random when None).
        request_id: Correlation ID recorded in the run's config metadata.
        instructions: The client's system instructions of a new interrupt
            run: their digest is kept with the run's checkpoints, so that a
            resume may repeat them (``resume.instructions``) but not change
            them.
        config: ``request.model``'s registered graph, when the caller
            already looked it up (an adapter's decoder does).

    Yields:
        The :class:`PreparedRun`, valid until the context exits.

    Raises:
        InvalidRequestError: Unknown model (404) or invalid runtime settings.
        RunBusyError: Another holder has this run's lease.
        LeasesExhaustedError: This process holds as many leases as it may.
        ResumeError: A resume the run cannot take (see
            :func:`~langgraph_openai_serve.graph.interrupt.resume_values`):
            nothing is paused (:class:`NotPausedError`), the answers do not
            match, or the instructions changed.
        GraphError: A graph factory or adapter produced something unusable.

    """
    config = config or registry.get_graph(request.model)
    interrupts = config.supports(GraphFeature.INTERRUPTS)
    if resume is not None and not interrupts:
        raise NotPausedError(interrupts=False)
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
            graph_input=await config.build_input(
                request, graph_messages(config, graph, messages)
            ),
            context=context,
            runnable_config=runnable_config,
            _usage=usage,
        )
        return

    assert run_id is not None
    key = checkpoint_key(checkpoint_scope, request.model, run_id)
    runnable_config["configurable"] = {"thread_id": key}
    async with AsyncExitStack() as stack:
        lease = await stack.enter_async_context(
            measured_lease(registry.run_coordinator, key, request.model)
        )
        pause, saved = await _read_thread(graph, runnable_config, run_id)
        pending = pause.batch if pause is not None else None
        recorded = pause.instructions if pause is not None else None
        resume_from = None
        if resume is not None:
            if pause is None:
                # What is left, if anything, is a finished run cut off before
                # its thread was deleted: finish the clean-up now.
                if saved:
                    await _delete_thread(graph, key)
                raise NotPausedError(interrupts=True)
            graph_input: Any = Command(resume=resume_values(resume, pause.batch))
            check_resumed_instructions(resume, recorded)
            if pause.hidden:  # fork from the pause, past the cut-off attempt
                resume_from = pause.batch.checkpoint_id
            pending = None
        elif pending is None:
            # A leftover without pending interrupts is a dead run: start afresh.
            # (A new run's thread has nothing to delete.)
            if saved:
                await _delete_thread(graph, key)
            graph_input = await config.build_input(
                request, graph_messages(config, graph, messages)
            )
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
            if run.disposition is Disposition.CLEANUP and await _still_held(
                graph, lease
            ):
                await _delete_thread(graph, key)
