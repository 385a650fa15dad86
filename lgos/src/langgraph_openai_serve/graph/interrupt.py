"""Interrupt identity: checkpoint keys, opaque Response and call IDs, expiry.

A paused run is addressed by three values:

- the *run UUID*, chosen by LGOS or by the caller (``metadata.lgos_run_id``);
- the *checkpoint key*, ``SHA-256(scope, model, run UUID)`` — the LangGraph
  ``thread_id``, so two scopes or models never share state;
- per Response, a random *nonce*. The Response ID is
  ``resp_lg_<run UUID hex>_<nonce>``; each call ID is
  ``call_lg_<token>_<nonce>_<interrupt id>``, where the token binds the call to
  the checkpoint key, the nonce, the exact checkpoint generation and the
  interrupt, so a stale, forged or mixed call ID never validates.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.coordinator import (
    InMemoryRunCoordinator,
    RunBusyError,
    RunCoordinator,
)

__all__ = [
    "INSTRUCTIONS_METADATA_KEY",
    "INTERRUPT_FUNCTION_NAME",
    "NOT_A_PAUSE",
    "OPERATION_ID_METADATA_KEY",
    "RUN_ID_METADATA_KEY",
    "InMemoryRunCoordinator",
    "InterruptResume",
    "LangGraphInterruptBatch",
    "PendingInterrupt",
    "check_resumed_instructions",
    "checkpoint_key",
    "delete_expired_interrupt_runs",
    "instructions_digest",
    "interrupt_call_id",
    "interrupt_response_id",
    "new_nonce",
    "parse_interrupt_response_id",
    "parse_run_id",
]

logger = logging.getLogger(__name__)

INTERRUPT_FUNCTION_NAME = "lgos_interrupt"
OPERATION_ID_METADATA_KEY = "lgos.operation_id"
"""Checkpoint metadata key marking threads LGOS created (value: run UUID)."""
RUN_ID_METADATA_KEY = "lgos_run_id"
"""Request metadata key for a caller-chosen run UUID."""
NOT_A_PAUSE = (
    "previous_response_id only resumes a paused interrupt run (a resp_lg_ Response "
    "ending in lgos_interrupt calls). LGOS stores no conversations: send the earlier "
    "items in input instead, and turn off automatic response chaining for this model."
)
"""The message of a ``previous_response_id`` that names no pause."""
INSTRUCTIONS_METADATA_KEY = "lgos.instructions_sha256"
"""Checkpoint metadata key: the SHA-256 of the instructions an interrupt run
started with (absent when it had none), so a resume may repeat them."""

_RESPONSE_ID = re.compile(r"^resp_lg_([0-9a-f]{32})_([0-9a-f]{32})$")
_CALL_ID = re.compile(r"^call_lg_([0-9a-f]{64})_([0-9a-f]{32})_([0-9A-Za-z-]{1,64})$")


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
    """A decoded resume: the paused Response and one answer per call ID.

    Attributes:
        run_id: The run UUID from ``previous_response_id``.
        nonce: The Response nonce from ``previous_response_id``.
        answers: Call ID → output string (passed unchanged to ``interrupt()``).

    """

    run_id: uuid.UUID
    nonce: str
    answers: Mapping[str, str]
    instructions: str | None = None
    """The resume's own instructions, which must repeat the run's (or None)."""


def checkpoint_key(scope: str, model: str, run_id: uuid.UUID) -> str:
    """Return the fixed-length thread key for a run (64 hex characters).

    The scope (server-trusted, e.g. a tenant) and the model come first, so the
    same run UUID in two scopes or models addresses two different threads.
    """
    material = f"lgos/v1\x00{len(scope)}:{scope}\x00{len(model)}:{model}\x00{run_id}"
    return hashlib.sha256(material.encode()).hexdigest()


def new_nonce() -> str:
    """Return a random 32-hex-digit Response nonce."""
    return secrets.token_hex(16)


def interrupt_response_id(run_id: uuid.UUID, nonce: str) -> str:
    """Return the Response ID of a run: ``resp_lg_<run hex>_<nonce>``."""
    return f"resp_lg_{run_id.hex}_{nonce}"


def _token(key: str, nonce: str, checkpoint_id: str, interrupt_id: str) -> str:
    material = f"{key}\x00{nonce}\x00{checkpoint_id}\x00{interrupt_id}"
    return hashlib.sha256(material.encode()).hexdigest()


def interrupt_call_id(
    batch: LangGraphInterruptBatch, nonce: str, interrupt_id: str
) -> str:
    """Return the call ID binding ``interrupt_id`` to this Response and generation."""
    token = _token(batch.checkpoint_key, nonce, batch.checkpoint_id, interrupt_id)
    return f"call_lg_{token}_{nonce}_{interrupt_id}"


def parse_interrupt_response_id(response_id: str) -> tuple[uuid.UUID, str]:
    """Return ``(run UUID, nonce)`` of a paused Response ID.

    Raises:
        InvalidRequestError: 400, ``param="previous_response_id"``.

    """
    match = _RESPONSE_ID.match(response_id)
    if match is None:
        raise InvalidRequestError(
            NOT_A_PAUSE,
            param="previous_response_id",
        )
    run_id = uuid.UUID(match.group(1))
    if run_id.int == 0:
        raise InvalidRequestError(
            NOT_A_PAUSE,
            param="previous_response_id",
        )
    return run_id, match.group(2)


def parse_call_id(call_id: str, *, param: str) -> tuple[str, str, str]:
    """Return ``(token, nonce, interrupt id)`` of an interrupt call ID.

    Raises:
        InvalidRequestError: 400 with ``param``.

    """
    match = _CALL_ID.match(call_id)
    if match is None:
        raise InvalidRequestError(
            f"'{call_id}' is not an interrupt call ID of this run.", param=param
        )
    return match.group(1), match.group(2), match.group(3)


def parse_run_id(value: str) -> uuid.UUID:
    """Validate a caller-chosen run UUID (``metadata.lgos_run_id``).

    Raises:
        InvalidRequestError: 400 when it is not a non-nil UUID.

    """
    try:
        run_id = uuid.UUID(value)
    except ValueError:
        run_id = None
    if run_id is None or run_id.int == 0:
        raise InvalidRequestError(
            "metadata.lgos_run_id must be a non-nil UUID.",
            param=f"metadata.{RUN_ID_METADATA_KEY}",
        )
    return run_id


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
        InvalidRequestError: 400 with ``param="instructions"`` when the
            resume's instructions differ from the run's (or it had none).

    """
    if resume.instructions is None:
        return
    if instructions_digest(resume.instructions) != recorded:
        raise InvalidRequestError(
            "A resume may repeat the paused run's instructions but not change "
            "them; send them unchanged or omit them.",
            param="instructions",
        )


