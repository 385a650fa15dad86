"""Prepare a run: graph, input, context, config; for interrupt runs, lease and pause.

:func:`prepare_spec` builds everything a graph execution needs from a
:class:`~.run_spec.RunSpec` and, for a graph declaring
``GraphFeature.INTERRUPTS``, takes the run's lease, reads its checkpoint
(:func:`~.interrupt.read_pause`) and checks a resume against the pause; on
exit it releases the lease and deletes the checkpoint thread unless a pause
is handed out (the :class:`~.prepared_run.PreparedRun`'s disposition, which
the execution changes through its ``start()``, ``retain()`` and
``finish()``). :func:`prepare_run` is the same with the spec's fields as
arguments. :class:`~.session.RunSession` is how callers use it.
"""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
from langchain_core.messages import BaseMessage
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.coordinator import Lease, LeaseLostError
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.interrupt import (
    INSTRUCTIONS_METADATA_KEY,
    REQUEST_METADATA_KEY,
    InterruptResume,
    NotPausedError,
    Pause,
    check_resumed_instructions,
    check_retried_request,
    checkpoint_key,
    find_pause,
    instructions_digest,
    read_pause,
    resume_values,
)
from langgraph_openai_serve.graph.lease_guard import LeaseSessionSaver
from langgraph_openai_serve.graph.lease_metrics import measured_lease
from langgraph_openai_serve.graph.message_ids import graph_messages
from langgraph_openai_serve.graph.prepared_run import Disposition, PreparedRun
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_config import (
    runnable_config as build_runnable_config,
)
from langgraph_openai_serve.graph.run_spec import RunSpec
from langgraph_openai_serve.graph.usage import UsageCollector

__all__ = [
    "DEFAULT_CHECKPOINT_SCOPE",
    "Disposition",  # re-exported from .prepared_run
    "Pause",  # re-exported: it lives with the interrupt code
    "PreparedRun",  # re-exported from .prepared_run
    "find_pause",  # re-exported: it lives with the interrupt code
    "prepare_run",
    "prepare_spec",
]

logger = logging.getLogger(__name__)

DEFAULT_CHECKPOINT_SCOPE = "default"
_CLEANUP_SECONDS = 10.0


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


async def _input(spec: RunSpec, config: GraphConfig, graph: CompiledStateGraph) -> Any:
    """Return a new run's graph input: its adapter's input from the messages."""
    messages = graph_messages(config, graph, spec.messages)
    return await config.build_input(spec.request, messages)


@asynccontextmanager
async def prepare_spec(
    spec: RunSpec,
    registry: GraphRegistry,
    *,
    checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
    request_id: str | None = None,
) -> AsyncIterator[PreparedRun]:
    """Prepare the run ``spec`` describes; an async context manager owning it.

    For a graph declaring ``GraphFeature.INTERRUPTS`` the context holds the
    run's coordinator lease for its whole life, reads the checkpoint, checks
    a resume against the durable pending batch, and on exit deletes the
    checkpoint thread as the run's :class:`Disposition` says: a first
    request's thread unless it handed out a batch; a resume's only once its
    graph finished (a resume cut off by a failure or a cancellation keeps the
    pause it answered). Clean-up is shielded and never replaces the original
    error.

    Args:
        spec: The run; its graph is looked up in ``registry`` if unknown
            (:meth:`~.run_spec.RunSpec.for_graph`).
        registry: Where the graph is registered, with the run coordinator.
        checkpoint_scope: Server-trusted scope of interrupt checkpoints; the
            same value must be used for the initial request and each resume.
        request_id: Correlation ID recorded in the run's config metadata.

    Yields:
        The :class:`PreparedRun`, valid until the context exits.

    Raises:
        InvalidRequestError: Unknown model (404) or invalid runtime settings.
        RunBusyError: Another holder has this run's lease.
        LeasesExhaustedError: This process holds as many leases as it may.
        ResumeError: A resume the run cannot take (see
            :func:`~langgraph_openai_serve.graph.interrupt.resume_values`):
            nothing is paused (:class:`NotPausedError`; ``interrupts=False``
            for a graph that never pauses), the answers do not match, or the
            instructions changed; or a first request naming a paused run it
            did not start (:class:`~.interrupt.RunIdReusedError`).
        GraphError: A graph factory or adapter produced something unusable.

    """
    spec = spec.for_graph(registry)
    config = spec.config
    assert config is not None
    if not checkpoint_scope:
        msg = "The checkpoint scope resolver returned an empty scope."
        raise GraphError(msg)
    if spec.request.scope != checkpoint_scope:
        # The graph sees the server-trusted scope, never one set elsewhere.
        scoped = dataclasses.replace(spec.request, scope=checkpoint_scope)
        spec = dataclasses.replace(spec, request=scoped)
    graph = await config.resolve_graph()
    context = await config.build_context(spec.request, graph)
    usage = UsageCollector()
    run = PreparedRun(
        request=spec.request,
        config=config,
        graph=graph,
        graph_input=None,
        context=context,
        runnable_config={},
        _usage=usage,
    )
    if not spec.interrupts:
        run.runnable_config = build_runnable_config(
            config, spec.request, [usage], request_id=request_id, operation_id=None
        )
        run.graph_input = await _input(spec, config, graph)
        yield run
        return
    resume = spec.resume
    run.run_id = resume.run_id if resume is not None else (spec.run_id or uuid.uuid4())
    run.runnable_config = build_runnable_config(
        config,
        spec.request,
        [usage],
        request_id=request_id,
        operation_id=str(run.run_id),
    )
    key = checkpoint_key(checkpoint_scope, spec.request.model, run.run_id)
    run.runnable_config["configurable"] = {"thread_id": key}
    lease_of_run = measured_lease(registry.run_coordinator, key, spec.request.model)
    async with lease_of_run as lease:
        run.lease = lease
        await _pause_point(run, spec, key)
        try:
            yield run
        finally:
            # A lost lease may have a new holder: write (delete) nothing more.
            if run.disposition is Disposition.CLEANUP and await _still_held(
                graph, lease
            ):
                await _delete_thread(graph, key)


