"""Interrupt runs, protocol-neutral: pauses, resumes and their checks.

A paused run is addressed by its *run UUID* (chosen by LGOS or the caller)
and its *checkpoint key*, ``SHA-256(scope, model, run UUID)``: the LangGraph
``thread_id``, so two scopes or models never share state. A pause is a
:class:`LangGraphInterruptBatch`; an :class:`InterruptResume` answers it by
interrupt ID. How a protocol names pauses and answers (the Responses API's
``resp_lg_`` and ``call_lg_`` IDs) and which status codes its errors get is
the adapter's business (:mod:`langgraph_openai_serve.api.responses.interrupts`):
this module raises the neutral :class:`ResumeError` kinds. A run's pause is
read from its checkpoints here too (:func:`find_pause`), both when a run is
prepared and when its execution reports interrupts. The checkpoint and
metadata keys (:mod:`~langgraph_openai_serve.graph.interrupt_keys`) and the
expiry of abandoned pauses (:mod:`~langgraph_openai_serve.graph.interrupt_expiry`)
have modules of their own and are re-exported here, the path the
specification names for :func:`delete_expired_interrupt_runs`.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from langgraph_openai_serve.graph.coordinator import (
    InMemoryRunCoordinator,
)
from langgraph_openai_serve.graph.interrupt_expiry import (
    delete_expired_interrupt_runs,
    sweep_forever,
)
from langgraph_openai_serve.graph.interrupt_keys import (
    INSTRUCTIONS_METADATA_KEY,
    OPERATION_ID_METADATA_KEY,
    REQUEST_METADATA_KEY,
    checkpoint_key,
    instructions_digest,
)

__all__ = [
    "INSTRUCTIONS_METADATA_KEY",
    "OPERATION_ID_METADATA_KEY",
    "REQUEST_METADATA_KEY",
    "InMemoryRunCoordinator",
    "InstructionsChangedError",
    "InterruptMismatchError",
    "InterruptResume",
    "LangGraphInterruptBatch",
    "MissingAnswersError",
    "NotPausedError",
    "Pause",
    "PendingInterrupt",
    "ResumeError",
    "RunIdReusedError",
    "check_resumed_instructions",
    "check_retried_request",
    "checkpoint_key",
    "delete_expired_interrupt_runs",
    "find_pause",
    "instructions_digest",
    "read_pause",
    "resume_values",
    "sweep_forever",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PendingInterrupt:
    """One pending LangGraph ``interrupt()``: its native ID and payload."""

    id: str
    value: Any


@dataclass(frozen=True, slots=True)
class LangGraphInterruptBatch:
    """A paused run: every pending interrupt, as one atomic batch.

    Attributes:
        run_id: The run UUID.
        checkpoint_key: The LangGraph ``thread_id`` of the run.
        checkpoint_id: The checkpoint generation the interrupts belong to.
        interrupts: Pending interrupts, in LangGraph's order.

    """

    run_id: uuid.UUID
    checkpoint_key: str
    checkpoint_id: str
    interrupts: tuple[PendingInterrupt, ...]


@dataclass(frozen=True, slots=True)
class InterruptResume:
    """The answers to a paused run, one per pending interrupt.

    Usage (a direct caller answering the batch it got back)::

        [pending] = batch.interrupts
        resume = InterruptResume(batch.run_id, {pending.id: "approve"})
        answer = await run_langgraph(request, [], registry, resume=resume)

    Attributes:
        run_id: The paused run's UUID.
        answers: Interrupt ID → answer, passed unchanged to ``interrupt()``.
        instructions: The resume's own system instructions, which must repeat
            the run's (see :func:`check_resumed_instructions`), or None.
        verify: An adapter's own check that the answers belong to this pause
            (the Responses adapter checks that its call IDs were issued for
            this batch's checkpoint generation); it raises
            :class:`InterruptMismatchError`. None for no extra check.

    """

    run_id: uuid.UUID
    answers: Mapping[str, Any]
    instructions: str | None = None
    verify: Callable[[LangGraphInterruptBatch], None] | None = None


class ResumeError(Exception):
    """A request a paused run cannot take; adapters map each kind to their protocol.

    Mostly a resume that does not fit the pause; :class:`RunIdReusedError` is
    a first request naming a paused run it did not start.
    """


class NotPausedError(ResumeError):
    """There is no pause to resume.

    Attributes:
        interrupts: False when the model does not run interrupt graphs at
            all, True when it does but this run finished or expired.

    """

    def __init__(self, *, interrupts: bool) -> None:
        super().__init__(
            "This run is not paused: it finished or expired."
            if interrupts
            else "This model does not pause for interrupts."
        )
        self.interrupts = interrupts


class InterruptMismatchError(ResumeError):
    """The answers name interrupts that are not pending (stale or forged)."""

    def __init__(self) -> None:
        super().__init__("The answers do not match the pending interrupts.")


class MissingAnswersError(ResumeError):
    """Some pending interrupts have no answer.

    Attributes:
        missing: How many pending interrupts are unanswered.

    """

    def __init__(self, missing: int) -> None:
        super().__init__(f"{missing} pending interrupt(s) have no answer.")
        self.missing = missing


class InstructionsChangedError(ResumeError):
    """A resume's instructions differ from those the run started with."""

    def __init__(self) -> None:
        super().__init__("A resume may repeat the run's instructions, not change them.")


class RunIdReusedError(ResumeError):
    """A first request names a paused run's UUID but is not the request that started it.

    Only a retry of the very request that started a run re-delivers its
    pause (the specification's rule on retrying with a caller-chosen run
    UUID); another request with that UUID is refused and leaves the pause as
    it was, as a reused idempotency key is.
    """

    def __init__(self) -> None:
        super().__init__(
            "This run UUID belongs to a paused run that another request started."
        )


def check_resumed_instructions(resume: InterruptResume, recorded: str | None) -> None:
    """Allow a resume to repeat the paused run's instructions, never to change them.

    OpenAI does not carry ``instructions`` over ``previous_response_id``, so
    clients such as the OpenAI Agents SDK resend an agent's instructions with
    every request, a resume included. The resumed graph continues from its
    checkpoint, so instructions it did not start with could not take effect.

    Args:
        resume: The resume; ``resume.instructions`` None means omitted.
        recorded: The run's :func:`instructions_digest`, from its checkpoint.

    Raises:
        InstructionsChangedError: The resume's instructions differ from the
            run's (or it had none).

    """
    if resume.instructions is None:
        return
    if instructions_digest(resume.instructions) != recorded:
        raise InstructionsChangedError


def check_retried_request(fingerprint: str | None, recorded: str | None) -> None:
    """Allow a first request to re-deliver a pause only if it retries the run's own.

    The specification lets a caller choose a run's UUID so that it can retry
    a lost initial request: the retry re-delivers the pending batch. A
    request with other content is not that retry, so it must not receive the
    pause (and fresh call IDs able to answer it).

    Args:
        fingerprint: The first request's fingerprint (an adapter's digest of
            what makes two requests the same), or None when it has none.
        recorded: The fingerprint kept with the pause
            (:data:`REQUEST_METADATA_KEY`), or None for a pause recorded
            without one (before LGOS kept them): then any first request
            naming the run re-delivers it, as it always did.

    Raises:
        RunIdReusedError: The pause has a fingerprint and the request's
            differs from it (or the request has none).

    """
    if recorded is not None and fingerprint != recorded:
        raise RunIdReusedError


def resume_values(
    resume: InterruptResume, batch: LangGraphInterruptBatch
) -> dict[str, Any]:
    """Check a resume against the durable pending batch; map interrupt ID → answer.

    Raises:
        InterruptMismatchError: The adapter's ``verify`` refused the answers,
            or they name an interrupt that is not pending.
        MissingAnswersError: A pending interrupt has no answer.

    """
    if resume.verify is not None:
        resume.verify(batch)
    pending = {interrupt.id for interrupt in batch.interrupts}
    if not set(resume.answers) <= pending:
        raise InterruptMismatchError
    if missing := pending - set(resume.answers):
        raise MissingAnswersError(len(missing))
    return dict(resume.answers)


# How far back a pause may hide: a cut-off resume leaves one exit checkpoint
# (exit durability), and a retry forks from the pause again.
_PAUSE_SEARCH_DEPTH = 3


@dataclass(frozen=True, slots=True)
class Pause:
    """A run's pause: its batch, the digests it keeps, and whether it is hidden.

    Attributes:
        batch: Every pending interrupt of the pause's checkpoint.
        instructions: The run's :func:`instructions_digest` recorded with the
            checkpoint (:data:`INSTRUCTIONS_METADATA_KEY`), or None.
        hidden: A later checkpoint (left by a cut-off resume) hides the pause;
            a resume forks from the pause's checkpoint.
        fingerprint: The fingerprint of the request that started the run
            (:data:`REQUEST_METADATA_KEY`), or None for a pause recorded
            without one.

    """

    batch: LangGraphInterruptBatch
    instructions: str | None
    hidden: bool
    fingerprint: str | None = None


async def find_pause(
    graph: CompiledStateGraph, config: RunnableConfig, run_id: uuid.UUID
) -> Pause | None:
    """Return the run's pause, or None when it is not paused.

    The pause is the latest checkpoint with pending interrupts: the latest
    one, or an ancestor hidden by the exit checkpoint that a cut-off resume
    wrote (a finished run has no thread left to search).

    Args:
        graph: The run's compiled graph, with its checkpointer.
        config: A config whose ``configurable.thread_id`` is the run's
            :func:`checkpoint_key`.
        run_id: The run UUID, carried into the batch.

    """
    pause, _ = await read_pause(graph, config, run_id)
    return pause


async def read_pause(
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
    metadata = snapshot.metadata or {}
    digest = metadata.get(INSTRUCTIONS_METADATA_KEY)
    fingerprint = metadata.get(REQUEST_METADATA_KEY)
    return Pause(batch, digest, hidden, fingerprint), True
