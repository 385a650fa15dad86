"""What an interrupt run deletes, and asks, on PostgreSQL (in process).

With ``lgos serve``'s PostgreSQL resources, a new run that pauses deletes
nothing (its thread is empty), and a finished resume deletes its thread on
the lease's own session without asking the lease first: the deletion cannot
land once the session ended. A lease lost right at the deletion still stops
it, and the finished run is never run again.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from pydantic import SecretStr

from langgraph_openai_serve import LanggraphOpenaiServe
from langgraph_openai_serve.graph.coordinator import Lease
from langgraph_openai_serve.graph.interrupt import checkpoint_key
from langgraph_openai_serve.server import ServerSettings, open_resources
from tests.lgos.interrupt_graphs import interrupt_registry
from tests.pg import thread_count

pytestmark = pytest.mark.anyio


class Counts:
    """Thread deletions and on-demand lease checks (each a DB round trip)."""

    def __init__(self) -> None:
        self.deletions = 0
        self.lease_checks = 0


@pytest.fixture
async def served(
    postgres_uri: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[httpx.AsyncClient, Any, Counts]]:
    counts = Counts()
    delete = AsyncPostgresSaver.adelete_thread
    holds = Lease.holds

    async def counted_delete(self: Any, thread_id: str) -> None:
        counts.deletions += 1
        await delete(self, thread_id)

    async def counted_holds(self: Lease) -> bool:
        counts.lease_checks += 1
        return await holds(self)

    monkeypatch.setattr(AsyncPostgresSaver, "adelete_thread", counted_delete)
    monkeypatch.setattr(Lease, "holds", counted_holds)
    settings = ServerSettings(postgres_uri=SecretStr(postgres_uri))
    async with open_resources(settings) as resources:
        app = FastAPI()
        registry = interrupt_registry(resources.checkpointer, resources.run_coordinator)
        LanggraphOpenaiServe(registry, app).bind_openai_api()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            yield http, resources, counts


async def _post(http: httpx.AsyncClient, body: dict[str, Any]) -> httpx.Response:
    return await http.post("/v1/responses", json=body, timeout=30)


def _resume(paused: dict[str, Any], output: str) -> dict[str, Any]:
    call = next(i for i in paused["output"] if i["type"] == "function_call")
    return {
        "model": "approval",
        "previous_response_id": paused["id"],
        "input": [
            {
                "type": "function_call_output",
                "call_id": call["call_id"],
                "output": output,
            }
        ],
    }


async def test_a_new_run_pauses_without_a_deletion(
    served: tuple[httpx.AsyncClient, Any, Counts], postgres_uri: str
) -> None:
    http, _, counts = served
    reply = await _post(http, {"model": "approval", "input": "x"})
    assert reply.status_code == 200, reply.text
    assert thread_count(postgres_uri) == 1
    # The new run's thread was empty: no deletion (no round trip) before it.
    assert (counts.deletions, counts.lease_checks) == (0, 0)


async def test_a_finished_resume_deletes_without_asking_the_lease(
    served: tuple[httpx.AsyncClient, Any, Counts], postgres_uri: str
) -> None:
    http, _, counts = served
    paused = (await _post(http, {"model": "approval", "input": "x"})).json()
    counts.deletions = counts.lease_checks = 0
    done = await _post(http, _resume(paused, "approve"))
    assert done.status_code == 200, done.text
    assert done.json()["output"][-1]["content"][0]["text"] == "Decision: approve"
    # The finished run's thread is deleted on the lease's session, with no
    # check of the lease first (a ``select 1`` round trip).
    assert (counts.deletions, counts.lease_checks) == (1, 0)
    assert thread_count(postgres_uri) == 0


async def test_a_dead_leftover_is_deleted_before_a_new_start(
    served: tuple[httpx.AsyncClient, Any, Counts], postgres_uri: str
) -> None:
    # A checkpoint without pending interrupts under the caller's run ID is a
    # dead run: the first request starts afresh, deleting it first.
    http, resources, counts = served
    run_id = uuid.uuid4()
    key = checkpoint_key("default", "approval", run_id)
    config: Any = {"configurable": {"thread_id": key, "checkpoint_ns": ""}}
    await resources.checkpointer.aput(config, empty_checkpoint(), {}, {})
    body = {"model": "approval", "input": "x", "metadata": {"lgos_run_id": str(run_id)}}
    reply = await _post(http, body)
    assert reply.status_code == 200, reply.text
    assert counts.deletions == 1
    paused = reply.json()
    assert any(i["type"] == "function_call" for i in paused["output"])
    done = await _post(http, _resume(paused, "approve"))
    assert done.json()["output"][-1]["content"][0]["text"] == "Decision: approve"
    assert thread_count(postgres_uri) == 0


async def test_a_lease_lost_at_the_deletion_keeps_the_finished_thread(
    served: tuple[httpx.AsyncClient, Any, Counts],
    postgres_uri: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The lease's session ends right before the finished run's deletion: the
    # deletion cannot land, the lease is lost, and what is left is the
    # finished checkpoint, which a retry never runs again (it gets the 409
    # and cleans up under its own lease).
    http, _, counts = served
    paused = (await _post(http, {"model": "approval", "input": "x"})).json()
    counted = AsyncPostgresSaver.adelete_thread
    ended: list[int] = []

    async def end_then_delete(self: Any, thread_id: str) -> None:
        if not ended:
            with psycopg.connect(postgres_uri, autocommit=True) as admin:
                rows = admin.execute(
                    "select pg_terminate_backend(l.pid) from pg_locks l"
                    " join pg_database d on d.oid = l.database"
                    " where l.locktype = 'advisory' and l.granted"
                    " and d.datname = current_database()"
                ).fetchall()
            ended.append(len(rows))
        await counted(self, thread_id)

    monkeypatch.setattr(AsyncPostgresSaver, "adelete_thread", end_then_delete)
    done = await _post(http, _resume(paused, "approve"))
    assert done.status_code == 200, done.text
    assert done.json()["output"][-1]["content"][0]["text"] == "Decision: approve"
    assert ended == [1]
    assert thread_count(postgres_uri) == 1  # the deletion did not land
    retry = await _post(http, _resume(paused, "approve"))
    assert retry.status_code == 409, retry.text
    assert retry.json()["error"]["code"] == "interrupt_state_conflict"
    assert thread_count(postgres_uri) == 0
    assert counts.deletions == 2
