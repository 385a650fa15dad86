"""PostgreSQL coordination for interrupt runs (extra ``postgres``).

:class:`PostgresRunCoordinator` provides the cross-process, single-flight
interrupt-run lease on PostgreSQL session advisory locks.
:class:`~.postgres_saver.LeaseSessionPostgresSaver` is LangGraph's
``AsyncPostgresSaver`` running a leased run's checkpoint I/O on the lease's
own session. Application data uses LangGraph's ``AsyncPostgresStore``;
:func:`setup_storage` applies the migrations once across processes that
start together.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import select
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio

try:
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[postgres] for PostgreSQL support."
    raise ImportError(msg) from exc

from langgraph_openai_serve.graph.coordinator import (
    Lease,
    LeasesExhaustedError,
    RunBusyError,
)

__all__ = [
    "LEASE_CHECK_SECONDS",
    "LEASE_CHECK_TIMEOUT_SECONDS",
    "LEASE_SLOT_WAIT_SECONDS",
    "LOCK_READ",
    "LeaseSession",
    "PostgresRunCoordinator",
    "advisory_lock_id",
    "check_connection",
    "setup_storage",
]

logger = logging.getLogger(__name__)

_MIGRATION_LOCK = "lgos/migrations"
_RELEASE_SECONDS = 10.0

LEASE_CHECK_SECONDS = 1.0
"""How often a held lease's session is checked (the default)."""
LEASE_CHECK_TIMEOUT_SECONDS = 5.0
"""How long a check may take before the session counts as lost (the default)."""
LEASE_SLOT_WAIT_SECONDS = 5.0
"""How long a lease waits for a free slot before it is refused (the default)."""

_TASKS: set[asyncio.Task[None]] = set()

_LOCK_SQL = "select pg_try_advisory_lock(%s) as locked"

LOCK_READ = "lgos/lock-read"
"""``LeaseSession.reads`` key of the row read with the lock (``read_on_lock``),
and, by the checkpointer, with its latest write."""


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # a failed check is reported by its caller


def _background(work: Awaitable[None]) -> None:
    task = asyncio.ensure_future(work)
    _TASKS.add(task)  # keep a reference until it is done
    task.add_done_callback(_TASKS.discard)


@dataclass(slots=True, eq=False)
class LeaseSession:
    """A held lease's PostgreSQL session: its connection, and who may use it.

    Attributes:
        connection: The pooled connection holding the advisory lock.
        lease: The lease it holds.
        lock: Serializes the session's statements: the lease's checks and
            the checkpoint I/O of
            :class:`~.postgres_saver.LeaseSessionPostgresSaver`.
        reads: That checkpointer's reads of the thread since its last write
            (the lease makes this session the thread's only writer).
        writes: How many writes it started on the thread.

    """

    connection: Any
    lease: Lease
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    reads: dict[Any, Any] = field(default_factory=dict)
    writes: int = 0


async def check_connection(connection: Any) -> None:
    """Check a pooled connection, asking the server only when it spoke unasked.

    A pool ``check`` for ``AsyncConnectionPool(check=...)``: psycopg_pool's
    ``check_connection`` (an empty query: one round trip per checkout) runs
    only when the connection is closed or broken, or when its socket has
    something to read. An idle connection in autocommit receives nothing
    until it sends a query, unless the server ended the session (a restart,
    ``pg_terminate_backend``: it sends the error and closes the socket) or
    notifies it, so a quiet socket is a live session as far as any check
    could tell without waiting for the network.

    Raises:
        Exception: What psycopg_pool's check raises for a dead connection.

    """
    try:
        quiet = (
            not (connection.closed or connection.broken)
            and not select.select([connection.fileno()], [], [], 0)[0]
        )
    except (OSError, ValueError):
        quiet = False
    if not quiet:
        await AsyncConnectionPool.check_connection(connection)


