"""The durable record of a run lease: who holds it, and whether they stopped.

An advisory lock says who holds a lease now, but it vanishes with its
session, and says nothing about a holder whose session ended under it: that
holder may still be running the graph until its next check notices the loss.
The table ``lgos_run_leases`` keeps what the lock cannot: one row per lease
whose holder has not yet been seen to stop.

- Taking the lock writes the holder's row in the same statement
  (:data:`TAKE_SQL`): ``pg_try_advisory_lock`` guards an upsert, so only the
  lock's new holder writes. Finding a row there means the previous holder
  lost its session without releasing; the upsert returns that holder's
  ``stop_seconds``, the longest it may run on after its session ended.
- A clean release deletes the row and unlocks in one statement
  (:data:`RELEASE_SQL`).
- A holder that lost its session reports, once its run has stopped, from
  another connection (:data:`REPORT_SQL`): it deletes its row, or, if a new
  holder already took it over, sets ``previous_stopped`` there, which that
  holder polls (:data:`POLL_SQL`) while it waits.

Every statement is one round trip; the row is written with the server's
``synchronous_commit`` (keep it ``on``, the default, so a database crash
cannot lose a row whose holder was running).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from typing import Any

import anyio
from psycopg.rows import dict_row

from langgraph_openai_serve.graph.coordinator import LeaseLostError

__all__ = [
    "CREATE_SQL",
    "POLL_SQL",
    "RELEASE_SQL",
    "REPORT_SQL",
    "TAKE_SQL",
    "Taken",
    "poll",
    "release",
    "report",
    "report_stopped",
    "take",
    "wait_for_previous",
]

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.1
"""How often a new holder asks whether the holder it waits for has stopped."""
REPORT_SECONDS = 60.0
"""How long a holder that lost its session keeps trying to report it stopped."""

CREATE_SQL = """
create table if not exists lgos_run_leases (
    lock_id bigint primary key,
    token uuid not null,
    holder text not null,
    stop_seconds double precision not null,
    taken_at timestamptz not null default now(),
    previous_token uuid,
    previous_holder text,
    previous_stop_seconds double precision,
    previous_stopped boolean
)"""
"""The lease table (``PostgresRunCoordinator.setup`` creates it).

``lock_id`` is the advisory-lock ID; ``token`` names one holding of the
lease; ``holder`` is ``host:pid`` (for logs); ``stop_seconds`` bounds how
long the holder (or a holder it was still waiting for) may run after its
session ended. The ``previous_*`` columns describe the holder that lost the
lease to this one, until it reports that it stopped."""

TAKE_SQL = """
insert into lgos_run_leases as l (lock_id, token, holder, stop_seconds)
select %(lock_id)s, %(token)s, %(holder)s, %(stop_seconds)s
where pg_try_advisory_lock(%(lock_id)s)
on conflict (lock_id) do update set
    token = excluded.token,
    holder = excluded.holder,
    stop_seconds = greatest(excluded.stop_seconds, l.stop_seconds),
    taken_at = now(),
    previous_token = l.token,
    previous_holder = l.holder,
    previous_stop_seconds = l.stop_seconds,
    previous_stopped = false
returning previous_holder, previous_stop_seconds"""
"""Take the lock and write the row: no row back means the lock is held.

The row a conflict finds is the latest committed one, whatever the
statement's snapshot: a holder that took the lock, wrote its row and lost
its session just before is always seen. A new holder's own bound is at
least its predecessor's, so whoever takes over from it waits long enough
for both."""

RELEASE_SQL = """
with forgotten as (
    delete from lgos_run_leases
    where %(forget)s and lock_id = %(lock_id)s and token = %(token)s
)
select pg_advisory_unlock(%(lock_id)s) as unlocked"""
"""Unlock, deleting the row first when ``forget`` (the holder has stopped)."""

REPORT_SQL = (
    "delete from lgos_run_leases where lock_id = %(lock_id)s and token = %(token)s",
    "update lgos_run_leases set previous_stopped = true"
    " where lock_id = %(lock_id)s and previous_token = %(token)s",
)
"""A holder whose session ended reports that it stopped (two statements).

