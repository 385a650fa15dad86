"""LeaseSessionPostgresSaver: a leased thread's checkpoint I/O on its lease's session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Command, interrupt
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from langgraph_openai_serve.graph.coordinator import Lease, LeaseLostError
from langgraph_openai_serve.graph.lease_guard import LeaseGuardedSaver
from langgraph_openai_serve.integrations.postgres import (
    PostgresRunCoordinator,
    advisory_lock_id,
)
from langgraph_openai_serve.integrations.postgres_saver import (
    LeaseSessionPostgresSaver,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def pool(postgres_uri: str) -> AsyncIterator[AsyncConnectionPool]:
    pool = AsyncConnectionPool(
        postgres_uri,
        min_size=1,
        max_size=4,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
    )
    await pool.open(wait=True)
    yield pool
    await pool.close()


class CountingPool(AsyncConnectionPool):
    """Counts checkouts."""

    checkouts = 0

    async def getconn(self, *args: Any, **kwargs: Any) -> Any:
        type(self).checkouts += 1
        return await super().getconn(*args, **kwargs)


def _graph(saver: Any) -> Any:
    def ask(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(f"said {interrupt('?')}")]}

    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    return builder.compile(checkpointer=saver)


async def _saver(pool: AsyncConnectionPool) -> tuple[Any, PostgresRunCoordinator]:
    coordinator = PostgresRunCoordinator(
        pool, max_concurrent_leases=2, check_seconds=60
    )
    saver = LeaseSessionPostgresSaver(pool, coordinator)
    await saver.setup()
    await coordinator.setup()  # as lgos serve does (else the first lease does)
    return saver, coordinator


async def test_a_leased_run_uses_only_its_lease_connection(
    postgres_uri: str,
) -> None:
    pool = CountingPool(
        postgres_uri,
        min_size=1,
        max_size=4,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
    )
    await pool.open(wait=True)
    try:
        saver, coordinator = await _saver(pool)
        graph = _graph(saver)
        config: Any = {"configurable": {"thread_id": "leased-thread"}}
        CountingPool.checkouts = 0
        async with coordinator.lease("leased-thread") as lease:
            assert isinstance(lease, Lease)
            await graph.ainvoke({"messages": []}, config, durability="exit")
            state = await graph.aget_state(config)
            assert state.interrupts
            done = await graph.ainvoke(Command(resume="yes"), config, durability="exit")
            assert done["messages"][-1].text == "said yes"
            await saver.adelete_thread("leased-thread")
        assert CountingPool.checkouts == 1  # the lease's own connection
        assert await saver.aget_tuple(config) is None  # unleased: the pool
        assert CountingPool.checkouts == 2
    finally:
        await pool.close()


async def test_a_write_on_an_ended_session_loses_the_lease(
    pool: AsyncConnectionPool, postgres_uri: str
) -> None:
    saver, coordinator = await _saver(pool)
    graph = _graph(saver)
    config: Any = {"configurable": {"thread_id": "ended-thread"}}
    async with coordinator.lease("ended-thread") as lease:
        assert lease is not None
        # The guard asks nothing before a write on the lease's session.
        guarded = LeaseGuardedSaver(saver, lease)
        asked: list[bool] = []
        confirm = lease.confirm

        async def counted() -> bool:
            asked.append(True)
            assert confirm is not None
            return await confirm()

        lease.confirm = counted
        run = graph.copy(update={"checkpointer": guarded})
        await run.ainvoke({"messages": []}, config, durability="exit")
        assert asked == []
        with psycopg.connect(postgres_uri, autocommit=True) as admin:
            admin.execute(
                "select pg_terminate_backend(pid) from pg_locks"
                " where locktype = 'advisory' and objid = %s",
                (advisory_lock_id("ended-thread") & 0xFFFFFFFF,),
            )
        with pytest.raises(LeaseLostError):
            await run.ainvoke(Command(resume="yes"), config, durability="exit")
        assert lease.lost.is_set()
    # Nothing was written after the pause; the thread is free for another.
    async with PostgresRunCoordinator(pool, max_concurrent_leases=1).lease(
        "ended-thread"
    ):
        state = await graph.aget_state(config)
        assert state.interrupts
        await saver.adelete_thread("ended-thread")


async def test_a_leased_thread_is_read_with_its_lock_and_writes(
    pool: AsyncConnectionPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under the lease no read of the latest checkpoint needs a query of its
    # own (it comes with the lock, or with the last write), and what is read
    # is what the database holds.
    saver, coordinator = await _saver(pool)
    graph = _graph(saver)
    config: Any = {"configurable": {"thread_id": "read-once"}}
    queried: list[Any] = []
    original = AsyncPostgresSaver.aget_tuple
    plain = AsyncPostgresSaver(pool)  # not routed: reads through the pool

    async def counted(self: Any, config: Any) -> Any:
        queried.append(config)
        return await original(self, config)

    monkeypatch.setattr(AsyncPostgresSaver, "aget_tuple", counted)
    async with coordinator.lease("read-once"):
        await saver.adelete_thread("read-once")
        assert await saver.aget_tuple(config) is None  # deleted: nothing to read
        await graph.ainvoke({"messages": []}, config, durability="exit")
        first = await saver.aget_tuple(config)  # as the pause is handed out
        assert first is not None
        assert first == await original(plain, config)
        first.checkpoint["channel_versions"]["changed"] = 1  # as LangGraph does
        again = await saver.aget_tuple(config)
        assert again is not None
        assert "changed" not in again.checkpoint["channel_versions"]
        assert again.pending_writes == first.pending_writes
        done = await graph.ainvoke(Command(resume="yes"), config, durability="exit")
        assert done["messages"][-1].text == "said yes"
        latest = await saver.aget_tuple(config)
        assert latest is not None and latest.checkpoint["id"] != first.checkpoint["id"]
        assert latest == await original(plain, config)
        await saver.adelete_thread("read-once")
        assert await saver.aget_tuple(config) is None
        assert queried == []
    assert await saver.aget_tuple(config) is None  # unleased: a query again
    assert len(queried) == 1


async def test_the_latest_checkpoint_is_read_with_the_lock(
    pool: AsyncConnectionPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    saver, coordinator = await _saver(pool)
    graph = _graph(saver)
    config: Any = {"configurable": {"thread_id": "read-with-lock"}}
    async with coordinator.lease("read-with-lock"):
        await graph.ainvoke({"messages": []}, config, durability="exit")
    paused = await saver.aget_tuple(config)  # unleased: through the pool
    assert paused is not None
    queried: list[Any] = []
    original = AsyncPostgresSaver.aget_tuple

    async def counted(self: Any, config: Any) -> Any:
        queried.append(config)
        return await original(self, config)

    monkeypatch.setattr(AsyncPostgresSaver, "aget_tuple", counted)
    async with coordinator.lease("read-with-lock"):
        found = await saver.aget_tuple(config)
        assert found is not None and queried == []
        assert found.checkpoint["id"] == paused.checkpoint["id"]
        assert found.pending_writes == paused.pending_writes
        assert found.metadata == paused.metadata
        done = await graph.ainvoke(Command(resume="yes"), config, durability="exit")
        assert done["messages"][-1].text == "said yes"
        assert queried == []  # the graph's own read too
        await saver.adelete_thread("read-with-lock")
    async with coordinator.lease("read-with-lock"):  # nothing left: read as None
        assert await saver.aget_tuple(config) is None
        assert queried == []
