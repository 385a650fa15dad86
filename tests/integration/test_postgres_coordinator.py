"""PostgresRunCoordinator against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from langgraph_openai_serve.graph.coordinator import RunBusyError
from langgraph_openai_serve.integrations.postgres import (
    PostgresRunCoordinator,
    advisory_lock_id,
    check_connection,
)

pytestmark = pytest.mark.anyio


async def _pool(uri: str) -> AsyncConnectionPool:
    pool = AsyncConnectionPool(
        uri,
        min_size=1,
        max_size=4,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
    )
    await pool.open(wait=True)
    return pool


@pytest.fixture
async def pools(postgres_uri: str) -> AsyncIterator[tuple[AsyncConnectionPool, ...]]:
    first, second = await _pool(postgres_uri), await _pool(postgres_uri)
    yield first, second
    await first.close()
    await second.close()


def _locks_held(uri: str, key: str) -> int:
    with psycopg.connect(uri) as conn:
        objid = advisory_lock_id(key) & 0xFFFFFFFF
        row = conn.execute(
            "select count(*) from pg_locks where locktype = 'advisory' and objid = %s",
            (objid,),
        ).fetchone()
        assert row is not None
        return row[0]


async def test_one_lease_per_key_across_pools(pools, postgres_uri: str) -> None:
    a = PostgresRunCoordinator(pools[0], max_concurrent_leases=2)
    b = PostgresRunCoordinator(pools[1], max_concurrent_leases=2)
    async with a.lease("run-1"):
        assert _locks_held(postgres_uri, "run-1") == 1
        with pytest.raises(RunBusyError):
            async with b.lease("run-1"):
                pass
        async with b.lease("run-2"):  # other keys stay independent
            pass
    assert _locks_held(postgres_uri, "run-1") == 0
    async with b.lease("run-1"):
        pass


async def test_release_after_error_and_cancellation(pools, postgres_uri: str) -> None:
    a = PostgresRunCoordinator(pools[0], max_concurrent_leases=2)
    with pytest.raises(ValueError, match="boom"):
        async with a.lease("k"):
            raise ValueError("boom")
    assert _locks_held(postgres_uri, "k") == 0

    entered = asyncio.Event()

    async def hold() -> None:
        async with a.lease("k"):
            entered.set()
            await asyncio.sleep(60)

    task = asyncio.create_task(hold())
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _locks_held(postgres_uri, "k") == 0
    assert pools[0].get_stats().get("requests_waiting", 0) == 0


async def test_concurrent_contenders_get_exactly_one(pools) -> None:
    coordinators = [PostgresRunCoordinator(p, max_concurrent_leases=3) for p in pools]
    release = asyncio.Event()
    all_tried = asyncio.Event()
    outcomes: list[str] = []

    def tried(outcome: str) -> None:
        outcomes.append(outcome)
        if len(outcomes) == 6:
            all_tried.set()

    async def contend(index: int) -> None:
        try:
            async with coordinators[index % 2].lease("hot"):
                tried("won")
                await release.wait()
        except RunBusyError:
            tried("busy")

    tasks = [asyncio.create_task(contend(i)) for i in range(6)]
    await asyncio.wait_for(all_tried.wait(), 10)
    release.set()
    await asyncio.gather(*tasks)
    assert sorted(outcomes) == ["busy"] * 5 + ["won"]


async def test_leases_beyond_the_slots_are_refused_after_a_bounded_wait(
    pools, postgres_uri: str
) -> None:
    from langgraph_openai_serve.graph.coordinator import LeasesExhaustedError

    coordinator = PostgresRunCoordinator(
        pools[0], max_concurrent_leases=1, slot_wait_seconds=0.2
    )
    async with coordinator.lease("run-1"):
        started = asyncio.get_running_loop().time()
        with pytest.raises(LeasesExhaustedError):
            async with coordinator.lease("run-2"):
                pass
        assert asyncio.get_running_loop().time() - started < 2
    async with coordinator.lease("run-2"):  # the slot came back
        assert _locks_held(postgres_uri, "run-2") == 1


async def test_a_terminated_session_is_found_at_once_by_confirm(
    pools, postgres_uri: str
) -> None:
    # Between two periodic checks, confirm() (asked before every write) sees
    # the session gone at once and marks the lease lost.
    coordinator = PostgresRunCoordinator(
        pools[0], max_concurrent_leases=1, check_seconds=60
    )
    async with coordinator.lease("run-1") as lease:
        assert await lease.holds()
        with psycopg.connect(postgres_uri, autocommit=True) as admin:
            admin.execute(
                "select pg_terminate_backend(pid) from pg_locks"
                " where locktype = 'advisory' and objid = %s",
                (advisory_lock_id("run-1") & 0xFFFFFFFF,),
            )
        assert not await lease.holds()
        assert lease.lost.is_set()
    assert _locks_held(postgres_uri, "run-1") == 0
    async with PostgresRunCoordinator(pools[1], max_concurrent_leases=1).lease("run-1"):
        pass  # free for another process


async def test_the_pool_check_asks_the_server_only_when_it_spoke(
    postgres_uri: str,
) -> None:
    # A quiet connection passes without a query; one whose session the
    # server ended (a restart, pg_terminate_backend) fails the check.
    connection = await psycopg.AsyncConnection.connect(postgres_uri, autocommit=True)
    try:
        sent: list[str] = []
        execute = connection.execute

        async def counted(query: str, *args: object) -> object:
            sent.append(query)
            return await execute(query, *args)

        connection.execute = counted  # type: ignore[method-assign]
        await check_connection(connection)
        assert sent == []
        backend = connection.info.backend_pid
        with psycopg.connect(postgres_uri, autocommit=True) as admin:
            admin.execute("select pg_terminate_backend(%s)", (backend,))
        for _ in range(50):  # until the server's goodbye has arrived
            await asyncio.sleep(0.02)
            try:
                await check_connection(connection)
            except psycopg.OperationalError:
                break
        else:
            pytest.fail("the check never saw the ended session")
        assert sent
    finally:
        await connection.close()
    with pytest.raises(psycopg.OperationalError):
        await check_connection(connection)  # closed


async def test_checkpoint_io_that_stops_answering_loses_the_lease(
    pools, postgres_uri: str
) -> None:
    # Checkpoint I/O on the lease's session counts as its check: a statement
    # that does not finish within the timeout loses the lease, and the
    # session is ended from another connection, freeing the lock.
    coordinator = PostgresRunCoordinator(
        pools[0], max_concurrent_leases=1, check_seconds=60, check_timeout_seconds=0.3
    )
    async with coordinator.lease("run-1") as lease:
        assert lease is not None
        session = coordinator.session("run-1")
        assert session is not None
        async with session.lock:  # a statement in flight that never answers
            assert not await lease.holds()
        assert lease.lost.is_set()
        for _ in range(50):
            if _locks_held(postgres_uri, "run-1") == 0:
                break
            await asyncio.sleep(0.05)
        assert _locks_held(postgres_uri, "run-1") == 0


# Takeover: a lease whose holder lost its session is not run again until
# that holder has stopped (it reports so) or its recorded bound has passed.


def _lease_rows(uri: str) -> list[tuple[str, float]]:
    with psycopg.connect(uri) as conn:
        return conn.execute(
            "select holder, stop_seconds from lgos_run_leases order by holder"
        ).fetchall()


def _terminate(uri: str, key: str) -> int:
    with psycopg.connect(uri, autocommit=True) as admin:
        return len(
            admin.execute(
                "select pg_terminate_backend(pid) from pg_locks"
                " where locktype = 'advisory' and objid = %s",
                (advisory_lock_id(key) & 0xFFFFFFFF,),
            ).fetchall()
        )


async def _crashed_holder(uri: str, key: str, stop_seconds: float) -> None:
    """Take ``key``'s lease as a process that then dies without a word."""
    from langgraph_openai_serve.integrations import lease_record

    async with await psycopg.AsyncConnection.connect(
        uri, autocommit=True, row_factory=dict_row
    ) as conn:
        taken = await lease_record.take(
            conn,
            advisory_lock_id(key),
            uuid.uuid4(),
            holder="crashed:1",
            stop_seconds=stop_seconds,
        )
        assert taken is not None
    # The connection closed: the lock is freed as the backend exits; the row stays.
    for _ in range(100):
        if _locks_held(uri, key) == 0:
            return
        await asyncio.sleep(0.02)
    pytest.fail("the crashed holder's lock was never freed")


