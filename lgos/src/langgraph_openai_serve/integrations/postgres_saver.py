"""LangGraph's PostgreSQL checkpointer, doing a leased run's I/O on its lease.

:class:`LeaseSessionPostgresSaver` is what ``lgos serve`` checkpoints with on
PostgreSQL: an ``AsyncPostgresSaver`` whose reads, writes and deletions of a
thread leased by this process's
:class:`~langgraph_openai_serve.integrations.postgres.PostgresRunCoordinator`
run on the connection holding the lease, and a checkpoint it read is not read
again until it writes.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple

try:
    import psycopg
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[postgres] for PostgreSQL support."
    raise ImportError(msg) from exc

from langgraph_openai_serve.graph.coordinator import Lease, LeaseLostError
from langgraph_openai_serve.integrations.postgres_coordinator import (
    LOCK_READ,
    LeaseSession,
    PostgresRunCoordinator,
)

__all__ = ["LeaseSessionPostgresSaver"]

_LATEST = (
    "WHERE thread_id = %s AND checkpoint_ns = %s ORDER BY checkpoint_id DESC LIMIT 1"
)
"""``AsyncPostgresSaver.aget_tuple``'s condition for the latest checkpoint."""


def _config(config: Any) -> Any:
    if not config:
        return config
    return {**config, "configurable": dict(config.get("configurable", {}))}


def _copy(found: CheckpointTuple | None) -> CheckpointTuple | None:
    """Copy what a consumer may change in place (LangGraph updates versions)."""
    if found is None:
        return None
    checkpoint: Any = found.checkpoint
    copied: Any = {
        **checkpoint,
        "channel_values": dict(checkpoint["channel_values"]),
        "channel_versions": dict(checkpoint["channel_versions"]),
        "versions_seen": {
            node: dict(seen) for node, seen in checkpoint["versions_seen"].items()
        },
    }
    metadata: Any = dict(found.metadata) if found.metadata is not None else None
    writes = found.pending_writes
    return CheckpointTuple(
        config=_config(found.config),
        checkpoint=copied,
        metadata=metadata,
        parent_config=_config(found.parent_config),
        pending_writes=list(writes) if writes is not None else None,
    )


