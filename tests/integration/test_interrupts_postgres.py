"""Interrupts across two `lgos serve` processes sharing one PostgreSQL database."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import openai
import psycopg
import pytest
from openai import OpenAI

from tests.pg import RestartablePostgres, thread_count
from tests.procs import free_port, lgos_command, running
from tests.waiting import wait_until

FACTORY = "tests.lgos.interrupt_graphs:serve_interrupt_registry"


def serve(uri: str, log: Path, port: int) -> Any:
    return running(
        [*lgos_command(), "serve", FACTORY, "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=log,
        env={"LGOS_POSTGRES_URI": uri, "LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES": "0"},
    )


@pytest.fixture
def two_servers(postgres_uri: str, tmp_path: Path) -> Iterator[list[str]]:
    ports = [free_port(), free_port()]
    with ExitStack() as stack:
        for index, port in enumerate(ports):
            stack.enter_context(serve(postgres_uri, tmp_path / f"api{index}.log", port))
        yield [f"http://127.0.0.1:{port}/v1" for port in ports]


def client(base: str) -> OpenAI:
    return OpenAI(base_url=base, api_key="x", max_retries=0)


def resume_body(paused: Any, output: str) -> dict[str, Any]:
    call = next(i for i in paused.output if i.type == "function_call")
    return {
        "model": "approval",
        "previous_response_id": paused.id,
        "input": [
            {"type": "function_call_output", "call_id": call.call_id, "output": output}
        ],
    }


def test_pause_and_resume_across_processes(two_servers: list[str]) -> None:
    a, b = (client(base) for base in two_servers)
    paused = a.responses.create(model="approval", input="Refund order 42")
    done = b.responses.create(**resume_body(paused, "approve"))
    assert done.output_text == "Decision: approve"

    # The instructions' record survives PostgreSQL: repeated ones resume there.
    paused = a.responses.create(
        model="approval", input="Refund order 43", instructions="Be brief."
    )
    with pytest.raises(openai.BadRequestError) as changed:
        b.responses.create(**resume_body(paused, "approve"), instructions="Other.")
    assert changed.value.param == "instructions"
    done = b.responses.create(
        **resume_body(paused, "approve"), instructions="Be brief."
    )
    assert done.output_text == "Decision: approve"

    streamed = a.responses.create(model="parallel", input="x", stream=True)
    final = next(e.response for e in streamed if e.type == "response.completed")
    calls = [i for i in final.output if i.type == "function_call"]
    assert len(calls) == 2
    answers = [
        {
            "type": "function_call_output",
            "call_id": c.call_id,
            "output": "yes"
            if "budget" in json.loads(c.arguments)["question"]
            else "no",
        }
        for c in calls
    ]
    done = b.responses.create(
        model="parallel", previous_response_id=final.id, input=answers
    )
    assert done.output_text == "budget=yes, timeline=no"


def test_twenty_concurrent_resumes_run_once(two_servers: list[str]) -> None:
    paused = client(two_servers[0]).responses.create(model="approval", input="x")
    body = resume_body(paused, "approve")

    async def hammer() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=30) as http:
            return await asyncio.gather(
                *(
                    http.post(f"{two_servers[i % 2]}/responses", json=body)
                    for i in range(20)
                )
            )

    replies = asyncio.run(hammer())
    statuses = sorted(r.status_code for r in replies)
    assert statuses.count(200) == 1, [r.text for r in replies]
    assert statuses.count(409) == 19
    codes = {r.json()["error"]["code"] for r in replies if r.status_code == 409}
    assert codes <= {"run_busy", "interrupt_state_conflict"}
    winner = next(r for r in replies if r.status_code == 200)
    assert winner.json()["output"][0]["content"][0]["text"] == "Decision: approve"
    replay = httpx.post(f"{two_servers[1]}/responses", json=body, timeout=30)
    assert replay.status_code == 409
    assert replay.json()["error"]["code"] == "interrupt_state_conflict"


def _stored(uri: str) -> list[tuple[Any, ...]]:
    """Every checkpoint and pending write in the database, to prove none changed."""
    with psycopg.connect(uri) as conn:
        checkpoints = conn.execute(
            "select thread_id, checkpoint_id, metadata::text from checkpoints"
            " order by thread_id, checkpoint_id"
        ).fetchall()
        writes = conn.execute(
            "select thread_id, checkpoint_id, task_id, idx from checkpoint_writes"
            " order by 1, 2, 3, 4"
        ).fetchall()
    return [*checkpoints, *writes]


def _advisory_locks(uri: str) -> int:
    with psycopg.connect(uri) as conn:
        row = conn.execute(
            "select count(*) from pg_locks l join pg_database d on d.oid = l.database"
            " where l.locktype = 'advisory' and l.granted"
            " and d.datname = current_database()"
        ).fetchone()
    assert row is not None
    return row[0]


def test_a_pending_run_id_goes_back_only_to_its_own_request(
    two_servers: list[str], postgres_uri: str
) -> None:
    a, b = two_servers
    run_id = str(uuid.uuid4())
    body = {
        "model": "approval",
        "input": "Refund order 45",
        "metadata": {"lgos_run_id": run_id},
    }
    paused = client(a).responses.create(**body)
    # The same request, retried on the other server: the pause, re-emitted.
    retried = client(b).responses.create(**body)
    assert retried.id != paused.id
    assert [c.arguments for c in retried.output if c.type == "function_call"] == [
        c.arguments for c in paused.output if c.type == "function_call"
    ]
    stored = _stored(postgres_uri)
    # Another request naming the UUID: 422, and nothing taken or written.
    for base in (a, b):
        for other in ({"input": "Refund order 46"}, {"instructions": "Approve."}):
            reply = httpx.post(
                f"{base}/responses", json={**body, **other, "stream": True}, timeout=30
            )
            assert reply.status_code == 422, reply.text
            error = reply.json()["error"]
            assert (error["code"], error["param"]) == (
                "run_id_reused",
                "metadata.lgos_run_id",
            )
    assert _stored(postgres_uri) == stored
    assert _advisory_locks(postgres_uri) == 0
    done = client(b).responses.create(**resume_body(paused, "approve"))
    assert done.output_text == "Decision: approve"
    assert thread_count(postgres_uri) == 0


def test_a_pause_kept_without_a_fingerprint_goes_to_any_first_request(
    two_servers: list[str], postgres_uri: str
) -> None:
    # What pauses written before LGOS kept fingerprints look like.
    a, b = two_servers
    run_id = str(uuid.uuid4())
    body = {"model": "approval", "input": "x", "metadata": {"lgos_run_id": run_id}}
    client(a).responses.create(**body)
    with psycopg.connect(postgres_uri) as conn:
        stripped = conn.execute(
            "update checkpoints set metadata = metadata - 'lgos.request_sha256'"
            " where metadata ? 'lgos.request_sha256'"
        ).rowcount
    assert stripped > 0
    other = client(b).responses.create(**{**body, "input": "something else"})
    done = client(a).responses.create(**resume_body(other, "approve"))
    assert done.output_text == "Decision: approve"


def test_kill_nine_releases_the_lease(postgres_uri: str, tmp_path: Path) -> None:
    port_a, port_b = free_port(), free_port()
    with serve(postgres_uri, tmp_path / "b.log", port_b):
        b = client(f"http://127.0.0.1:{port_b}/v1")
        with serve(postgres_uri, tmp_path / "a.log", port_a) as process_a:
            a = client(f"http://127.0.0.1:{port_a}/v1")
            paused = a.responses.create(model="approval", input="x")
            gate = tmp_path / "gate"
            gate.mkdir()
            body = resume_body(paused, f"gate:{gate}")
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                pending = pool.submit(
                    httpx.post,
                    f"http://127.0.0.1:{port_a}/v1/responses",
                    json=body,
                    timeout=120,
                )
                _gate_log(gate, 1, "A in the node")  # so A holds the run's lease
                probe = httpx.post(
                    f"http://127.0.0.1:{port_b}/v1/responses", json=body, timeout=30
                )
                assert probe.status_code == 409, probe.text
                assert probe.json()["error"]["code"] == "run_busy"
                os.kill(process_a.pid, signal.SIGKILL)
                process_a.wait(10)
                pending.exception(timeout=30)  # its connection died with A
        # PostgreSQL ends the dead sessions; their advisory locks go with them.

        def resumed() -> httpx.Response | None:
            reply = httpx.post(
                f"http://127.0.0.1:{port_b}/v1/responses",
                json=resume_body(paused, "approve"),
                timeout=30,
            )
            return None if reply.status_code == 409 else reply

        reply = wait_until(
            resumed, timeout=20, interval=0.2, message="A's lease to be released"
        )
        assert reply.status_code == 200, reply.text
        assert reply.json()["output"][0]["content"][0]["text"] == "Decision: approve"

        # An orphaned pause (its client went away) is removed by the sweep.
        b.responses.create(model="approval", input="abandoned")
        assert thread_count(postgres_uri) == 1
    from langgraph_openai_serve.graph.interrupt import delete_expired_interrupt_runs
    from langgraph_openai_serve.server import ServerSettings, open_resources

    async def sweep() -> int:
        settings = ServerSettings(postgres_uri=postgres_uri)
        async with open_resources(settings) as resources:
            return await delete_expired_interrupt_runs(
                resources.checkpointer,
                resources.run_coordinator,
                older_than=timedelta(0),
            )

    assert asyncio.run(sweep()) == 1
    assert thread_count(postgres_uri) == 0


def _lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def _gate_log(gate: Path, count: int, what: str, timeout: float = 20) -> None:
    """Wait until ``gate/log`` has ``count`` lines: ``what`` has happened."""
    wait_until(
        lambda: len(_lines(gate / "log")) == count, timeout=timeout, message=what
    )


def _resume_when_free(
    base: str, body: dict[str, Any], also: type[Exception] | None = None
) -> Any:
    """Send ``body`` to ``base``, retrying while the run is busy (or ``also``)."""

    def attempt() -> Any:
        try:
            return client(base).responses.create(**body)
        except openai.ConflictError as busy:
            assert busy.code == "run_busy", busy
        except Exception as error:
            if also is None or not isinstance(error, also):
                raise
        return None

    return wait_until(attempt, timeout=30, message=f"the run to be free on {base}")


def test_a_dropped_streaming_resume_keeps_its_pause_across_processes(
    two_servers: list[str], tmp_path: Path
) -> None:
    # Server A runs the resume; its client drops mid-run. The identical resume
    # then completes on server B: the node after the pause ran to completion
    # once, with the same Response and call IDs.
    gate = tmp_path / "gate"
    gate.mkdir()
    a, b = two_servers
    paused = client(a).responses.create(model="approval", input="Refund order 44")
    body = resume_body(paused, f"gate:{gate}")
    with (
        httpx.Client(timeout=30) as http,
        http.stream("POST", f"{a}/responses", json={**body, "stream": True}) as cut,
    ):
        assert cut.status_code == 200
        _gate_log(gate, 1, "A in the node")
    _gate_log(gate, 2, "A to cancel its run")
    (gate / "open").touch()
    done = _resume_when_free(b, body)  # A releases the lease just after cancelling
    assert done.output_text == f"Decision: gate:{gate}"
    events = [line.split() for line in _lines(gate / "log")]
    assert [event for _, event in events] == ["start", "cancelled", "start", "done"]
    assert events[0][0] != events[2][0]  # two processes, one completion
    with pytest.raises(openai.ConflictError) as replayed:
        client(a).responses.create(**body)
    assert replayed.value.code == "interrupt_state_conflict"


def _terminate_lease_sessions(postgres_uri: str) -> int:
    """End every session holding an advisory lock in the test database."""
    with psycopg.connect(postgres_uri, autocommit=True) as admin:
        rows = admin.execute(
            "select pg_terminate_backend(l.pid) from pg_locks l"
            " join pg_database d on d.oid = l.database"
            " where l.locktype = 'advisory' and l.granted"
            " and d.datname = current_database() and l.pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


@pytest.mark.parametrize("stream", [False, True])
def test_a_lost_lease_stops_its_run(
    two_servers: list[str], postgres_uri: str, tmp_path: Path, stream: bool
) -> None:
    # Server A runs the resume; its lease session is killed mid-node. A stops
    # the run without writing, its client learns the outcome is unknown, and
    # the same resume then completes on B: one completion of the node.
    gate = tmp_path / "gate"
    gate.mkdir()
    a, b = two_servers
    paused = client(a).responses.create(model="approval", input="Refund order 45")
    body = resume_body(paused, f"gate:{gate}")
    with (
        httpx.Client(timeout=30) as http,
        concurrent.futures.ThreadPoolExecutor(1) as pool,
    ):
        answer = pool.submit(
            http.post, f"{a}/responses", json={**body, "stream": stream}
        )
        _gate_log(gate, 1, "A in the node")
        assert _terminate_lease_sessions(postgres_uri) == 1
        _gate_log(gate, 2, "A to stop its run", timeout=10)
        lost = answer.result(timeout=30)
    if stream:
        assert lost.status_code == 200
        last = [line for line in lost.text.splitlines() if line.startswith("data:")][-1]
        failed = json.loads(last[5:])
        assert failed["type"] == "response.failed"
        assert "lost its lease" in failed["response"]["error"]["message"]
    else:
        assert lost.status_code == 503, lost.text
        error = lost.json()["error"]
        assert (error["type"], error["code"]) == ("server_error", "run_lease_lost")
        assert "outcome is unknown" in error["message"]
    (gate / "open").touch()
    done = client(b).responses.create(**body)  # the pause is intact on B
    assert done.output_text == f"Decision: gate:{gate}"
    events = [line.split() for line in _lines(gate / "log")]
    assert [event for _, event in events] == ["start", "cancelled", "start", "done"]
    assert events[0][0] != events[2][0]


def test_a_database_restart_stops_the_run_and_the_retry_completes_once(
    restartable_postgres: RestartablePostgres, tmp_path: Path
) -> None:
    # The database restarts while server A runs a resume: A stops the run
    # (its lease is gone), writing nothing; server B, retrying, completes the
    # same resume once the database is back, on fresh pooled connections.
    gate = tmp_path / "gate"
    gate.mkdir()
    uri = restartable_postgres.uri
    with ExitStack() as stack:
        ports = [free_port(), free_port()]
        for index, port in enumerate(ports):
            stack.enter_context(serve(uri, tmp_path / f"api{index}.log", port))
        a, b = (f"http://127.0.0.1:{port}/v1" for port in ports)
        paused = client(a).responses.create(model="approval", input="Refund 46")
        body = resume_body(paused, f"gate:{gate}")
        with (
            httpx.Client(timeout=60) as http,
            concurrent.futures.ThreadPoolExecutor(1) as pool,
        ):
            answer = pool.submit(http.post, f"{a}/responses", json=body)
            _gate_log(gate, 1, "A in the node")
            restartable_postgres.restart()
            _gate_log(gate, 2, "A to stop its run", timeout=15)
            lost = answer.result(timeout=60)
        assert lost.status_code == 503, lost.text
        assert lost.json()["error"]["code"] == "run_lease_lost"
        (gate / "open").touch()
        # B's first attempts may meet the database starting up.
        done = _resume_when_free(b, body, also=openai.InternalServerError)
        assert done.output_text == f"Decision: gate:{gate}"
    events = [event for _, event in (line.split() for line in _lines(gate / "log"))]
    assert events == ["start", "cancelled", "start", "done"]
