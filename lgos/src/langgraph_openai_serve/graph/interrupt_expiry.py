"""Expiry of abandoned pauses: delete interrupt runs no client came back to.

A run paused after its batch went to the client stays in the checkpointer
until it is resumed or deleted. :func:`delete_expired_interrupt_runs` deletes
the runs whose latest pause is older than a TTL (the specification's rule,
after LangGraph Agent Server's checkpointer TTL); ``lgos serve`` runs
:func:`sweep_forever` in each API process (``LGOS_INTERRUPT_TTL_MINUTES``,
``LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES``). Both are re-exported from
:mod:`langgraph_openai_serve.graph.interrupt`, the path the specification names.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from langgraph_openai_serve.graph.coordinator import RunBusyError, RunCoordinator
from langgraph_openai_serve.graph.interrupt_keys import OPERATION_ID_METADATA_KEY

__all__ = ["delete_expired_interrupt_runs", "sweep_forever"]

logger = logging.getLogger(__name__)


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