def conflict(message: str) -> InvalidRequestError:
    """Return a 409 ``interrupt_state_conflict`` error with ``message``."""
    return InvalidRequestError(
        message,
        code="interrupt_state_conflict",
        status_code=409,
        param="previous_response_id",
    )


def resume_command_values(
    resume: InterruptResume, batch: LangGraphInterruptBatch
) -> dict[str, str]:
    """Check a resume against the durable pending batch; map interrupt ID → answer.

    Raises:
        InvalidRequestError: 400 for calls of another Response
            (``previous_response_id``) or missing answers (``input``);
            409 ``interrupt_state_conflict`` for stale, forged or
            non-matching calls.

    """
    pending = {interrupt.id for interrupt in batch.interrupts}
    values: dict[str, str] = {}
    for index, (call_id, output) in enumerate(resume.answers.items()):
        token, nonce, interrupt_id = parse_call_id(
            call_id, param=f"input[{index}].call_id"
        )
        if nonce != resume.nonce:
            raise InvalidRequestError(
                "The call IDs belong to another Response than previous_response_id.",
                param="previous_response_id",
            )
        expected = _token(
            batch.checkpoint_key, nonce, batch.checkpoint_id, interrupt_id
        )
        if interrupt_id not in pending or not secrets.compare_digest(token, expected):
            raise conflict("The answered calls do not match the pending interrupts.")
        values[interrupt_id] = output
    if missing := pending - set(values):
        raise InvalidRequestError(
            f"Answer every pending interrupt; {len(missing)} call(s) have no output.",
            param="input",
        )
    return values


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