async def test_a_clean_release_leaves_no_row_and_the_next_holder_runs_at_once(
    pools, postgres_uri: str
) -> None:
    a = PostgresRunCoordinator(pools[0], max_concurrent_leases=1)
    b = PostgresRunCoordinator(pools[1], max_concurrent_leases=1)
    async with a.lease("run-1"):
        assert [h for h, _ in _lease_rows(postgres_uri)] == [a._holder]
        assert _lease_rows(postgres_uri)[0][1] == a.stop_seconds == 7.0
    assert _lease_rows(postgres_uri) == []
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with b.lease("run-1"):
        assert loop.time() - started < 0.5


async def test_a_takeover_waits_until_the_lost_holder_has_stopped(
    pools, postgres_uri: str
) -> None:
    # A's session is terminated mid-run. B takes the freed lock at once but
    # enters only after A's run has stopped (A's graph task takes 0.5 s to
    # stop once cancelled) and A has reported it, well within A's bound.
    a = PostgresRunCoordinator(
        pools[0], max_concurrent_leases=1, check_seconds=0.2, check_timeout_seconds=1
    )
    b = PostgresRunCoordinator(pools[1], max_concurrent_leases=1)
    loop = asyncio.get_running_loop()
    times: dict[str, float] = {}
    started = asyncio.Event()

    async def work() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.sleep(0.5))  # slow to stop
            times["a stopped"] = loop.time()
            raise

    async def holder() -> None:
        async with a.lease("run-1") as lease:
            task = asyncio.create_task(work())
            lease.cover(task)
            await lease.lost.wait()
            task.cancel()  # and leave at once: the report waits for the task

    async def taker() -> None:
        while True:
            try:
                async with b.lease("run-1"):
                    times["b entered"] = loop.time()
                    return
            except RunBusyError:
                await asyncio.sleep(0.02)

    held = asyncio.create_task(holder())
    await started.wait()
    taking = asyncio.create_task(taker())
    await asyncio.sleep(0.2)
    assert _terminate(postgres_uri, "run-1") == 1
    times["terminated"] = loop.time()
    await asyncio.wait_for(asyncio.gather(held, taking), 10)
    assert times["b entered"] >= times["a stopped"]
    assert times["b entered"] - times["terminated"] < a.stop_seconds
    assert _lease_rows(postgres_uri) == []


