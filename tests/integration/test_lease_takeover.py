"""A lease is never run twice at once: two `lgos serve` processes, one PostgreSQL.

Server A runs a resume whose node takes ``NODE_SECONDS``; server B keeps
sending the same resume, getting ``run_busy``. ``DISRUPT_AFTER`` seconds
into the node, A's lease session ends: its backend is terminated, or the
database restarts. PostgreSQL frees the lock at once, B takes it, and A
notices only at its next check (up to 1 s later). B must not run the node
until A has stopped: the node's log (pid, event, wall-clock time) shows at
no moment two processes in the node, and one completion. Three trials of
each, on a cluster of the module's own (so restarting it disturbs nothing
else), with the two servers started once.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from openai import OpenAI

from tests.pg import RestartablePostgres, restartable_cluster
from tests.procs import free_port, lgos_command, running
from tests.tiers import needs
from tests.waiting import wait_until

FACTORY = "tests.lgos.interrupt_graphs:serve_interrupt_registry"
NODE_SECONDS = 3.0
DISRUPT_AFTER = 1.0
TRIALS = 3


@dataclass(frozen=True)
class Servers:
    cluster: RestartablePostgres
    a: str
    b: str


@pytest.fixture(scope="module")
@needs("integration")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    logs = tmp_path_factory.mktemp("takeover")
    with restartable_cluster() as cluster, ExitStack() as stack:
        bases = []
        for name in ("a", "b"):
            port = free_port()
            stack.enter_context(
                running(
                    [*lgos_command(), "serve", FACTORY, "--port", str(port)],
                    ready_url=f"http://127.0.0.1:{port}/v1/health",
                    log=logs / f"{name}.log",
                    env={
                        "LGOS_POSTGRES_URI": cluster.uri,
                        "LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES": "0",
                    },
                )
            )
            bases.append(f"http://127.0.0.1:{port}/v1")
        yield Servers(cluster, *bases)


def _terminate_lease_session(uri: str) -> None:
    """End the one session holding an advisory lock (A's lease)."""
    with psycopg.connect(uri, autocommit=True) as admin:
        ended = admin.execute(
            "select pg_terminate_backend(pid) from pg_locks"
            " where locktype = 'advisory' and granted and pid <> pg_backend_pid()"
        ).fetchall()
    assert len(ended) == 1


@dataclass(frozen=True)
class Trial:
    """One trial's node log, read back: who ran it from when to when."""

    runs: dict[int, list[tuple[str, float]]]
    disrupted: float

    def of(self, pid: int) -> dict[str, float]:
        return dict(self.runs[pid])


def _resume_body(paused: Any, output: str) -> dict[str, Any]:
    call = next(i for i in paused.output if i.type == "function_call")
    return {
        "model": "approval",
        "previous_response_id": paused.id,
        "input": [
            {"type": "function_call_output", "call_id": call.call_id, "output": output}
        ],
    }


def _keep_trying(
    base: str, body: dict[str, Any], seen: list[str], go: threading.Event
) -> httpx.Response:
    """Send ``body`` until it is not refused as busy or unavailable (5xx).

    Sends only while ``go`` is set.
    """
    deadline = time.monotonic() + 60
    with httpx.Client(timeout=60) as http:
        while time.monotonic() < deadline:
            go.wait(30)
            try:
                reply = http.post(f"{base}/responses", json=body)
            except httpx.TransportError as error:
                seen.append(type(error).__name__)
            else:
                busy = reply.status_code == 409 and "run_busy" in reply.text
                if not busy and reply.status_code < 500:
                    return reply
                seen.append(str(reply.status_code))
            time.sleep(0.05)
    raise AssertionError(f"the resume never went through on {base}: {seen[-5:]}")


def _trial(
    servers: Servers, log: Path, disrupt: Callable[[threading.Event], None]
) -> Trial:
    """Run one trial; ``disrupt`` ends A's lease session (B sends while ``go``)."""
    paused = OpenAI(base_url=servers.a, api_key="x", max_retries=0).responses.create(
        model="approval", input=f"Refund {log.name}"
    )
    body = _resume_body(paused, f"timed:{NODE_SECONDS}:{log}")
    seen: list[str] = []
    go = threading.Event()
    go.set()

    def lines() -> list[list[str]]:
        return [line.split() for line in log.read_text().splitlines()]

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        first = pool.submit(httpx.post, f"{servers.a}/responses", json=body, timeout=60)
        wait_until(log.exists, timeout=20, message="A to start the node")
        started = float(lines()[0][2])
        second = pool.submit(_keep_trying, servers.b, body, seen, go)
        wait_until(lambda: "409" in seen, timeout=10, message="B to meet run_busy")
        time.sleep(max(0.0, started + DISRUPT_AFTER - time.time()))  # into the node
        disrupted = time.time()
        disrupt(go)
        lost = first.result(timeout=60)
        done = second.result(timeout=90)
    assert lost.status_code == 503, lost.text
    assert lost.json()["error"]["code"] == "run_lease_lost"
    assert done.status_code == 200, done.text
    assert done.json()["output"][0]["content"][0]["text"].startswith("Decision: timed:")
    runs: dict[int, list[tuple[str, float]]] = {}
    for pid, event, at in lines():
        runs.setdefault(int(pid), []).append((event, float(at)))
    return Trial(runs, disrupted)


def _check(trials: list[Trial], what: str) -> None:
    figures = []
    for trial in trials:
        assert len(trial.runs) == 2, trial.runs  # A, then B
        (a, a_events), (b, b_events) = trial.runs.items()
        assert [e for e, _ in a_events] == ["start", "cancelled"], trial.runs
        assert [e for e, _ in b_events] == ["start", "end"], trial.runs
        a_run, b_run = trial.of(a), trial.of(b)
        gap = b_run["start"] - a_run["cancelled"]
        figures.append(
            f"A stopped {a_run['cancelled'] - trial.disrupted:.2f} s after the "
            f"{what}; B started "
            + (f"{gap:.2f} s after A stopped" if gap > 0 else f"{-gap:.2f} s before")
        )
        assert gap > 0, figures[-1]  # never two processes in the node at once
        assert b_run["end"] - b_run["start"] >= NODE_SECONDS  # completed once
    print(f"\n{what}: " + "; ".join(figures))


def test_a_terminated_lease_session_is_never_run_twice_at_once(
    servers: Servers, tmp_path: Path
) -> None:
    trials = [
        _trial(
            servers,
            tmp_path / f"terminate-{n}",
            lambda go: _terminate_lease_session(servers.cluster.uri),
        )
        for n in range(TRIALS)
    ]
    _check(trials, "termination")


def test_a_database_restart_is_never_run_twice_at_once(
    servers: Servers, tmp_path: Path
) -> None:
    def restart(go: threading.Event) -> None:
        # B holds off while the database is down, so that its pool has not
        # been backing off from failed attempts when the database is back: it
        # then takes the lock as soon as it can (its first request still waits
        # about 1 s: psycopg_pool pauses after a connection fails its check).
        go.clear()
        servers.cluster.restart()  # returns once the database accepts connections
        go.set()

    trials = [
        _trial(servers, tmp_path / f"restart-{n}", restart) for n in range(TRIALS)
    ]
    _check(trials, "restart")