def advisory_lock_id(key: str) -> int:
    """Map a lease key to PostgreSQL's signed 64-bit advisory-lock ID."""
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class PostgresRunCoordinator:
    """Interrupt-run leases on ``pg_try_advisory_lock`` session locks.

    A lease holds one pooled connection for its whole life; contention fails
    at once with :class:`RunBusyError` (no queueing). Release unlocks and
    returns the connection; when the unlock cannot be confirmed (an error, a
    cancelled release) the connection is closed instead, which ends the
    session and so releases every lock it held. A crashed process's locks are
    released by PostgreSQL when its connections drop.

    Requirements (from PostgreSQL's advisory-lock semantics): direct
    connections or session-mode pooling (transaction-mode poolers cannot
    keep a session lock); a pool configured with ``autocommit=True``,
    ``prepare_threshold=0`` and mapping rows (``row_factory=dict_row``), the
    same settings LangGraph's PostgreSQL adapters require.

    Args:
        pool: An open ``psycopg_pool.AsyncConnectionPool``.
        max_concurrent_leases: How many leases may hold connections at once.
            When the pool is shared with the checkpointer and store, keep it
            below the pool's ``max_size`` so persistence I/O always finds a
            connection. Create one coordinator per process-owned pool.
        check_seconds: How often a held lease's session is checked.
        check_timeout_seconds: How long a check may take before the session
            counts as lost (a silent network cut).
        slot_wait_seconds: How long a lease waits for one of the
            ``max_concurrent_leases`` slots before it is refused.

    """

    def __init__(
        self,
        pool: AsyncConnectionPool[Any],
        *,
        max_concurrent_leases: int,
        check_seconds: float = LEASE_CHECK_SECONDS,
        check_timeout_seconds: float = LEASE_CHECK_TIMEOUT_SECONDS,
        slot_wait_seconds: float = LEASE_SLOT_WAIT_SECONDS,
    ) -> None:
        if max_concurrent_leases < 1:
            msg = "max_concurrent_leases must be at least 1."
            raise ValueError(msg)
        self._pool = pool
        self._slots = asyncio.Semaphore(max_concurrent_leases)
        self._check_seconds = check_seconds
        self._check_timeout = check_timeout_seconds
        self._slot_wait = slot_wait_seconds
        self._sessions: dict[str, LeaseSession] = {}
        self.read_on_lock: Callable[[str], tuple[str, tuple[Any, ...]]] | None = None
        """A query of the key (SQL, parameters) sent with the lock, in the same
        round trip; its first row (None for none) is kept in the new session's
        ``reads`` under :data:`LOCK_READ`. The checkpointer sets it to read the
        thread's latest checkpoint, which a run reads first."""

    def session(self, key: str) -> LeaseSession | None:
        """Return the session of the lease this process holds on ``key``, if any."""
        return self._sessions.get(key)

    @asynccontextmanager
    async def lease(self, key: str) -> AsyncIterator[Lease]:
        """Hold the lease for ``key`` across every process sharing the database.

        While held, the lock's session is checked every ``check_seconds``
        (``select 1`` on it, within ``check_timeout_seconds``). If the session
        has ended (its backend terminated, the database restarted, a network
        cut), PostgreSQL has already freed the lock and another process may
        take it: the yielded :class:`Lease` is marked lost, so the run stops
        and writes nothing more, and the dead connection is discarded.

        Raises:
            RunBusyError: Another session holds the lock.
            LeasesExhaustedError: This process already holds
                ``max_concurrent_leases`` leases and none came free within
                ``slot_wait_seconds``.

        """
        lock_id = advisory_lock_id(key)
        try:
            async with asyncio.timeout(self._slot_wait):
                await self._slots.acquire()
        except TimeoutError:
            raise LeasesExhaustedError(key) from None
        try:
            connection = await self._pool.getconn()
            try:
                locked, read = await self._lock(connection, key, lock_id)
            except BaseException:
                await self._discard(connection)
                raise
            if not locked:
                await self._pool.putconn(connection)
                raise RunBusyError(key)
            lease = Lease(key)
            session = LeaseSession(connection, lease)
            if self.read_on_lock is not None:
                session.reads[LOCK_READ] = read
            backend = connection.info.backend_pid

            async def confirm() -> bool:
                return await self._confirm(session, backend)

            lease.confirm = confirm
            watch = asyncio.ensure_future(self._watch(confirm))
            self._sessions[key] = session
            try:
                yield lease
            finally:
                del self._sessions[key]
                with anyio.CancelScope(shield=True):
                    watch.cancel()
                    await asyncio.wait((watch,))
                if lease.lost.is_set():
                    await self._discard(connection)
                else:
                    await self._release(session, lock_id)
        finally:
            self._slots.release()

    async def _lock(self, connection: Any, key: str, lock_id: int) -> tuple[bool, Any]:
        """Try the lock (and run ``read_on_lock`` in the same round trip)."""
        read = self.read_on_lock
        if read is None:
            cursor = await connection.execute(_LOCK_SQL, (lock_id,))
            row = await cursor.fetchone()
            return bool(row and row["locked"]), None
        query, params = read(key)
        rows = connection.cursor(binary=True, row_factory=dict_row)
        async with connection.pipeline():
            cursor = await connection.execute(_LOCK_SQL, (lock_id,))
            await rows.execute(query, params, binary=True)
        row = await cursor.fetchone()
        found = await rows.fetchone()
        await rows.close()
        return bool(row and row["locked"]), found

    async def _watch(self, confirm: Callable[[], Awaitable[bool]]) -> None:
        while True:
            await asyncio.sleep(self._check_seconds)
            if not await confirm():
                return

    async def _confirm(self, session: LeaseSession, backend: int) -> bool:
        """Check the lock's session now; mark the lease lost if it is gone.

        A check that does not answer within the timeout counts as lost at
        once (psycopg's own query cancellation could take as long again); the
        session is then ended from another connection, so that PostgreSQL
        frees the lock for another process instead of keeping it until its
        own TCP keepalive gives up. Checkpoint I/O running on the session
        counts as part of the check: the check waits for it, and a session
        that does not finish it within the timeout is lost the same way.
        """
        lease = session.lease
        if lease.lost.is_set():
            return False
        try:
            async with asyncio.timeout(self._check_timeout):
                await session.lock.acquire()
        except TimeoutError:
            return self._lose(lease, backend, silent=True)
        try:
            return await self._check(session.connection, backend, lease)
        finally:
            session.lock.release()

    async def _check(self, connection: Any, backend: int, lease: Lease) -> bool:
        if lease.lost.is_set():
            return False
        check = asyncio.ensure_future(connection.execute("select 1"))
        check.add_done_callback(_retrieve)  # also when this wait is cancelled
        done, _ = await asyncio.wait((check,), timeout=self._check_timeout)
        if done and not check.cancelled() and check.exception() is None:
            return True
        if not done:
            check.cancel()
        return self._lose(lease, backend, silent=not done)

    def _lose(self, lease: Lease, backend: int, *, silent: bool) -> bool:
        """Mark ``lease`` lost (ending a silent session from elsewhere); False."""
        lease.lost.set()
        logger.error(
            "The session holding the lease for run %s ended or stopped answering; "
            "stopping the run",
            lease.key[:12],
        )
        if silent:
            _background(self._end_session(backend))
        return False

    async def _end_session(self, backend: int) -> None:
        with anyio.move_on_after(self._check_timeout, shield=True):
            try:
                async with self._pool.connection() as other:
                    await other.execute("select pg_terminate_backend(%s)", (backend,))
            except Exception:
                logger.warning(
                    "Could not end the silent lease session %s", backend, exc_info=True
                )

    async def _release(self, session: LeaseSession, lock_id: int) -> None:
        connection = session.connection
        with anyio.move_on_after(_RELEASE_SECONDS, shield=True):
            try:
                async with session.lock:  # after I/O still running on it
                    cursor = await connection.execute(
                        "select pg_advisory_unlock(%s) as unlocked", (lock_id,)
                    )
                    row = await cursor.fetchone()
                if row and row["unlocked"]:
                    await self._pool.putconn(connection)
                    return
            except Exception:
                logger.warning(
                    "Advisory unlock failed; closing the session", exc_info=True
                )
            await self._discard(connection)

    async def _discard(self, connection: Any) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await connection.close()
            finally:
                await self._pool.putconn(connection)


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
