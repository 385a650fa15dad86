"""Storage migrations, run once by processes starting together (extra ``postgres``).

:func:`setup_storage` runs the ``setup()`` calls of LangGraph's PostgreSQL
checkpointer and store (and the run coordinator's lease table) under one
schema advisory lock; :func:`advisory_lock_id` maps a key to the advisory
lock ID, for that lock and the run coordinator's leases.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

try:
    from psycopg_pool import AsyncConnectionPool
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[postgres] for PostgreSQL support."
    raise ImportError(msg) from exc

__all__ = ["advisory_lock_id", "setup_storage"]

_MIGRATION_LOCK = "lgos/migrations"


def advisory_lock_id(key: str) -> int:
    """Map a lease key to PostgreSQL's signed 64-bit advisory-lock ID."""
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


async def setup_storage(
    pool: AsyncConnectionPool[Any],
    setups: Sequence[Callable[[], Awaitable[Any]]],
    *,
    wait_seconds: float = 120.0,
) -> None:
    """Run storage migrations (``setup()`` calls) once across starting processes.

    Holds a separate schema advisory lock taken with ``pg_try_advisory_lock``
    and retried: LangGraph's migrations use ``CREATE INDEX CONCURRENTLY``,
    which deadlocks with a session blocked in ``pg_advisory_lock``.

    Raises:
        TimeoutError: Another process held the migration lock for
            ``wait_seconds``.

    """
    lock_id = advisory_lock_id(_MIGRATION_LOCK)
    deadline = time.monotonic() + wait_seconds
    async with pool.connection() as connection:
        while True:
            cursor = await connection.execute(
                "select pg_try_advisory_lock(%s) as locked", (lock_id,)
            )
            row = await cursor.fetchone()
            if row and row["locked"]:  # type: ignore[call-overload]
                break
            if time.monotonic() > deadline:
                msg = "Timed out waiting for another process's migrations."
                raise TimeoutError(msg)
            await asyncio.sleep(0.2)
        try:
            for setup in setups:
                await setup()
        finally:
            await connection.execute("select pg_advisory_unlock(%s)", (lock_id,))
