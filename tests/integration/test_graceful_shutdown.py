"""`lgos serve` probes and SIGTERM, as real processes on real PostgreSQL.

The runs wait in the ``approval`` graph's last node until the test opens a
gate (``decision = "gate:<dir>"``), so each test decides when a run ends:
within the grace period (it completes) or not (it is stopped, and the pause
it answered is resumed by a new process).
"""

from __future__ import annotations

import concurrent.futures
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from openai import OpenAI

from langgraph_openai_serve.testing import parse_sse
from tests.pg import RestartablePostgres, _as_root
from tests.procs import free_port, lgos_command, running
from tests.waiting import wait_until

FACTORY = "tests.lgos.interrupt_graphs:serve_interrupt_registry"


@contextmanager
def serve(uri: str, log: Path, *, grace: float = 30) -> Iterator[tuple[Any, str]]:
    """Run `lgos serve` until the block ends; yield the process and its address."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "LGOS_POSTGRES_URI": uri,
        "LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES": "0",
        "LGOS_SHUTDOWN_GRACE_SECONDS": str(grace),
    }
    with running(
        [*lgos_command(), "serve", FACTORY, "--port", str(port)],
        ready_url=f"{base}/health/ready",
        log=log,
        env=env,
    ) as process:
        yield process, base


def pause(base: str) -> Any:
    client = OpenAI(base_url=f"{base}/v1", api_key="x", max_retries=0)
    return client.responses.create(model="approval", input="Refund order 42")


def resume_body(paused: Any, decision: str) -> dict[str, Any]:
    call = next(i for i in paused.output if i.type == "function_call")
    return {
        "model": "approval",
        "previous_response_id": paused.id,
        "input": [
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": decision,
            }
        ],
    }


def gate_events(gate: Path) -> list[str]:
    log = gate / "log"
    return (
        [line.split()[1] for line in log.read_text().splitlines()]
        if log.exists()
        else []
    )


def wait_started(gate: Path, runs: int = 1) -> None:
    wait_until(
        lambda: gate_events(gate).count("start") >= runs,
        timeout=20,
        message=f"{runs} run(s) to reach the gate",
    )


def new_gate(tmp_path: Path, name: str) -> Path:
    gate = tmp_path / name
    gate.mkdir()
    return gate


def wait_shutting_down(base: str) -> tuple[httpx.Response, float]:
    """Poll readiness until it fails; return the answer and the seconds it took."""
    start = time.monotonic()
    ready = wait_until(
        lambda: (r := httpx.get(f"{base}/health/ready")).status_code == 503 and r,
        timeout=5,
        interval=0.02,
        message="readiness to fail after SIGTERM",
    )
    return ready, time.monotonic() - start


def test_sigterm_refuses_new_requests_and_lets_a_stream_finish(
    postgres_uri: str, tmp_path: Path
) -> None:
    gate = new_gate(tmp_path, "gate")
    with (
        serve(postgres_uri, tmp_path / "api.log") as (process, base),
        httpx.Client(timeout=60) as http,
    ):
        ready = httpx.get(f"{base}/health/ready")
        assert ready.status_code == 200, ready.text
        assert ready.json() == {
            "status": "ready",
            "checks": {"registry": "ok", "shutdown": "ok", "postgres": "ok"},
        }
        paused = pause(base)
        body = {**resume_body(paused, f"gate:{gate}"), "stream": True}
        with http.stream("POST", f"{base}/v1/responses", json=body) as stream:
            assert stream.status_code == 200
            wait_started(gate)
            process.send_signal(signal.SIGTERM)

            ready, seconds = wait_shutting_down(base)
            assert seconds < 1, seconds
            assert ready.json() == {
                "status": "not_ready",
                "failing": ["shutdown"],
                "checks": {
                    "registry": "ok",
                    "shutdown": "the server is shutting down",
                    "postgres": "ok",
                },
            }
            assert httpx.get(f"{base}/health/live").status_code == 200
            # The Compose healthcheck's route keeps answering while draining.
            assert httpx.get(f"{base}/v1/health").status_code == 200

            refused = httpx.post(
                f"{base}/v1/responses", json={"model": "approval", "input": "x"}
            )
            assert refused.status_code == 503
            assert refused.headers["retry-after"] == "1"
            assert refused.headers["x-request-id"].startswith("req_")
            error = refused.json()["error"]
            assert (error["type"], error["code"]) == (
                "server_error",
                "server_shutting_down",
            )

            (gate / "open").touch()
            events = parse_sse(stream.read().decode())
        assert events[-1]["type"] == "response.completed"
        assert events[-1]["response"]["output"][-1]["content"][0]["text"] == (
            f"Decision: gate:{gate}"
        )
        assert process.wait(30) == 0
    assert gate_events(gate) == ["start", "done"]


def test_runs_past_the_grace_period_are_stopped_and_their_pauses_kept(
    postgres_uri: str, tmp_path: Path
) -> None:
    streamed, answered = new_gate(tmp_path, "streamed"), new_gate(tmp_path, "json")
    with (
        serve(postgres_uri, tmp_path / "api.log", grace=1) as (process, base),
        httpx.Client(timeout=60) as http,
        concurrent.futures.ThreadPoolExecutor(1) as pool,
    ):
        first, second = pause(base), pause(base)
        stream_body = {**resume_body(first, f"gate:{streamed}"), "stream": True}
        json_body = resume_body(second, f"gate:{answered}")
        reply = pool.submit(http.post, f"{base}/v1/responses", json=json_body)
        with http.stream("POST", f"{base}/v1/responses", json=stream_body) as stream:
            wait_started(streamed)
            wait_started(answered)
            process.send_signal(signal.SIGTERM)
            start = time.monotonic()
            events = parse_sse(stream.read().decode())
            stopped_after = time.monotonic() - start
        assert 0.9 < stopped_after < 10, stopped_after
        assert events[-1]["type"] == "response.failed"
        error = events[-1]["response"]["error"]
        # OpenAI's Response allows only its own codes: the message says why.
        assert error["code"] == "server_error"
        assert "shutting down" in error["message"]
        stopped = reply.result(timeout=30)
        assert stopped.status_code == 503, stopped.text
        assert stopped.headers["retry-after"] == "1"
        assert stopped.json()["error"]["code"] == "server_shutting_down"
        assert process.wait(30) == 0
    assert gate_events(streamed) == ["start", "cancelled"]
    assert gate_events(answered) == ["start", "cancelled"]

    # Both pauses survived: a new process resumes them with the same answers.
    (streamed / "open").touch()
    (answered / "open").touch()
    with serve(postgres_uri, tmp_path / "api2.log") as (_, base):
        client = OpenAI(base_url=f"{base}/v1", api_key="x", max_retries=0)
        done = client.responses.create(**json_body)
        assert done.output_text == f"Decision: gate:{answered}"
        done = client.responses.create(**resume_body(first, f"gate:{streamed}"))
        assert done.output_text == f"Decision: gate:{streamed}"
    assert gate_events(streamed) == ["start", "cancelled", "start", "done"]


def _cluster(postgres: RestartablePostgres, action: str) -> None:
    subprocess.run(
        _as_root("pg_ctlcluster", postgres.version, postgres.name, action, "-m", "fast")
        if action == "stop"
        else _as_root("pg_ctlcluster", postgres.version, postgres.name, action),
        check=True,
        capture_output=True,
    )


def test_readiness_names_postgres_while_it_is_down(
    restartable_postgres: RestartablePostgres, tmp_path: Path
) -> None:
    with serve(restartable_postgres.uri, tmp_path / "api.log") as (_, base):
        assert httpx.get(f"{base}/health/ready").status_code == 200
        _cluster(restartable_postgres, "stop")
        down = httpx.get(f"{base}/health/ready", timeout=5)
        assert down.status_code == 503, down.text
        body = down.json()
        assert body["failing"] == ["postgres"]
        assert body["checks"]["postgres"] != "ok"
        assert body["checks"]["registry"] == "ok"
        # Alive all the same: a restart would not bring the database back.
        assert httpx.get(f"{base}/health/live").status_code == 200
        # Bounded: a probe answers within the check's timeout (0.8 s).
        start = time.monotonic()
        assert httpx.get(f"{base}/health/ready").status_code == 503
        assert time.monotonic() - start < 1.5
        _cluster(restartable_postgres, "start")
        wait_until(
            lambda: httpx.get(f"{base}/health/ready").status_code == 200,
            timeout=20,
            interval=0.2,
            message="readiness to recover with PostgreSQL",
        )
