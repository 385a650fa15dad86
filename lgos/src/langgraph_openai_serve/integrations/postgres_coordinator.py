"""The PostgreSQL run coordinator for interrupt runs (extra ``postgres``).

:class:`PostgresRunCoordinator` provides the cross-process, single-flight
interrupt-run lease on PostgreSQL session advisory locks, with a row per
lease (:mod:`.lease_record`) so that a holder that lost its session is
waited for before anyone else runs the same work. :class:`LeaseSession` is
the session a held lease lends
:class:`~.postgres_saver.LeaseSessionPostgresSaver`, LangGraph's
``AsyncPostgresSaver`` running a leased run's checkpoint I/O on the lease's
own session. The lease table's creation runs under the serialized
migrations of :mod:`.postgres_migrations`.

One module: the coordinator is one class whose lease take, session watch
and release share its pool, slots and timings, with the session it lends
the checkpointer; the lease table's SQL and the takeover wait live in
:mod:`.lease_record`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio

try:
    from psycopg_pool import AsyncConnectionPool
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[postgres] for PostgreSQL support."
    raise ImportError(msg) from exc

from langgraph_openai_serve.graph.coordinator import (
    Lease,
    LeaseLostError,
    LeasesExhaustedError,
    RunBusyError,
)
from langgraph_openai_serve.integrations import lease_record
from langgraph_openai_serve.integrations.postgres_migrations import (
    advisory_lock_id,
    setup_storage,
)

__all__ = [
    "LEASE_CHECK_SECONDS",
    "LEASE_CHECK_TIMEOUT_SECONDS",
    "LEASE_SLOT_WAIT_SECONDS",
    "LEASE_STOP_MARGIN_SECONDS",
    "LOCK_READ",
    "LeaseSession",
    "PostgresRunCoordinator",
]

logger = logging.getLogger(__name__)

_RELEASE_SECONDS = 10.0

LEASE_CHECK_SECONDS = 1.0
"""How often a held lease's session is checked (the default)."""
LEASE_CHECK_TIMEOUT_SECONDS = 5.0
"""How long a check may take before the session counts as lost (the default)."""
LEASE_SLOT_WAIT_SECONDS = 5.0
"""How long a lease waits for a free slot before it is refused (the default)."""
LEASE_STOP_MARGIN_SECONDS = 1.0
"""Time allowed for a run to stop once its lost lease is noticed: with the
check interval and timeout, the bound a holder records for a takeover."""

_TASKS: set[asyncio.Task[None]] = set()

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


