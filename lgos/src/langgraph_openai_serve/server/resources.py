"""Process-wide resources handed to a registry factory."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from langgraph_openai_serve.graph.coordinator import (
    InMemoryRunCoordinator,
    RunCoordinator,
)
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.server.health import READY_TIMEOUT_SECONDS, ReadinessChecks
from langgraph_openai_serve.server.server_settings import ServerSettings

__all__ = ["RegistryFactory", "ServerResources", "check_pool", "open_resources"]


@dataclass(frozen=True, slots=True)
class ServerResources:
    """What the server opens once per process for the registry factory.

    Attributes:
        checkpointer: LangGraph checkpointer for interrupt-enabled graphs.
        store: LangGraph store for application data.
        run_coordinator: Lease provider for interrupt runs.

    """

    checkpointer: BaseCheckpointSaver
    store: BaseStore
    run_coordinator: RunCoordinator


RegistryFactory = Callable[
    [ServerResources],
    GraphRegistry | AbstractAsyncContextManager[GraphRegistry],
]
"""A callable taking :class:`ServerResources` and returning a
:class:`GraphRegistry` or an async context manager yielding one."""


# libpq TCP keepalives: a silently lost connection (a network cut) fails
# within about 25 s instead of hanging until the kernel's default hours.
_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}


async def check_pool(pool: Any, seconds: float) -> None:
    """Check that ``pool`` hands out a working connection within ``seconds``.

    Borrows a pooled connection from the ``psycopg_pool.AsyncConnectionPool``
    (opening one only when none is idle, as any request would) and runs
    ``select 1`` on it: the readiness check ``postgres`` of ``lgos serve``.

    Raises:
        psycopg_pool.PoolTimeout: No connection came free, or none could be
            opened, within ``seconds``.
        psycopg.Error: The query failed.
        TimeoutError: The query did not answer within ``seconds``.

    """
    async with asyncio.timeout(seconds):
        async with pool.connection(timeout=seconds) as connection:
            await connection.execute("select 1")


@asynccontextmanager
async def open_resources(
    settings: ServerSettings, *, checks: ReadinessChecks | None = None
) -> AsyncIterator[ServerResources]:
    """Open the resources for one server process.

    With ``LGOS_POSTGRES_URI``: one connection pool (autocommit, no prepared
    statements, mapping rows, TCP keepalives, each connection checked before
    it is handed out) shared by a ``PostgresRunCoordinator``, LangGraph's
    ``AsyncPostgresStore`` and the checkpointer, LangGraph's
    ``AsyncPostgresSaver`` doing a leased run's I/O on its lease's session
    (``LeaseSessionPostgresSaver``) — migrated at start-up under a retried
    advisory lock, with the coordinator's lease table. Without it: in-memory
    equivalents, valid for one process only.

    Args:
        settings: The server settings.
        checks: When given, receives the readiness checks of what was
            opened: ``postgres`` (the pool hands out a connection that
            answers ``select 1``) when PostgreSQL is configured.

    Yields:
        The open :class:`ServerResources`, closed when the context exits.

    """
    if settings.postgres_uri is None:
        yield ServerResources(
            checkpointer=InMemorySaver(),
            store=InMemoryStore(),
            run_coordinator=InMemoryRunCoordinator(),
        )
        return
    from langgraph.store.postgres.aio import AsyncPostgresStore
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    from langgraph_openai_serve.integrations.postgres_coordinator import (
        PostgresRunCoordinator,
    )
    from langgraph_openai_serve.integrations.postgres_migrations import setup_storage
    from langgraph_openai_serve.integrations.postgres_probe import check_connection
    from langgraph_openai_serve.integrations.postgres_saver import (
        LeaseSessionPostgresSaver,
    )

    pool = AsyncConnectionPool(
        settings.postgres_uri.get_secret_value(),
        min_size=1,
        max_size=settings.postgres_pool_size,
        kwargs={
            "autocommit": True,
            "prepare_threshold": 0,
            "row_factory": dict_row,
            **_KEEPALIVES,
        },
        # After a database restart or failover the pooled connections are
        # dead: check each before handing it out (a query only when its
        # socket has something to read: the server ended the session).
        check=check_connection,
        open=False,
    )
    async with pool:
        await pool.wait()
        coordinator = PostgresRunCoordinator(
            pool, max_concurrent_leases=settings.postgres_pool_size - 2
        )
        # A leased run's checkpoint I/O runs on its lease's session.
        checkpointer = LeaseSessionPostgresSaver(pool, coordinator)
        store = AsyncPostgresStore(pool)  # type: ignore[arg-type]
        await setup_storage(pool, [checkpointer.setup, store.setup, coordinator.setup])
        if checks is not None:
            checks["postgres"] = functools.partial(
                check_pool, pool, READY_TIMEOUT_SECONDS
            )
        yield ServerResources(
            checkpointer=checkpointer,
            store=store,
            run_coordinator=coordinator,
        )