async def test_a_holder_that_never_reports_is_waited_for_up_to_its_bound(
    pools, postgres_uri: str
) -> None:
    loop = asyncio.get_running_loop()
    b = PostgresRunCoordinator(
        pools[1], max_concurrent_leases=1, check_seconds=0.2, check_timeout_seconds=0.3
    )
    await b.setup()
    await _crashed_holder(postgres_uri, "run-1", stop_seconds=1.0)
    started = loop.time()
    async with b.lease("run-1"):
        waited = loop.time() - started
    assert 1.0 <= waited < 2.0
    assert _lease_rows(postgres_uri) == []  # B stopped cleanly

    # A holder cancelled while it waits keeps the row, its bound at least the
    # crashed holder's: the next one still waits that long.
    await _crashed_holder(postgres_uri, "run-2", stop_seconds=1.0)

    async def enter() -> None:
        async with b.lease("run-2"):
            pytest.fail("entered before the crashed holder's bound passed")

    with pytest.raises(TimeoutError):
        await asyncio.wait_for(enter(), 0.3)
    assert [h for h, _ in _lease_rows(postgres_uri)] == [b._holder]
    started = loop.time()
    async with b.lease("run-2"):
        assert b.stop_seconds <= loop.time() - started < b.stop_seconds + 1
