"""Interrupt runs, protocol-neutral: pauses, resumes, checkpoint keys, expiry.

A paused run is addressed by its *run UUID* (chosen by LGOS or the caller)
and its *checkpoint key*, ``SHA-256(scope, model, run UUID)``: the LangGraph
``thread_id``, so two scopes or models never share state. A pause is a
:class:`LangGraphInterruptBatch`; an :class:`InterruptResume` answers it by
interrupt ID. How a protocol names pauses and answers (the Responses API's
``resp_lg_`` and ``call_lg_`` IDs) and which status codes its errors get is
the adapter's business (:mod:`langgraph_openai_serve.api.responses.interrupts`):
this module raises the neutral :class:`ResumeError` kinds.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from langgraph_openai_serve.graph.coordinator import (
    InMemoryRunCoordinator,
    RunBusyError,
    RunCoordinator,
)

__all__ = [
    "INSTRUCTIONS_METADATA_KEY",
    "OPERATION_ID_METADATA_KEY",
    "InMemoryRunCoordinator",
    "InstructionsChangedError",
    "InterruptMismatchError",
    "InterruptResume",
    "LangGraphInterruptBatch",
    "MissingAnswersError",
    "NotPausedError",
    "PendingInterrupt",
    "ResumeError",
    "check_resumed_instructions",
    "checkpoint_key",
    "delete_expired_interrupt_runs",
    "instructions_digest",
    "resume_values",
]

logger = logging.getLogger(__name__)

OPERATION_ID_METADATA_KEY = "lgos.operation_id"
"""Checkpoint metadata key marking threads LGOS created (value: run UUID)."""
INSTRUCTIONS_METADATA_KEY = "lgos.instructions_sha256"
"""Checkpoint metadata key: the SHA-256 of the instructions an interrupt run
started with (absent when it had none), so a resume may repeat them."""


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
    """A resume the run cannot take; adapters map each kind to their protocol."""


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


def checkpoint_key(scope: str, model: str, run_id: uuid.UUID) -> str:
    """Return the fixed-length thread key for a run (64 hex characters).

    The scope (server-trusted, e.g. a tenant) and the model come first, so the
    same run UUID in two scopes or models addresses two different threads.
    """
    material = f"lgos/v1\x00{len(scope)}:{scope}\x00{len(model)}:{model}\x00{run_id}"
    return hashlib.sha256(material.encode()).hexdigest()


def instructions_digest(instructions: str | None) -> str | None:
    """Return the SHA-256 hex digest of ``instructions``, or None for none."""
    if instructions is None:
        return None
    return hashlib.sha256(instructions.encode()).hexdigest()


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


async def delete_expired_interrupt_runs(
    checkpointer: BaseCheckpointSaver,
    run_coordinator: RunCoordinator,
    *,
    older_than: timedelta,
) -> int:
    """Delete paused LGOS runs whose latest checkpoint is older than ``older_than``.

    Reads every checkpoint through ``alist()``, considers only threads whose
    checkpoint metadata carries :data:`OPERATION_ID_METADATA_KEY`, skips runs
    whose lease is held, and re-checks the age under the lease before
    ``adelete_thread()``. Pattern source: LangGraph Agent Server's checkpointer
    TTL.

    Returns:
        How many runs were deleted.

    """
    cutoff = datetime.now(UTC) - older_than
    latest: dict[str, datetime] = {}
    ours: set[str] = set()
    async for item in checkpointer.alist(None):
        thread_id = item.config.get("configurable", {})["thread_id"]
        stamp = _checkpoint_time(item.checkpoint)
        if stamp is not None and (thread_id not in latest or stamp > latest[thread_id]):
            latest[thread_id] = stamp
        if OPERATION_ID_METADATA_KEY in (item.metadata or {}):
            ours.add(thread_id)
    deleted = 0
    for thread_id in sorted(ours):
        if latest.get(thread_id, cutoff) >= cutoff:
            continue
        try:
            async with run_coordinator.lease(thread_id):
                if not await _still_expired(checkpointer, thread_id, cutoff):
                    continue
                await checkpointer.adelete_thread(thread_id)
                deleted += 1
        except RunBusyError:
            continue
    return deleted


async def _still_expired(
    checkpointer: BaseCheckpointSaver, thread_id: str, cutoff: datetime
) -> bool:
    config: Any = {"configurable": {"thread_id": thread_id}}
    async for item in checkpointer.alist(config):
        stamp = _checkpoint_time(item.checkpoint)
        if stamp is None or stamp >= cutoff:
            return False
    return True


def _checkpoint_time(checkpoint: Mapping[str, Any]) -> datetime | None:
    raw = checkpoint.get("ts")
    if not isinstance(raw, str):
        return None
    with contextlib.suppress(ValueError):
        stamp = datetime.fromisoformat(raw)
        return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
    return None


async def sweep_forever(
    checkpointer: BaseCheckpointSaver,
    run_coordinator: RunCoordinator,
    *,
    older_than: timedelta,
    interval: timedelta,
) -> None:
    """Run :func:`delete_expired_interrupt_runs` every ``interval`` until cancelled.

    Sweep failures are logged and retried at the next interval.
    """
    while True:
        await asyncio.sleep(interval.total_seconds())
        try:
            count = await delete_expired_interrupt_runs(
                checkpointer, run_coordinator, older_than=older_than
            )
        except Exception:
            logger.exception("Interrupt TTL sweep failed")
        else:
            if count:
                logger.info("Interrupt TTL sweep deleted %d expired run(s)", count)