async def _pause_point(run: PreparedRun, spec: RunSpec, key: str) -> None:
    """Set an interrupt run's input from its checkpoint: resume, re-deliver or start.

    A resume answers the pause (forking past a cut-off attempt that hides
    it); a first request whose run is paused re-delivers the pause
    (``run.pending``) if it retries the request that started the run (same
    fingerprint, or a pause kept without one); any other first request
    starts afresh, deleting what a dead run left. The digests of the run's
    instructions and first request go with every checkpoint it writes.

    Raises:
        ResumeError: A resume the run cannot take.
        RunIdReusedError: A first request naming a paused run it did not
            start; nothing is written.

    """
    graph, resume = run.graph, spec.resume
    assert run.run_id is not None
    pause, saved = await read_pause(graph, run.runnable_config, run.run_id)
    recorded = pause.instructions if pause is not None else None
    fingerprint = pause.fingerprint if pause is not None else None
    if resume is not None:
        if pause is None:
            # What is left, if anything, is a finished run cut off before
            # its thread was deleted: finish the clean-up now.
            if saved:
                await _delete_thread(graph, key)
            raise NotPausedError(interrupts=True)
        run.graph_input = Command(resume=resume_values(resume, pause.batch))
        check_resumed_instructions(resume, recorded)
        if pause.hidden:  # fork from the pause, past the cut-off attempt
            run.resume_from = pause.batch.checkpoint_id
    elif pause is None:
        # A leftover without pending interrupts is a dead run: start afresh.
        # (A new run's thread has nothing to delete.)
        if saved:
            await _delete_thread(graph, key)
        run.graph_input = await _input(spec, run.config, graph)
        recorded = instructions_digest(spec.instructions)
        fingerprint = spec.fingerprint
    else:
        check_retried_request(spec.fingerprint, pause.fingerprint)
        run.pending = pause.batch
    # Kept with every checkpoint of the run.
    metadata = run.runnable_config.setdefault("metadata", {})
    if recorded is not None:
        metadata[INSTRUCTIONS_METADATA_KEY] = recorded
    if fingerprint is not None:
        metadata[REQUEST_METADATA_KEY] = fingerprint


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
    fingerprint: str | None = None,
) -> AsyncIterator[PreparedRun]:
    """Prepare one graph run: :func:`prepare_spec` of the run these describe.

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
        fingerprint: A first request's fingerprint
            (:attr:`~.run_spec.RunSpec.fingerprint`): kept with a new run's
            checkpoints; a paused run named by ``run_id`` is re-delivered
            only to a request with the fingerprint it kept.

    Yields:
        The :class:`PreparedRun`, valid until the context exits.

    Raises:
        Exception: What :func:`prepare_spec` raises (unknown model, invalid
            settings, a busy lease, a resume the run cannot take, ...).

    """
    spec = RunSpec(request, messages, config, resume, run_id, instructions, fingerprint)
    prepared = prepare_spec(
        spec, registry, checkpoint_scope=checkpoint_scope, request_id=request_id
    )
    async with prepared as run:
        yield run