class PostgresRunCoordinator:
    """Interrupt-run leases on ``pg_try_advisory_lock`` session locks.

    A lease holds one pooled connection for its whole life; contention fails
    at once with :class:`RunBusyError` (no queueing). Release unlocks and
    returns the connection; when the unlock cannot be confirmed (an error, a
    cancelled release) the connection is closed instead, which ends the
    session and so releases every lock it held. A crashed process's locks are
    released by PostgreSQL when its connections drop.

    Takeover: the lock is taken together with a row in ``lgos_run_leases``
    that a clean release deletes. A new holder that finds the row of a
    holder whose session ended (it was terminated, the database restarted,
    the process crashed) does not run until that holder has reported, from
    another connection, that its run stopped, or until the bound the holder
    recorded has passed: :attr:`stop_seconds`, the check interval plus the
    check timeout plus :data:`LEASE_STOP_MARGIN_SECONDS` (7 s by default),
    counted from the takeover. So two processes never run the same lease's
    work at once, provided every holder's event loop runs and its graph
    stops when cancelled. Run :meth:`setup` before serving (``lgos serve``
    does, with its migrations); a coordinator that has not runs it on its
    first lease.

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
        self._holder = f"{socket.gethostname()}:{os.getpid()}"
        self._ready = False
        self._setting_up: asyncio.Lock | None = None
        self.read_on_lock: Callable[[str], tuple[str, tuple[Any, ...]]] | None = None
        """A query of the key (SQL, parameters) sent with the lock, in the same
        round trip; its first row (None for none) is kept in the new session's
        ``reads`` under :data:`LOCK_READ`. The checkpointer sets it to read the
        thread's latest checkpoint, which a run reads first."""

    def session(self, key: str) -> LeaseSession | None:
        """Return the session of the lease this process holds on ``key``, if any."""
        return self._sessions.get(key)

    @property
    def stop_seconds(self) -> float:
        """Seconds a run of this coordinator may go on after its lease's session ended.

        ``check_seconds + check_timeout_seconds +``
        :data:`LEASE_STOP_MARGIN_SECONDS`: the loss is noticed within the
        first two, and the run is cancelled then. Recorded with each lease;
        a process taking the lease over waits at most this long.
        """
        return self._check_seconds + self._check_timeout + LEASE_STOP_MARGIN_SECONDS

    async def setup(self) -> None:
        """Create the lease table ``lgos_run_leases`` if it is missing.

        Like LangGraph's ``setup()`` methods, run it before serving, once
        across processes that start together (:func:`setup_storage`).
        """
        async with self._pool.connection() as connection:
            await connection.execute(lease_record.CREATE_SQL)
        self._ready = True

    async def _ensure_setup(self) -> None:
        if self._ready:
            return
        if self._setting_up is None:
            self._setting_up = asyncio.Lock()
        async with self._setting_up:
            if not self._ready:
                await setup_storage(self._pool, [self.setup])

    @asynccontextmanager
    async def lease(self, key: str) -> AsyncIterator[Lease]:
        """Hold the lease for ``key`` across every process sharing the database.

        While held, the lock's session is checked every ``check_seconds``
        (``select 1`` on it, within ``check_timeout_seconds``). If the session
        has ended (its backend terminated, the database restarted, a network
        cut), PostgreSQL has already freed the lock and another process may
        take it: the yielded :class:`Lease` is marked lost, so the run stops
        and writes nothing more, and the dead connection is discarded. Once
        the run's tasks (:meth:`Lease.cover`) have ended, this process
        reports from another connection that it stopped.

        Entering takes over a lease whose previous holder lost its session:
        it waits, before yielding, until that holder reported it stopped or
        its recorded ``stop_seconds`` passed (asking every 0.1 s).

        Raises:
            RunBusyError: Another session holds the lock.
            LeasesExhaustedError: This process already holds
                ``max_concurrent_leases`` leases and none came free within
                ``slot_wait_seconds``.
            LeaseLostError: The lease was lost while waiting for the
                previous holder to stop.

        """
        lock_id = advisory_lock_id(key)
        await self._ensure_setup()
        try:
            async with asyncio.timeout(self._slot_wait):
                await self._slots.acquire()
        except TimeoutError:
            raise LeasesExhaustedError(key) from None
        try:
            connection = await self._pool.getconn()
            token = uuid.uuid4()
            read = self.read_on_lock
            try:
                taken = await lease_record.take(
                    connection,
                    lock_id,
                    token,
                    holder=self._holder,
                    stop_seconds=self.stop_seconds,
                    read=read(key) if read is not None else None,
                )
            except BaseException:
                await self._discard(connection)
                raise
            if taken is None:
                await self._pool.putconn(connection)
                raise RunBusyError(key)
            lease = Lease(key)
            session = LeaseSession(connection, lease)
            if read is not None:
                session.reads[LOCK_READ] = taken.read
            backend = connection.info.backend_pid

            async def confirm() -> bool:
                return await self._confirm(session, backend)

            lease.confirm = confirm
            watch = asyncio.ensure_future(self._watch(confirm))
            # Whether no earlier holder can still be running this work.
            alone = taken.previous_holder is None
            self._sessions[key] = session
            try:
                if not alone:
                    await self._await_previous(session, backend, lock_id, token, taken)
                    session.reads.clear()  # it may have written before it stopped
                    alone = True
                yield lease
            finally:
                del self._sessions[key]
                with anyio.CancelScope(shield=True):
                    watch.cancel()
                    await asyncio.wait((watch,))
                running = {task for task in lease.tasks if not task.done()}
                released = False
                if lease.lost.is_set():
                    await self._discard(connection)
                else:
                    released = await self._release(
                        session, lock_id, token, forget=alone and not running
                    )
                if alone and not (released and not running):
                    _background(
                        lease_record.report_stopped(
                            self._pool, key, lock_id, token, running
                        )
                    )
        finally:
            self._slots.release()

    async def _await_previous(
        self,
        session: LeaseSession,
        backend: int,
        lock_id: int,
        token: uuid.UUID,
        taken: lease_record.Taken,
    ) -> None:
        """Wait for the previous holder (:func:`.lease_record.wait_for_previous`).

        Raises:
            LeaseLostError: This lease was lost meanwhile (a poll that failed
                or did not answer within the check timeout counts as lost).

        """
        lease = session.lease
        try:
            await lease_record.wait_for_previous(
                session.connection,
                session.lock,
                lock_id,
                token,
                taken,
                lost=lease.lost,
                key=lease.key,
                poll_timeout=self._check_timeout,
            )
        except TimeoutError:
            self._lose(lease, backend, silent=True)
            raise LeaseLostError from None
        except LeaseLostError:
            raise
        except Exception as exc:
            self._lose(lease, backend, silent=False)
            raise LeaseLostError from exc

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

    async def _release(
        self, session: LeaseSession, lock_id: int, token: uuid.UUID, *, forget: bool
    ) -> bool:
        """Unlock (deleting the lease's row when ``forget``); whether it was clean.

        A release that fails or takes longer than ``_RELEASE_SECONDS`` closes
        the session instead, which frees the lock and keeps the row.
        """
        connection = session.connection
        released = False
        with anyio.move_on_after(_RELEASE_SECONDS, shield=True):
            try:
                async with session.lock:  # after I/O still running on it
                    released = await lease_record.release(
                        connection, lock_id, token, forget=forget
                    )
            except Exception:
                logger.warning(
                    "Advisory unlock failed; closing the session", exc_info=True
                )
        if not released:
            await self._discard(connection)
            return False
        with anyio.CancelScope(shield=True):
            await self._pool.putconn(connection)
        return True

    async def _discard(self, connection: Any) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await connection.close()
            finally:
                await self._pool.putconn(connection)