class LeaseSessionPostgresSaver(AsyncPostgresSaver):
    """``AsyncPostgresSaver`` doing a leased thread's I/O on the lease's session.

    While this process holds ``coordinator``'s lease on a thread (the
    checkpoint key is the thread ID), every read, write and deletion of that
    thread runs on the connection holding the lease's advisory lock instead
    of a pooled one: a run costs one pool checkout, and a write that lands
    proves the lease held when it landed (a session that ended, which freed
    the lock, can run nothing more), so no separate check must precede it.
    A statement failing because the session ended marks the lease lost and
    raises :class:`~langgraph_openai_serve.graph.coordinator.LeaseLostError`.
    Other threads go through the pool, as with ``AsyncPostgresSaver``.

    The lease also makes the session the thread's only writer, so a leased
    thread's checkpoint is read once until the next write: LGOS reads the
    pause before it runs the graph, and the graph's own first read is then
    answered from that read (a copy). The latest checkpoint is read in the
    same round trip as the lease's lock (``coordinator.read_on_lock``) and
    as each write or deletion (after its statements, in its pipeline), so
    reading it after a write, as LGOS does to hand out a pause, needs none.

    Args:
        conn: The pool (or connection) for threads leased elsewhere or not
            at all.
        coordinator: The process's run coordinator.
        serde: LangGraph's serializer, as for ``AsyncPostgresSaver``.

    """

    def __init__(
        self,
        conn: Any,
        coordinator: PostgresRunCoordinator,
        *,
        serde: Any = None,
    ) -> None:
        super().__init__(conn, serde=serde)
        self.coordinator: PostgresRunCoordinator | None = coordinator
        self.session: LeaseSession | None = None  # set on a copy bound to one
        coordinator.read_on_lock = self._latest

    def _latest(self, thread_id: str) -> tuple[str, tuple[Any, ...]]:
        """Return the query of a thread's latest root checkpoint (``aget_tuple``'s)."""
        return self.SELECT_SQL + _LATEST, (thread_id, "")

    def writes_on_lease(self, lease: Lease) -> bool:
        """Whether ``lease``'s thread's writes run on the lease's own session."""
        coordinator = self.coordinator
        if coordinator is None:
            return False
        session = coordinator.session(lease.key)
        return session is not None and session.lease is lease

    def _bound(self, thread_id: Any) -> tuple[AsyncPostgresSaver, LeaseSession] | None:
        coordinator = self.coordinator
        if coordinator is None or not isinstance(thread_id, str):
            return None
        session = coordinator.session(thread_id)
        if session is None:
            return None
        bound = copy.copy(self)  # the same serializer, on the lease's session
        bound.coordinator = None
        bound.session = session
        bound.conn = session.connection
        bound.lock = session.lock
        return bound, session

    @asynccontextmanager
    async def _cursor(self, *, pipeline: bool = False) -> AsyncIterator[Any]:
        """``AsyncPostgresSaver._cursor``; a bound write also reads the latest.

        On a lease's session, a pipelined block (LangGraph's writes and
        deletions) forgets the session's reads, and the thread's latest root
        checkpoint is read after its statements in the same pipeline: one
        round trip, and the next read of it needs none.
        """
        session = self.session
        if session is None or not pipeline or not self.supports_pipeline:
            async with super()._cursor(pipeline=pipeline) as cursor:
                yield cursor
            return
        connection: Any = session.connection
        async with self.lock:
            session.reads.clear()
            session.writes += 1
            latest = connection.cursor(binary=True, row_factory=dict_row)
            try:
                async with connection.pipeline():
                    async with connection.cursor(
                        binary=True, row_factory=dict_row
                    ) as cursor:
                        yield cursor
                    query, params = self._latest(session.lease.key)
                    await latest.execute(query, params, binary=True)
                session.reads[LOCK_READ] = await latest.fetchone()
            finally:
                await latest.close()

    async def _run(self, thread_id: Any, call: Callable[[Any], Awaitable[Any]]) -> Any:
        bound = self._bound(thread_id)
        if bound is None:  # not leased here: through the pool
            return await call(self)
        saver, session = bound
        return await self._on(session, call(saver))

    @staticmethod
    async def _on(session: LeaseSession, work: Awaitable[Any]) -> Any:
        try:
            return await work
        except psycopg.OperationalError as exc:
            if not (session.connection.closed or session.connection.broken):
                raise
            session.lease.lost.set()
            raise LeaseLostError from exc

    async def aget_tuple(self, config: Any) -> Any:
        """Read a checkpoint, on the lease's session when the thread is leased."""
        configurable = config["configurable"]
        bound = self._bound(configurable["thread_id"])
        if bound is None:
            return await AsyncPostgresSaver.aget_tuple(self, config)
        saver, session = bound
        reads = session.reads
        if LOCK_READ in reads:  # the latest checkpoint, read with the last statement
            row = reads.pop(LOCK_READ)
            if row is None:
                reads["", None] = None
            elif row["checkpoint"]["v"] >= 4 or not row["parent_checkpoint_id"]:
                # (older ones need aget_tuple's migration: read them again)
                loaded = await AsyncPostgresSaver._load_checkpoint_tuple(saver, row)
                reads["", None] = _copy(loaded)
        key = (configurable.get("checkpoint_ns", ""), configurable.get("checkpoint_id"))
        if key in reads:
            return _copy(reads[key])
        writes = session.writes
        found = await self._on(session, AsyncPostgresSaver.aget_tuple(saver, config))
        if session.writes == writes:  # no write started meanwhile
            reads[key] = _copy(found)
        return found

    async def aput(
        self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> Any:
        """Write a checkpoint, on the lease's session when the thread is leased."""
        bound = self._bound(config["configurable"]["thread_id"])
        if bound is None:
            return await AsyncPostgresSaver.aput(
                self, config, checkpoint, metadata, new_versions
            )
        saver, session = bound
        return await self._on(
            session,
            AsyncPostgresSaver.aput(saver, config, checkpoint, metadata, new_versions),
        )

    async def aput_writes(
        self, config: Any, writes: Any, task_id: str, task_path: str = ""
    ) -> None:
        """Write pending writes, on the lease's session when the thread is leased."""
        bound = self._bound(config["configurable"]["thread_id"])
        if bound is None:
            await AsyncPostgresSaver.aput_writes(
                self, config, writes, task_id, task_path
            )
            return
        saver, session = bound
        await self._on(
            session,
            AsyncPostgresSaver.aput_writes(saver, config, writes, task_id, task_path),
        )

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete a thread, on the lease's session when it is leased."""
        bound = self._bound(str(thread_id))
        if bound is None:
            await AsyncPostgresSaver.adelete_thread(self, thread_id)
            return
        saver, session = bound
        await self._on(session, AsyncPostgresSaver.adelete_thread(saver, thread_id))
