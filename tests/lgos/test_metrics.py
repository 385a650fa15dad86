"""Prometheus metrics in process: label bounding, and what each layer records.

The metrics live in prometheus-client's default registry (this process is
not in multiprocess mode), so each test compares values before and after.
`lgos serve` processes are scraped in tests/integration/test_metrics_serve.py.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI
from langgraph.checkpoint.memory import InMemorySaver
from openai import AsyncOpenAI
from prometheus_client import REGISTRY
from starlette.applications import Starlette
from starlette.routing import Mount, Route

from langgraph_openai_serve import LanggraphOpenaiServe
from langgraph_openai_serve import metrics as lgos_metrics
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.metrics import (
    OTHER,
    UNKNOWN,
    code_label,
    method_label,
    model_label,
)
from langgraph_openai_serve.server.metrics import install_metrics, route_template
from langgraph_openai_serve.testing import parse_sse
from tests.lgos.asgi import call_asgi
from tests.lgos.graphs import make_registry
from tests.lgos.interrupt_graphs import Counter, interrupt_registry
from tests.lgos.interrupts import LosableCoordinator, answers, calls_of

pytestmark = pytest.mark.anyio


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


class Deltas:
    """Sample values relative to when the object was made."""

    def __init__(self, *samples: tuple[str, dict[str, str]]) -> None:
        self.before = {
            (name, tuple(sorted(labels.items()))): value(name, **labels)
            for name, labels in samples
        }

    def __call__(self, name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return value(name, **labels) - self.before.get(key, 0.0)


# Label bounding ---------------------------------------------------------------


def test_a_model_label_is_a_registered_model_or_unknown() -> None:
    registered = {"echo": object(), "chat": object()}
    assert model_label("echo", registered) == "echo"
    assert model_label("gpt-4o", registered) == UNKNOWN
    assert model_label("resp_lg_" + "0" * 64, registered) == UNKNOWN
    assert model_label(None, registered) == UNKNOWN
    assert model_label(["echo"], registered) == UNKNOWN  # any JSON value


def test_a_method_label_is_a_standard_method_or_other() -> None:
    assert method_label("POST") == "POST"
    assert method_label("HEAD") == "HEAD"
    assert method_label("BREW") == OTHER
    assert method_label("post") == OTHER


def test_error_codes_are_kept_up_to_a_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lgos_metrics, "_codes_seen", set())
    monkeypatch.setattr(lgos_metrics, "MAX_ERROR_CODES", 3)
    assert code_label(None) == "none"
    assert code_label("model_not_found") == "model_not_found"
    assert code_label("Bad Code!") == OTHER
    assert code_label("x" * 65) == OTHER
    assert code_label(404) == OTHER
    assert code_label("run_busy") == "run_busy"
    assert code_label("leases_exhausted") == "leases_exhausted"
    assert code_label("a_fourth_code") == OTHER  # the cap is reached
    assert code_label("run_busy") == "run_busy"  # codes seen before stay


async def _endpoint(request: object) -> None:  # never called
    raise AssertionError


def _scope(method: str, path: str) -> dict[str, object]:
    return {"type": "http", "method": method, "path": path, "root_path": ""}


def test_a_route_label_is_the_template_never_the_path() -> None:
    inner = Starlette(
        routes=[
            Route("/responses", _endpoint, methods=["POST"]),
            Route("/responses/{response_id}", _endpoint, methods=["GET"]),
        ]
    )
    app = Starlette(
        routes=[Route("/metrics", _endpoint, methods=["GET"]), Mount("/v1", inner)]
    )

    def template(method: str, path: str) -> str | None:
        return route_template(app.routes, _scope(method, path))

    assert template("POST", "/v1/responses") == "/v1/responses"
    assert template("GET", "/v1/responses/resp_1") == "/v1/responses/{response_id}"
    assert template("GET", "/v1/responses/resp_2") == "/v1/responses/{response_id}"
    # Another method on a served path (a 405) keeps the route's template.
    assert template("DELETE", "/v1/responses") == "/v1/responses"
    assert template("GET", "/metrics") == "/metrics"
    # Paths no route takes, inside the mount or not, have no template.
    assert template("GET", "/v1/files/file_1") is None
    assert template("GET", "/wp-login.php") is None


# What the layers record ---------------------------------------------------------


@pytest.fixture
def app() -> FastAPI:
    host = FastAPI()
    LanggraphOpenaiServe(make_registry(), host).bind_openai_api()
    install_metrics(host)
    return host


@asynccontextmanager
async def http_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        yield http


REQUESTS = "lgos_http_requests_total"


async def test_requests_count_by_template_model_and_status(app: FastAPI) -> None:
    route = {"route": "/v1/responses", "method": "POST"}
    echo_ok = {**route, "model": "echo", "status": "200"}
    unknown_404 = {**route, "model": UNKNOWN, "status": "404"}
    lookup = {
        "route": "/v1/models/{model}",
        "method": "GET",
        "model": UNKNOWN,
        "status": "404",
    }
    unmatched = {"route": "unmatched", "method": "GET", "model": UNKNOWN}
    seen = Deltas(
        (REQUESTS, echo_ok),
        (REQUESTS, unknown_404),
        (REQUESTS, lookup),
        (REQUESTS, {**unmatched, "status": "404"}),
        ("lgos_errors_total", {"code": "model_not_found"}),
        ("lgos_errors_total", {"code": "not_found"}),
        ("lgos_http_request_duration_seconds_count", {**route, "model": "echo"}),
    )
    async with http_client(app) as http:
        for _ in range(2):
            reply = await http.post(
                "/v1/responses", json={"model": "echo", "input": "x"}
            )
            assert reply.status_code == 200
        for name in ("gpt-4o", "gpt-5"):  # two names, one label
            reply = await http.post("/v1/responses", json={"model": name, "input": "x"})
            assert reply.status_code == 404
        assert (await http.get("/v1/models/user_12345")).status_code == 404
        assert (await http.get("/v1/files/file_12345")).status_code == 404
    assert seen(REQUESTS, **echo_ok) == 2
    assert seen(REQUESTS, **unknown_404) == 2
    assert seen(REQUESTS, **lookup) == 1
    assert seen(REQUESTS, **unmatched, status="404") == 1
    assert seen("lgos_errors_total", code="model_not_found") == 3
    assert seen("lgos_errors_total", code="not_found") == 1
    assert seen("lgos_http_request_duration_seconds_count", **route, model="echo") == 2
    # No label anywhere holds what the client sent as a path or a model name.
    exposed = "\n".join(
        f"{s.name} {s.labels}" for m in REGISTRY.collect() for s in m.samples
    )
    for sent in ("gpt-4o", "user_12345", "file_12345"):
        assert sent not in exposed


async def test_a_stream_records_its_first_token_and_is_open_while_sent(
    app: FastAPI,
) -> None:
    labels = {"route": "/v1/chat/completions", "model": "echo"}
    seen = Deltas(
        ("lgos_time_to_first_token_seconds_count", labels),
        ("lgos_open_streams", labels),
    )
    open_during: list[float] = []

    async def look(_body: bytes) -> None:
        open_during.append(seen("lgos_open_streams", **labels))

    body = {"model": "echo", "messages": [{"role": "user", "content": "hi"}]}
    await call_asgi(app, "/v1/chat/completions", {**body, "stream": True}, look)
    # Without streaming there is no first token to time, and no stream.
    await call_asgi(app, "/v1/chat/completions", body, look)
    assert seen("lgos_time_to_first_token_seconds_count", **labels) == 1
    assert open_during[0] == 1 and open_during[-1] == 0
    assert seen("lgos_open_streams", **labels) == 0


async def test_a_failing_stream_counts_its_error_code(app: FastAPI) -> None:
    seen = Deltas(("lgos_errors_total", {"code": "server_error"}))
    async with http_client(app) as http:
        body = {"model": "failing", "input": "x", "stream": True}
        reply = await http.post("/v1/responses", json=body)
    assert parse_sse(reply.text)[-1]["type"] == "response.failed"
    assert seen("lgos_errors_total", code="server_error") == 1


def _interrupt_app(coordinator: InMemoryRunCoordinator) -> tuple[FastAPI, Counter]:
    counter = Counter()
    host = FastAPI()
    registry = interrupt_registry(InMemorySaver(), coordinator, counter)
    LanggraphOpenaiServe(registry, host).bind_openai_api()
    install_metrics(host)
    return host, counter


APPROVAL = {"model": "approval"}


async def test_pauses_resumes_and_leases_are_counted() -> None:
    approval = APPROVAL
    app, counter = _interrupt_app(InMemoryRunCoordinator())
    seen = Deltas(
        ("lgos_interrupts_paused_total", approval),
        ("lgos_interrupts_resumed_total", approval),
        ("lgos_lease_wait_seconds_count", approval),
        ("lgos_lease_refusals_total", {**approval, "reason": "busy"}),
        ("lgos_errors_total", {"code": "run_busy"}),
    )
    async with http_client(app) as http:
        client = AsyncOpenAI(
            base_url="http://lgos/v1", api_key="x", http_client=http, max_retries=0
        )
        run_id = str(uuid.uuid4())
        paused = await client.responses.create(
            model="approval", input="x", metadata={"lgos_run_id": run_id}
        )
        # The same first request again is handed the pause again: no new pause.
        again = await client.responses.create(
            model="approval", input="x", metadata={"lgos_run_id": run_id}
        )
        assert again.id != paused.id
        assert seen("lgos_interrupts_paused_total", **approval) == 1
        # A resume while another holds the lease is refused as busy.
        resume = {
            "model": "approval",
            "previous_response_id": paused.id,
            "input": answers(calls_of(paused), "slow"),
        }
        slow = asyncio.create_task(http.post("/v1/responses", json=resume))
        await asyncio.wait_for(counter.slow.wait(), 10)  # in its last node
        assert value("lgos_leases_held", **approval) == 1
        assert value("lgos_runs_in_flight", **approval) == 1
        busy = await http.post(
            "/v1/responses",
            json={**resume, "input": answers(calls_of(paused), "ok")},
        )
        assert busy.status_code == 409
        slow.cancel()
        await asyncio.gather(slow, return_exceptions=True)
        done = await client.responses.create(
            **{**resume, "input": answers(calls_of(paused), "ok")}
        )
        assert done.output_text == "Decision: ok"
    assert seen("lgos_interrupts_resumed_total", **approval) == 2  # slow, then ok
    assert seen("lgos_lease_refusals_total", **approval, reason="busy") == 1
    assert seen("lgos_errors_total", code="run_busy") == 1
    # first request, its repeat, slow, the refused one, ok
    assert seen("lgos_lease_wait_seconds_count", **approval) == 5
    assert value("lgos_leases_held", **approval) == 0
    assert value("lgos_runs_in_flight", **approval) == 0


async def test_a_lost_lease_is_counted_once() -> None:
    approval = APPROVAL
    coordinator = LosableCoordinator()
    app, counter = _interrupt_app(coordinator)
    seen = Deltas(
        ("lgos_lease_losses_total", approval),
        ("lgos_errors_total", {"code": "run_lease_lost"}),
    )
    async with http_client(app) as http:
        client = AsyncOpenAI(
            base_url="http://lgos/v1", api_key="x", http_client=http, max_retries=0
        )
        paused = await client.responses.create(model="approval", input="x")
        resume = {
            "model": "approval",
            "previous_response_id": paused.id,
            "input": answers(calls_of(paused), "slow"),
        }
        request = asyncio.create_task(http.post("/v1/responses", json=resume))
        await asyncio.wait_for(counter.slow.wait(), 10)
        coordinator.leases[-1].lost.set()  # its session ended
        reply = await asyncio.wait_for(request, 10)
    assert reply.status_code == 503
    assert seen("lgos_lease_losses_total", **approval) == 1
    assert seen("lgos_errors_total", code="run_lease_lost") == 1
    assert value("lgos_leases_held", **approval) == 0


async def test_the_endpoint_speaks_both_formats(app: FastAPI) -> None:
    async with http_client(app) as http:
        text = await http.get("/metrics")
        openmetrics = await http.get(
            "/metrics", headers={"Accept": "application/openmetrics-text"}
        )
    assert text.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert "# TYPE lgos_http_requests_total counter" in text.text
    assert openmetrics.headers["content-type"].startswith(
        "application/openmetrics-text"
    )
    assert openmetrics.text.endswith("# EOF\n")


async def test_without_the_route_requests_are_still_measured() -> None:
    host = FastAPI()
    LanggraphOpenaiServe(make_registry(), host).bind_openai_api()
    install_metrics(host, route=False)
    models = {"route": "/v1/models", "method": "GET", "model": UNKNOWN, "status": "200"}
    seen = Deltas((REQUESTS, models))
    async with http_client(host) as http:
        assert (await http.get("/metrics")).status_code == 404
        assert (await http.get("/v1/models")).status_code == 200
    assert seen(REQUESTS, **models) == 1
