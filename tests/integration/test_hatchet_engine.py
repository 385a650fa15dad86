"""Background Responses on a real Hatchet engine: `lgos serve` + `lgos worker`.

The engine is Hatchet's own (built by ``scripts/ensure-hatchet.sh``, started
through the SDK's embedded mode by the ``hatchet_engine`` fixture) on
PostgreSQL; the API and the worker are separate processes sharing a fresh
PostgreSQL database for checkpoints and interrupt leases.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import ConflictError, OpenAI
from prometheus_client.parser import text_string_to_metric_families

from tests.hatchet import hatchet_engine  # noqa: F401 - session fixture
from tests.pg import thread_count
from tests.procs import free_port, lgos_command, running
from tests.waiting import wait_until

FACTORY = "tests.lgos.interrupt_graphs:serve_background_registry"
DEMO_FACTORY = "lgos_demo_api.registry:create_registry"
OFFLINE_DEMO = {
    "DEMO_API_OPENAI_API_KEY": "",
    "DEMO_API_OFFLINE_CHUNK_DELAY": "0",
    "DEMO_API_WEB_SEARCH_BACKEND": "offline",
}

pytestmark = [pytest.mark.stack, pytest.mark.timeout(300)]


@contextmanager
def api(
    tmp_path: Path, env: dict[str, str], factory: str = FACTORY
) -> Iterator[OpenAI]:
    """`lgos serve` with the Hatchet engine; yields an OpenAI client for it."""
    port = free_port()
    with running(
        [*lgos_command(), "serve", factory, "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=tmp_path / "api.log",
        env={**env, "LGOS_BACKGROUND_ENGINE": "hatchet"},
        timeout=120,
    ):
        yield OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="-", max_retries=0)


@contextmanager
def worker(
    tmp_path: Path,
    env: dict[str, str],
    factory: str = FACTORY,
    name: str = "worker",
    metrics_port: int | None = None,
) -> Iterator[Any]:
    """`lgos worker`, ready once the SDK's worker health route answers."""
    port = free_port()
    metrics = {"LGOS_METRICS_PORT": str(metrics_port)} if metrics_port else {}
    with running(
        [*lgos_command(), "worker", factory],
        ready_url=f"http://127.0.0.1:{port}/health",
        log=tmp_path / f"{name}.log",
        env={
            **env,
            "HATCHET_CLIENT_WORKER_HEALTHCHECK_ENABLED": "true",
            "HATCHET_CLIENT_WORKER_HEALTHCHECK_PORT": str(port),
            "HATCHET_CLIENT_WORKER_HEALTHCHECK_BIND_ADDRESS": "127.0.0.1",
            **metrics,
        },
        timeout=120,
    ) as process:
        yield process


