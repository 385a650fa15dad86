"""`lgos serve`'s Prometheus metrics, scraped from real processes and parsed.

One server (one process, `/metrics` on its API port) is shared by the module's
first tests, each comparing the values before and after what it does. The
last test runs `--workers 2` with the metrics on their own port only, and
checks that every worker's counts are summed and a dead worker's gauges go.
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from openai import OpenAI
from prometheus_client.parser import text_string_to_metric_families

from tests.procs import free_port, lgos_command, running
from tests.waiting import wait_until

FACTORY = "tests.lgos.interrupt_graphs:serve_background_registry"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str) -> tuple[Samples, dict[str, str], str]:
    """GET ``url``; return its samples, each family's type, and the raw text."""
    reply = httpx.get(url, timeout=10)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    types: dict[str, str] = {}
    for family in text_string_to_metric_families(reply.text):
        types[family.name] = family.type
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples, types, reply.text


class Scraper:
    def __init__(self, url: str) -> None:
        self.url = url
        self.samples, self.types, self.text = scrape(url)
        self.before = self.samples

    def refresh(self) -> None:
        self.samples, self.types, self.text = scrape(self.url)

    def value(self, name: str, **labels: str) -> float:
        return self.samples.get((name, frozenset(labels.items())), 0.0)

    def delta(self, name: str, **labels: str) -> float:
        key = (name, frozenset(labels.items()))
        return self.samples.get(key, 0.0) - self.before.get(key, 0.0)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("metrics") / "api.log"
    with running(
        [*lgos_command(), "serve", FACTORY, "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=log,
        env={"LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES": "0"},
    ):
        yield f"http://127.0.0.1:{port}"


def openai_client(base: str) -> OpenAI:
    return OpenAI(base_url=f"{base}/v1", api_key="x", max_retries=0)


def test_requests_latency_first_token_and_errors(server: str) -> None:
    metrics = Scraper(f"{server}/metrics")
    client = openai_client(server)
    for _ in range(2):
        assert client.responses.create(model="echo", input="hi").output_text
    stream = client.responses.create(model="echo", input="hi", stream=True)
    assert [e.type for e in stream][-1] == "response.completed"
    reply = httpx.post(f"{server}/v1/responses", json={"model": "gpt-4o", "input": "x"})
    assert reply.status_code == 404
    failed = httpx.post(
        f"{server}/v1/responses", json={"model": "approval", "input": "explode"}
    )
    assert failed.status_code == 500
    metrics.refresh()

    post = {"route": "/v1/responses", "method": "POST"}
    assert (
        metrics.delta("lgos_http_requests_total", **post, model="echo", status="200")
        == 3
    )
    assert (
        metrics.delta("lgos_http_requests_total", **post, model="unknown", status="404")
        == 1
    )
    assert (
        metrics.delta(
            "lgos_http_requests_total", **post, model="approval", status="500"
        )
        == 1
    )
    assert (
        metrics.delta("lgos_http_request_duration_seconds_count", **post, model="echo")
        == 3
    )
    first_token = {"route": "/v1/responses", "model": "echo"}
    assert metrics.delta("lgos_time_to_first_token_seconds_count", **first_token) == 1
    assert metrics.delta("lgos_time_to_first_token_seconds_sum", **first_token) > 0
    assert metrics.delta("lgos_errors_total", code="model_not_found") == 1
    assert metrics.delta("lgos_errors_total", code="server_error") == 1
    # The scrapes themselves are requests too.
    scrapes = {
        "route": "/metrics",
        "method": "GET",
        "model": "unknown",
        "status": "200",
    }
    assert metrics.delta("lgos_http_requests_total", **scrapes) >= 1
    assert metrics.types["lgos_http_requests"] == "counter"
    assert metrics.types["lgos_http_request_duration_seconds"] == "histogram"
    assert metrics.types["lgos_time_to_first_token_seconds"] == "histogram"
    assert "gpt-4o" not in metrics.text  # an unregistered model is "unknown"


def _resume(paused: dict[str, Any], answer: str) -> dict[str, Any]:
    """The body answering the one question of ``paused`` (a Response as JSON)."""
    [call] = [item for item in paused["output"] if item["type"] == "function_call"]
    return {
        "model": "approval",
        "previous_response_id": paused["id"],
        "input": [
            {
                "type": "function_call_output",
                "call_id": call["call_id"],
                "output": answer,
            }
        ],
    }


def _gate_log(gate: Path) -> str:
    return (gate / "log").read_text() if (gate / "log").exists() else ""


def test_a_pause_and_a_streamed_resume_in_flight(server: str, tmp_path: Path) -> None:
    metrics = Scraper(f"{server}/metrics")
    client = openai_client(server)
    paused = client.responses.create(model="approval", input="Refund order 42")
    gate = tmp_path / "gate"
    gate.mkdir()

    def resume() -> list[str]:
        stream = client.responses.create(
            **_resume(paused.model_dump(), f"gate:{gate}"), stream=True
        )
        return [event.type for event in stream]

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        streaming = pool.submit(resume)
        # The resumed run waits in its last node until the gate opens.
        wait_until(
            lambda: "start" in _gate_log(gate),
            timeout=30,
            message="the resumed run to reach its gate",
        )
        metrics.refresh()
        approval = {"model": "approval"}
        assert metrics.value("lgos_runs_in_flight", **approval) == 1
        assert metrics.value("lgos_leases_held", **approval) == 1
        assert (
            metrics.value("lgos_open_streams", route="/v1/responses", **approval) == 1
        )
        (gate / "open").touch()
        assert streaming.result(timeout=30)[-1] == "response.completed"
    metrics.refresh()
    assert metrics.delta("lgos_interrupts_paused_total", **approval) == 1
    assert metrics.delta("lgos_interrupts_resumed_total", **approval) == 1
    assert metrics.delta("lgos_lease_wait_seconds_count", **approval) == 2
    assert metrics.value("lgos_runs_in_flight", **approval) == 0
    assert metrics.value("lgos_leases_held", **approval) == 0
    assert metrics.value("lgos_open_streams", route="/v1/responses", **approval) == 0
    assert metrics.types["lgos_runs_in_flight"] == "gauge"
    # IDs never become labels.
    assert paused.id not in metrics.text
    assert paused.id.split("_")[2] not in metrics.text


def test_background_runs_by_state(server: str) -> None:
    metrics = Scraper(f"{server}/metrics")
    client = openai_client(server)
    queued = client.responses.create(model="echo", input="later", background=True)
    wait_until(
        lambda: client.responses.retrieve(queued.id).status == "completed",
        timeout=30,
        message="the background run to complete",
    )
    metrics.refresh()
    for state in ("queued", "in_progress", "completed"):
        assert (
            metrics.delta("lgos_background_runs_total", model="echo", state=state) == 1
        )
    assert (
        metrics.delta("lgos_background_runs_total", model="echo", state="failed") == 0
    )


def _workers(process: Any) -> list[psutil.Process]:
    return [
        child
        for child in psutil.Process(process.pid).children()
        if "spawn_main" in " ".join(child.cmdline())
    ]


def _holding(workers: list[psutil.Process], port: int) -> set[int]:
    """The workers holding an established connection on the server's ``port``."""
    return {
        worker.pid
        for worker in workers
        for conn in worker.net_connections()
        if conn.laddr
        and conn.laddr.port == port
        and conn.status == psutil.CONN_ESTABLISHED
    }


@pytest.mark.timeout(300)  # two processes importing LangGraph, one replaced
def test_two_workers_are_summed_on_the_metrics_port(tmp_path: Path) -> None:
    port, metrics_port = free_port(), free_port()
    log = tmp_path / "api.log"
    with running(
        [*lgos_command(), "serve", FACTORY, "--port", str(port), "--workers", "2"],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=log,
        env={
            "LGOS_METRICS_PORT": str(metrics_port),
            "LGOS_METRICS_ON_API_PORT": "false",
            "LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES": "0",
        },
        timeout=240,
    ) as process:
        wait_until(
            lambda: log.read_text().count("Application startup complete") == 2,
            timeout=240,
            message=lambda: f"both workers to start\n{log.read_text()[-4000:]}",
        )
        workers = _workers(process)
        assert len(workers) == 2
        # lgos serve made the workers' shared directory; it goes when it exits.
        [shared] = {worker.environ()["PROMETHEUS_MULTIPROC_DIR"] for worker in workers}
        assert Path(shared).is_dir()
        base = f"http://127.0.0.1:{port}"
        # Off on the API's port; on its own port, served by the main process.
        assert httpx.get(f"{base}/metrics").status_code == 404
        metrics = Scraper(f"http://127.0.0.1:{metrics_port}/metrics")

        # Connections opened together spread over the workers; each answers.
        clients = [httpx.Client(base_url=base) for _ in range(40)]
        try:
            for client in clients:
                reply = client.post(
                    "/v1/responses", json={"model": "echo", "input": "hi"}
                )
                assert reply.status_code == 200, reply.text
            served = _holding(workers, port)
        finally:
            for client in clients:
                client.close()
        assert served == {worker.pid for worker in workers}
        metrics.refresh()
        ok = {
            "route": "/v1/responses",
            "method": "POST",
            "model": "echo",
            "status": "200",
        }
        assert metrics.delta("lgos_http_requests_total", **ok) == 40

        # A stream held open on one worker counts, until that worker dies.
        # One connection, so the resume reaches the worker holding the pause.
        with httpx.Client(base_url=base, timeout=30) as http:
            paused = http.post(
                "/v1/responses", json={"model": "approval", "input": "x"}
            )
            gate = tmp_path / "gate"
            gate.mkdir()
            body = {**_resume(paused.json(), f"gate:{gate}"), "stream": True}
            live = {"route": "/v1/responses", "model": "approval"}
            with http.stream("POST", "/v1/responses", json=body) as stream:
                wait_until(
                    lambda: "start" in _gate_log(gate),
                    timeout=30,
                    message="the resumed run to reach its gate",
                )
                metrics.refresh()
                assert metrics.value("lgos_open_streams", **live) == 1
                assert metrics.value("lgos_runs_in_flight", model="approval") == 1
                holder = int(_gate_log(gate).split()[0])  # the gate logs its pid
                assert holder in {worker.pid for worker in workers}
                os.kill(holder, signal.SIGKILL)
                with pytest.raises(httpx.HTTPError):
                    for _ in stream.iter_bytes():
                        pass

        # Uvicorn replaces the worker; its gauges leave the sums once it is gone.
        def gauges_dropped() -> bool:
            metrics.refresh()
            return (
                metrics.value("lgos_open_streams", **live) == 0
                and metrics.value("lgos_runs_in_flight", model="approval") == 0
            )

        wait_until(gauges_dropped, timeout=30, message="the dead worker's gauges to go")
        # Its counts stay in the sums: counters never go back.
        assert metrics.delta("lgos_http_requests_total", **ok) == 40
    assert process.returncode == 0
    assert not Path(shared).exists()