The deletion comes first: when a new holder takes the row over at the same
moment, PostgreSQL re-checks the deletion's condition on the new row (its
``token`` no longer matches), and the update, a statement of its own, then
sees that row and marks its ``previous_token`` stopped."""

POLL_SQL = (
    "select previous_stopped from lgos_run_leases"
    " where lock_id = %(lock_id)s and token = %(token)s"
)
"""Whether the holder this one took over from has reported that it stopped."""


@dataclass(frozen=True, slots=True)
class Taken:
    """A lock taken with its row written.

    Attributes:
        previous_holder: ``host:pid`` of a holder that lost its session
            without releasing and has not reported that it stopped; None
            when the lease was free and clean.
        previous_stop_seconds: How long that holder may run after its
            session ended (its recorded bound); None with no such holder.
        read: The first row of the query sent with the lock, if any.

    """

    previous_holder: str | None
    previous_stop_seconds: float | None
    read: Any = None


def _params(lock_id: int, token: uuid.UUID) -> dict[str, Any]:
    return {"lock_id": lock_id, "token": token}


async def take(
    connection: Any,
    lock_id: int,
    token: uuid.UUID,
    *,
    holder: str,
    stop_seconds: float,
    read: tuple[str, tuple[Any, ...]] | None = None,
) -> Taken | None:
    """Try the lock for ``lock_id`` and write the holder's row (one round trip).

    Args:
        connection: A psycopg ``AsyncConnection`` in autocommit with mapping
            rows; it holds the lock afterwards.
        lock_id: The advisory-lock ID.
        token: A fresh ID for this holding.
        holder: Who holds it (``host:pid``), for the logs of a later holder.
        stop_seconds: This holder's bound (seconds it may run on after its
            session ends).
        read: A query (SQL, parameters) sent in the same round trip after
            the lock; its first row is returned in :attr:`Taken.read`.

    Returns:
        The taken lock, or None when another session holds it.

    """
    params = {**_params(lock_id, token), "holder": holder, "stop_seconds": stop_seconds}
    if read is None:
        cursor = await connection.execute(TAKE_SQL, params)
        row = await cursor.fetchone()
        found = None
    else:
        query, query_params = read
        rows = connection.cursor(binary=True, row_factory=dict_row)
        async with connection.pipeline():
            cursor = await connection.execute(TAKE_SQL, params)
            await rows.execute(query, query_params, binary=True)
        row = await cursor.fetchone()
        found = await rows.fetchone()
        await rows.close()
    if row is None:
        return None
    return Taken(row["previous_holder"], row["previous_stop_seconds"], found)


async def release(
    connection: Any, lock_id: int, token: uuid.UUID, *, forget: bool
) -> bool:
    """Unlock ``lock_id``, deleting the holding's row when ``forget``.

    Returns:
        Whether the server confirmed the unlock.

    """
    cursor = await connection.execute(
        RELEASE_SQL, {**_params(lock_id, token), "forget": forget}
    )
    row = await cursor.fetchone()
    return bool(row and row["unlocked"])


async def report(connection: Any, lock_id: int, token: uuid.UUID) -> None:
    """Record that the holding ``token`` stopped (from any connection)."""
    params = _params(lock_id, token)
    async with connection.pipeline():
        for statement in REPORT_SQL:
            await connection.execute(statement, params)


async def poll(connection: Any, lock_id: int, token: uuid.UUID) -> bool:
    """Return whether the holder that ``token`` took over from reported it stopped."""
    cursor = await connection.execute(POLL_SQL, _params(lock_id, token))
    row = await cursor.fetchone()
    return bool(row and row["previous_stopped"])


async def wait_for_previous(
    connection: Any,
    lock: asyncio.Lock,
    lock_id: int,
    token: uuid.UUID,
    taken: Taken,
    *,
    lost: asyncio.Event,
    key: str,
    poll_timeout: float,
) -> None:
    """Wait until the holder ``token`` took over from stopped, or its bound passed.

    Asks every :data:`POLL_SECONDS` on the new holder's ``connection``
    (under its session ``lock``); gives up waiting once
    ``taken.previous_stop_seconds`` have passed since the takeover.

    Raises:
        LeaseLostError: ``lost`` was set meanwhile.
        TimeoutError: A poll did not answer within ``poll_timeout`` seconds.
        Exception: A poll failed (psycopg's error).

    """
    bound = taken.previous_stop_seconds or 0.0
    logger.warning(
        "Run %s: its previous lease holder %s lost its session without "
        "releasing; waiting up to %.1f s for it to stop",
        key[:12],
        taken.previous_holder,
        bound,
    )
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + bound
    while True:
        if lost.is_set():
            raise LeaseLostError
        async with asyncio.timeout(poll_timeout), lock:
            stopped = await poll(connection, lock_id, token)
        now = loop.time()
        if stopped:
            logger.info(
                "Run %s: the previous holder stopped; taking over after %.2f s",
                key[:12],
                now - started,
            )
            return
        if now >= deadline:
            logger.warning(
                "Run %s: the previous holder did not report; taking over after "
                "its bound of %.1f s",
                key[:12],
                bound,
            )
            return
        with anyio.move_on_after(min(POLL_SECONDS, deadline - now)):
            await lost.wait()


async def report_stopped(
    pool: Any,
    key: str,
    lock_id: int,
    token: uuid.UUID,
    running: set[asyncio.Task[Any]],
) -> None:
    """Report, once the tasks ``running`` have ended, that holding ``token`` stopped.

    Runs on a connection of ``pool`` (the lease's own session is gone),
    retried for :data:`REPORT_SECONDS` while the database cannot be reached;
    a holder that never reports is waited for up to its bound instead.
    """
    if running:
        await asyncio.wait(running)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + REPORT_SECONDS
    while True:
        try:
            wait = max(deadline - loop.time(), 0.1)
            async with pool.connection(timeout=wait) as connection:
                await report(connection, lock_id, token)
        except Exception:
            if loop.time() >= deadline:
                logger.warning(
                    "Could not report that run %s stopped; a new holder waits "
                    "for its bound instead",
                    key[:12],
                    exc_info=True,
                )
                return
            await asyncio.sleep(0.2)
        else:
            return