def background_counts(url: str) -> dict[str, float]:
    """``lgos_background_runs_total`` of model ``echo`` by state, scraped from ``url``."""
    text = httpx.get(url, timeout=10).text
    return {
        sample.labels["state"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "lgos_background_runs_total"
        and sample.labels["model"] == "echo"
    }


def wait_status(
    client: OpenAI, response_id: str, done: set[str], timeout: float = 120
) -> Any:
    seen: list[str | None] = []

    def reached() -> Any:
        response = client.responses.retrieve(response_id)
        seen.append(response.status)
        return response if response.status in done else None

    return wait_until(
        reached,
        timeout=timeout,
        interval=0.2,
        message=lambda: f"{response_id} to leave {seen[-1]!r} for one of {done}",
    )


def pause(client: OpenAI) -> tuple[str, str]:
    """Start an ``approval`` run in the foreground; return (response, call) IDs."""
    pending = client.responses.create(model="approval", input="Refund order 42")
    [call] = [i for i in pending.output if i.type == "function_call"]
    assert call.name == "lgos_interrupt"
    return pending.id, call.call_id


def answer(client: OpenAI, previous: str, call_id: str, text: str, **extra: Any) -> Any:
    return client.responses.create(
        model="approval",
        previous_response_id=previous,
        input=[{"type": "function_call_output", "call_id": call_id, "output": text}],
        **extra,
    )


def answer_once_free(
    client: OpenAI, previous: str, call_id: str, text: str, timeout: float = 60
) -> Any:
    """Answer in the foreground, retrying ``run_busy`` while a worker lets go.

    A cancelled or dead worker releases the run's lease shortly after Hatchet
    reports the run finished; until then LGOS answers 409 ``run_busy``.
    """

    def attempt() -> Any:
        try:
            return answer(client, previous, call_id, text)
        except ConflictError as busy:
            assert busy.code == "run_busy", busy
            return None

    return wait_until(
        attempt, timeout=timeout, interval=0.5, message="the run's lease to be free"
    )


@pytest.fixture
def env(hatchet_engine: dict[str, str], postgres_uri: str) -> dict[str, str]:  # noqa: F811
    return {**hatchet_engine, "LGOS_POSTGRES_URI": postgres_uri, **OFFLINE_DEMO}


def test_submit_poll_and_idempotent_retry(tmp_path: Path, env: dict[str, str]) -> None:
    metrics_port = free_port()
    with api(tmp_path, env) as client, worker(tmp_path, env, metrics_port=metrics_port):
        key = {"Idempotency-Key": "order-42"}
        queued = client.responses.create(
            model="echo", input="from hatchet", background=True, extra_headers=key
        )
        assert queued.status in {"queued", "in_progress"}
        again = client.responses.create(
            model="echo", input="from hatchet", background=True, extra_headers=key
        )
        assert again.id == queued.id
        reused = httpx.post(
            f"{client.base_url}responses",
            json={"model": "echo", "input": "something else", "background": True},
            headers=key,
        )
        assert reused.status_code == 422
        assert reused.json()["error"]["code"] == "idempotency_key_reused"

        done = wait_status(client, queued.id, {"completed", "failed"})
        assert done.status == "completed", done.error
        assert done.output_text == "Echo: from hatchet"
        # Cancelling a finished run keeps its outcome.
        assert client.responses.cancel(queued.id).status == "completed"
        assert client.responses.retrieve(queued.id).output_text == "Echo: from hatchet"
        # The API counted one queued run (the retry is the same run); the
        # worker, on its own metrics port, the run it executed.
        api_metrics = str(client.base_url).removesuffix("v1/") + "metrics"
        assert background_counts(api_metrics) == {"queued": 1}
        executed = background_counts(f"http://127.0.0.1:{metrics_port}/metrics")
        assert executed == {"in_progress": 1, "completed": 1}


def test_cancel_while_queued(tmp_path: Path, env: dict[str, str]) -> None:
    with api(tmp_path, env) as client:
        queued = client.responses.create(model="echo", input="never", background=True)
        # A fixed window on purpose: with no worker, nothing may start it.
        time.sleep(1.0)
        assert client.responses.retrieve(queued.id).status == "queued"
        assert client.responses.cancel(queued.id).status == "cancelled"
        with worker(tmp_path, env):
            # A fixed window on purpose: a worker now polls, and must not run it.
            time.sleep(2.0)
            after = client.responses.retrieve(queued.id)
        assert after.status == "cancelled"
        assert after.output == []


def test_cancel_while_running_releases_the_lease(
    tmp_path: Path, env: dict[str, str]
) -> None:
    with api(tmp_path, env) as client, worker(tmp_path, env):
        previous, call_id = pause(client)
        running_run = answer(client, previous, call_id, "slow", background=True)
        wait_status(client, running_run.id, {"in_progress"})
        assert client.responses.cancel(running_run.id).status == "cancelled"
        assert client.responses.retrieve(running_run.id).status == "cancelled"
        # A resume cancelled before it handed out a batch or a result keeps
        # the pause it answered (as a crash does) and gives back its lease:
        # the same call answers again once the worker has stopped the run.
        resumed = answer_once_free(client, previous, call_id, "approve")
        assert resumed.status == "completed", resumed
        assert resumed.output_text == "Decision: approve"
        assert thread_count(env["LGOS_POSTGRES_URI"]) == 0  # finished: deleted


def test_worker_killed_mid_run_fails_the_response_and_frees_the_pause(
    tmp_path: Path, env: dict[str, str]
) -> None:
    with api(tmp_path, env) as client:
        with worker(tmp_path, env, name="doomed") as doomed:
            previous, call_id = pause(client)
            run = answer(client, previous, call_id, "slow", background=True)
            wait_status(client, run.id, {"in_progress"})
            os.kill(doomed.pid, signal.SIGKILL)
            doomed.wait(10)
        with worker(tmp_path, env, name="survivor"):
            failed = wait_status(
                client, run.id, {"failed", "completed", "cancelled"}, timeout=240
            )
            assert failed.status == "failed"
            assert failed.error is not None
            # Nothing is left leased: the pause answers in the foreground.
            resumed = answer_once_free(client, previous, call_id, "approve")
            assert resumed.status == "completed", resumed
            assert resumed.output_text == "Decision: approve"


def test_sigterm_drains_the_worker_and_stops_runs_past_the_grace(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """`lgos worker` on SIGTERM: Hatchet's drain, bounded by the grace period."""
    with api(tmp_path, env) as client:
        root = str(client.base_url).removesuffix("/v1/")
        ready = httpx.get(f"{root}/health/ready")
        assert ready.status_code == 200, ready.text
        assert ready.json()["checks"]["hatchet"] == "ok"
        grace = {**env, "LGOS_SHUTDOWN_GRACE_SECONDS": "1"}
        with worker(tmp_path, grace, name="draining") as draining:
            previous, call_id = pause(client)
            run = answer(client, previous, call_id, "slow", background=True)
            wait_status(client, run.id, {"in_progress"})
            draining.send_signal(signal.SIGTERM)
            # Well before the run's own minute: stopped after the grace period.
            assert draining.wait(45) == 0
        failed = wait_status(client, run.id, {"failed", "completed", "cancelled"})
        assert failed.status == "failed"
        assert failed.error is not None
        assert "shutting down" in failed.error.message
        # The stopped resume kept its pause and let go of its lease.
        resumed = answer_once_free(client, previous, call_id, "approve")
        assert resumed.status == "completed", resumed
        assert resumed.output_text == "Decision: approve"


def test_deep_research_sdk_example(tmp_path: Path, env: dict[str, str]) -> None:
    """Seed 003's example: plan in the foreground, research in the background."""
    with (
        api(tmp_path, env, DEMO_FACTORY) as client,
        worker(tmp_path, env, DEMO_FACTORY),
    ):
        tools: Any = [{"type": "web_search"}]
        pending = client.responses.create(
            model="deep-research",
            input="Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
            tools=tools,
            store=False,
        )
        reviews = [
            item
            for item in pending.output
            if item.type == "function_call" and item.name == "lgos_interrupt"
        ]
        assert len(reviews) == 1
        assert json.loads(reviews[0].arguments)["question"]
        queued = client.responses.create(
            model="deep-research",
            previous_response_id=pending.id,
            input=[
                {
                    "type": "function_call_output",
                    "call_id": review.call_id,
                    "output": "Start research",
                }
                for review in reviews
            ],
            tools=tools,
            background=True,
        )
        assert queued.status == "queued"
        report = wait_status(client, queued.id, {"completed", "failed", "cancelled"})
        assert report.status == "completed", report.error
        kinds = [item.type for item in report.output]
        assert kinds.count("web_search_call") >= 3
        assert kinds[-1] == "message"
        annotations = report.output[-1].content[0].annotations
        assert annotations
        assert all(a.type == "url_citation" for a in annotations)
