"""Graceful shutdown in process: refusing requests, stopping runs, readiness.

The real signal path (``lgos serve`` on SIGTERM) is tested with processes in
``tests/integration/test_graceful_shutdown.py``; these tests drive the same
pieces directly: :class:`ShutdownState` and its middleware, the
:class:`RunStop` a run is handed, the drain, and the readiness checks.
"""

from __future__ import annotations

import asyncio
import base64
import http.server
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.config import get_stream_writer
from langgraph.graph import START, MessagesState, StateGraph

from langgraph_openai_serve import (
    GraphConfig,
    GraphRegistry,
    GraphRequest,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.graph.run_stop import RunStop, RunStoppedError
from langgraph_openai_serve.graph.runner import RunSession
from langgraph_openai_serve.graph.status import status_event
from langgraph_openai_serve.server import ServerSettings, create_app
from langgraph_openai_serve.server.health import NotReady, Readiness
from langgraph_openai_serve.server.shutdown import drain
from langgraph_openai_serve.testing import parse_sse
from tests.lgos.graphs import make_registry

pytestmark = pytest.mark.anyio


class Gate:
    """A graph node that says it started, then waits until released."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = 0

    def registry(self) -> GraphRegistry:
        async def wait(state: MessagesState) -> dict[str, Any]:
            get_stream_writer()(status_event("waiting"))
            self.started.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            return {"messages": [AIMessage("released")]}

        builder = StateGraph(MessagesState)
        builder.add_node("wait", wait)
        builder.add_edge(START, "wait")
        graph = builder.compile()
        return GraphRegistry(
            graphs={"waits": GraphConfig(graph=graph, description="d")}
        )


@asynccontextmanager
async def served(
    registry: GraphRegistry,
) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    app = FastAPI()
    serve = LanggraphOpenaiServe(registry, app).bind_openai_api()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        yield serve, http


async def test_runs_stop_with_run_stopped_error_streaming_or_not() -> None:
    for stream in (True, False):
        gate, stop = Gate(), RunStop()
        session = RunSession(
            GraphRequest(model="waits"), [HumanMessage("x")], gate.registry(), stop=stop
        )

        async def consume(session: RunSession = session, stream: bool = stream) -> None:
            async with session:
                async for _ in session.batches(stream=stream):
                    pass

        task = asyncio.create_task(consume())
        await asyncio.wait_for(gate.started.wait(), 5)
        stop.stop()
        with pytest.raises(RunStoppedError, match="shutting down"):
            await asyncio.wait_for(task, 5)
        assert gate.cancelled == 1


async def test_a_stopped_switch_stops_new_runs_and_spares_finished_ones() -> None:
    stop = RunStop()
    session = RunSession(
        GraphRequest(model="echo"), [HumanMessage("x")], make_registry(), stop=stop
    )
    async with session:
        events = [e async for batch in session.batches(stream=False) for e in batch]
    stop.stop()  # after the result: nothing to stop
    assert isinstance(events[-1], AIMessage)

    gate = Gate()
    gate.release.set()
    session = RunSession(
        GraphRequest(model="waits"), [HumanMessage("x")], gate.registry(), stop=stop
    )
    with pytest.raises(RunStoppedError):
        async with session:
            async for _ in session.batches(stream=True):
                pass


async def test_shutting_down_refuses_new_requests_but_not_the_health_route() -> None:
    async with served(make_registry()) as (serve, http):
        assert (await http.get("/v1/models")).status_code == 200
        serve.shutdown.begin()
        for method, path in [("POST", "/v1/responses"), ("GET", "/v1/models")]:
            refused = await http.request(method, path, json={"model": "echo"})
            assert refused.status_code == 503
            assert refused.headers["retry-after"] == "1"
            assert refused.headers["x-request-id"].startswith("req_")
            assert refused.json() == {
                "error": {
                    "message": "The server is shutting down; retry the request.",
                    "type": "server_error",
                    "param": None,
                    "code": "server_shutting_down",
                }
            }
        assert (await http.get("/v1/health")).json()["status"] == "ok"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/responses", {"input": "x"}),
        ("/v1/responses", {"input": "x", "stream": True}),
        ("/v1/chat/completions", {"messages": [{"role": "user", "content": "x"}]}),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": "x"}], "stream": True},
        ),
    ],
)
async def test_stopped_runs_answer_server_shutting_down(
    path: str, body: dict[str, Any]
) -> None:
    gate = Gate()
    async with served(gate.registry()) as (serve, http):
        reply = asyncio.create_task(http.post(path, json={"model": "waits", **body}))
        await asyncio.wait_for(gate.started.wait(), 5)
        assert serve.shutdown.in_flight == 1
        assert not await serve.shutdown.wait_idle(0.01)
        serve.shutdown.stop_runs()
        answer = await asyncio.wait_for(reply, 5)
        assert await serve.shutdown.wait_idle(1)
    assert gate.cancelled == 1
    if not body.get("stream"):
        assert answer.status_code == 503
        assert answer.headers["retry-after"] == "1"
        assert answer.json()["error"]["code"] == "server_shutting_down"
        return
    events = parse_sse(answer.text)
    if path == "/v1/responses":
        failed = events[-1]
        assert failed["type"] == "response.failed"
        assert failed["response"]["error"]["code"] == "server_error"
        assert "shutting down" in failed["response"]["error"]["message"]
    else:
        assert events[-1]["error"]["code"] == "server_shutting_down"


async def test_the_drain_waits_for_runs_within_the_grace_and_stops_the_rest() -> None:
    gate = Gate()
    async with served(gate.registry()) as (serve, http):
        body = {"model": "waits", "input": "x", "stream": True}
        reply = asyncio.create_task(http.post("/v1/responses", json=body))
        await asyncio.wait_for(gate.started.wait(), 5)
        draining = asyncio.create_task(drain(serve.shutdown, grace=30))
        await asyncio.sleep(0)
        assert serve.shutdown.shutting_down
        gate.release.set()  # the run ends within the grace period
        await asyncio.wait_for(draining, 5)
        events = parse_sse((await reply).text)
        assert events[-1]["type"] == "response.completed"
        assert not serve.shutdown.run_stop.stopped

    gate = Gate()
    async with served(gate.registry()) as (serve, http):
        reply = asyncio.create_task(http.post("/v1/responses", json=body))
        await asyncio.wait_for(gate.started.wait(), 5)
        await asyncio.wait_for(drain(serve.shutdown, grace=0.05), 5)
        assert serve.shutdown.run_stop.stopped
        events = parse_sse((await reply).text)
        assert events[-1]["type"] == "response.failed"
        assert gate.cancelled == 1


async def test_readiness_names_each_failing_check_and_shares_a_round() -> None:
    calls = 0

    async def ok() -> None:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)

    async def broken() -> None:
        raise ConnectionRefusedError

    async def slow() -> None:
        await asyncio.sleep(5)

    async def refusing() -> None:
        raise NotReady("the server is shutting down")

    readiness = Readiness(
        {"ok": ok, "broken": broken, "slow": slow, "refusing": refusing},
        timeout=0.05,
    )
    first, second = await asyncio.gather(readiness.report(), readiness.report())
    assert (
        first
        == second
        == {
            "ok": "ok",
            "broken": "failed (ConnectionRefusedError)",
            "slow": "no answer within 0.05 s",
            "refusing": "the server is shutting down",
        }
    )
    assert calls == 1


@asynccontextmanager
async def lgos_app(settings: ServerSettings) -> AsyncIterator[httpx.AsyncClient]:
    """``create_app`` as ``lgos serve`` builds it, lifespan included."""
    app = create_app("tests.lgos.graphs:serve_registry", settings=settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://lgos"
        ) as http:
            yield http


async def test_the_probes_live_at_the_root_whatever_the_prefix() -> None:
    settings = ServerSettings(openai_api_prefix="/openai/v1")
    async with lgos_app(settings) as http:
        assert (await http.get("/health/live")).json() == {"status": "ok"}
        ready = await http.get("/health/ready")
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "ready",
            "checks": {"registry": "ok", "shutdown": "ok"},
        }
        assert (await http.get("/openai/v1/health")).status_code == 200


def hatchet_token(server_url: str) -> tuple[str, str]:
    def b64(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    tenant = "707d0855-80ab-4e1f-a156-f1c4546cbf52"
    claims = {
        "sub": tenant,
        "server_url": server_url,
        "grpc_broadcast_address": "127.0.0.1:9",
    }
    return f"{b64({'alg': 'HS256'})}.{b64(claims)}.sig", tenant


@pytest.fixture
def hatchet_api() -> Iterator[str]:
    """A loopback stand-in for the Hatchet engine's REST readiness route."""

    class Ready(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/api/ready" else 404)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ready)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_readiness_asks_hatchet_when_it_runs_background_responses(
    monkeypatch: pytest.MonkeyPatch, hatchet_api: str
) -> None:
    settings = ServerSettings(background_engine="hatchet")
    for url, expected in [
        (hatchet_api, "ok"),
        ("http://127.0.0.1:9", "failed (RestConnectionError)"),
    ]:
        token, tenant = hatchet_token(url)
        monkeypatch.setenv("HATCHET_CLIENT_TOKEN", token)
        monkeypatch.setenv("HATCHET_CLIENT_TENANT_ID", tenant)
        monkeypatch.setenv("HATCHET_CLIENT_SERVER_URL", url)
        async with lgos_app(settings) as http:
            ready = await http.get("/health/ready")
        assert ready.json()["checks"]["hatchet"] == expected, ready.text
        assert ready.status_code == (200 if expected == "ok" else 503)
