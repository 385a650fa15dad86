"""Request IDs, RequestContextFilter, errors logged once, structured command logs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage
from langgraph.config import get_config
from langgraph.graph import START, MessagesState, StateGraph

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    LanggraphOpenaiServe,
    RequestContextFilter,
)
from langgraph_openai_serve.background import InMemoryBackgroundBackend
from langgraph_openai_serve.request_context import (
    bind_log_fields,
    log_context,
    log_fields,
)
from langgraph_openai_serve.server.logging_config import (
    JsonFormatter,
    TextFormatter,
    logging_config,
)
from tests.lgos.graphs import make_registry
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

node_logger = logging.getLogger("tests.lgos.graph_node")


class Records(logging.Handler):
    """A handler with RequestContextFilter, as a host would install it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.addFilter(RequestContextFilter())
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def errors(self) -> list[logging.LogRecord]:
        return [
            r
            for r in self.records
            if r.levelno >= logging.ERROR
            and r.name.startswith("langgraph_openai_serve")
        ]


@pytest.fixture
def records() -> Iterator[Records]:
    handler = Records()
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://lgos"
    )


def served(registry: GraphRegistry, **options: Any) -> FastAPI:
    app = FastAPI()
    LanggraphOpenaiServe(registry, app, **options).bind_openai_api()
    return app


async def test_every_response_of_the_mount_has_a_request_id() -> None:
    backend = InMemoryBackgroundBackend(make_registry())
    app = served(make_registry(), background=backend)
    unknown = f"resp_lg_{uuid.uuid4().hex}_{uuid.uuid4().hex}"
    calls = [
        ("GET", "/v1/models", None, 200),
        ("GET", "/v1/models/echo", None, 200),
        ("GET", "/v1/models/nope", None, 404),
        ("GET", "/v1/health", None, 200),
        ("GET", "/v1/no-such-route", None, 404),
        ("POST", "/v1/responses", {"model": "echo", "input": "hi"}, 200),
        (
            "POST",
            "/v1/responses",
            {"model": "echo", "input": "hi", "stream": True},
            200,
        ),
        ("POST", "/v1/responses", {"model": "echo", "temperature": 1}, 400),
        ("POST", "/v1/responses", {"model": "failing", "input": "x"}, 500),
        (
            "POST",
            "/v1/chat/completions",
            {"model": "echo", "messages": [{"role": "user", "content": "x"}]},
            200,
        ),
        ("GET", f"/v1/responses/{unknown}", None, 404),
        ("POST", f"/v1/responses/{unknown}/cancel", None, 404),
        ("DELETE", "/v1/health", None, 405),
    ]
    seen = set()
    async with backend.lifespan(), client(app) as http:
        for method, path, body, status in calls:
            reply = await http.request(method, path, json=body)
            assert reply.status_code == status, (method, path, reply.text)
            request_id = reply.headers["x-request-id"]
            assert request_id.startswith("req_") and len(request_id) == 36
            seen.add(request_id)
    assert len(seen) == len(calls)


def capturing_registry(seen: dict[str, Any]) -> GraphRegistry:
    def node(state: MessagesState) -> dict[str, Any]:
        seen.update(get_config()["metadata"])
        node_logger.info("inside the graph", extra={"step": "node"})
        return {"messages": [AIMessage("ok")]}

    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    return GraphRegistry(
        graphs={"m": GraphConfig(graph=builder.compile(), description="d")}
    )


@pytest.mark.parametrize("stream", [False, True])
async def test_request_fields_reach_graph_config_and_log_records(
    records: Records, stream: bool
) -> None:
    seen: dict[str, Any] = {}
    async with client(served(capturing_registry(seen))) as http:
        reply = await http.post(
            "/v1/chat/completions",
            json={
                "model": "m",
                "messages": [{"role": "user", "content": "x"}],
                "stream": stream,
                "safety_identifier": "end-user-1",
            },
        )
    request_id = reply.headers["x-request-id"]
    assert seen["lgos.request_id"] == request_id
    assert seen["lgos.model"] == "m"
    assert seen["lgos.user"] == "end-user-1"
    [record] = [r for r in records.records if r.name == node_logger.name]
    assert record.request_id == request_id  # type: ignore[attr-defined]
    assert record.model == "m"  # type: ignore[attr-defined]
    assert record.step == "node"  # type: ignore[attr-defined]


def test_filter_keeps_caller_fields_and_adds_nothing_outside_requests() -> None:
    make = logging.getLogger("t").makeRecord
    outside = make("t", logging.INFO, "f", 1, "msg", (), None)
    assert RequestContextFilter().filter(outside)
    assert not hasattr(outside, "request_id")

    async def inside() -> logging.LogRecord:
        bind_log_fields(request_id="req_1", model="m", response_id=None)
        assert log_fields() == {"request_id": "req_1", "model": "m"}
        record = make("t", logging.INFO, "f", 1, "msg", (), None, extra={"model": "x"})
        RequestContextFilter().filter(record)
        return record

    record = asyncio.run(inside())  # a task of its own: the fields end with it
    assert record.request_id == "req_1"  # type: ignore[attr-defined]
    assert record.model == "x"  # type: ignore[attr-defined]
    assert log_fields() == {}
    with log_context(response_id="resp_1"):
        assert log_fields() == {"response_id": "resp_1"}
    assert log_fields() == {}  # a block's fields end with it


def failures(records: Records) -> list[logging.LogRecord]:
    errors = records.errors()
    assert all(r.exc_info for r in errors)  # with the traceback
    return errors


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/responses", {"model": "failing", "input": "x"}),
        ("/v1/responses", {"model": "failing", "input": "x", "stream": True}),
        (
            "/v1/chat/completions",
            {"model": "failing", "messages": [{"role": "user", "content": "x"}]},
        ),
        (
            "/v1/chat/completions",
            {
                "model": "failing",
                "messages": [{"role": "user", "content": "x"}],
                "stream": True,
            },
        ),
    ],
)
async def test_a_graph_failure_is_logged_once_with_its_request(
    records: Records, path: str, body: dict[str, Any]
) -> None:
    async with client(served(make_registry())) as http:
        reply = await http.post(path, json=body)
    [error] = failures(records)
    assert error.exc_info is not None and error.exc_info[0] is RuntimeError
    assert error.request_id == reply.headers["x-request-id"]  # type: ignore[attr-defined]
    assert error.model == "failing"  # type: ignore[attr-defined]


async def test_a_failing_graph_factory_is_logged_once_and_a_500(
    records: Records,
) -> None:
    def factory() -> Any:
        raise ValueError("no graph today")

    registry = GraphRegistry(graphs={"m": GraphConfig(graph=factory, description="d")})
    async with client(served(registry)) as http:
        reply = await http.post("/v1/responses", json={"model": "m", "input": "x"})
    assert reply.status_code == 500
    assert reply.json()["error"]["type"] == "server_error"
    [error] = failures(records)
    assert error.exc_info is not None and error.exc_info[0] is ValueError


async def test_an_unexpected_route_error_is_logged_once(records: Records) -> None:
    def scope(request: Any) -> str:
        if request.method == "GET":
            raise RuntimeError("tenant lookup failed")
        return "t1"

    registry = background_registry(lambda state: {"messages": [AIMessage("ok")]})
    backend = InMemoryBackgroundBackend(registry)
    app = served(registry, background=backend, checkpoint_scope=scope)
    async with backend.lifespan(), client(app) as http:
        queued = await http.post(
            "/v1/responses", json={"model": "m", "input": "x", "background": True}
        )
        # ASGITransport re-raises app exceptions: this one is handled and logged.
        reply = await http.get(f"/v1/responses/{queued.json()['id']}")
    assert reply.status_code == 500
    assert "x-request-id" in reply.headers
    [error] = failures(records)
    assert error.exc_info is not None and error.exc_info[0] is RuntimeError


def background_registry(node: Any) -> GraphRegistry:
    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    return GraphRegistry(
        graphs={
            "m": GraphConfig(
                graph=builder.compile(),
                description="d",
                features=frozenset({GraphFeature.BACKGROUND}),
            )
        }
    )


async def test_background_failure_is_logged_once_with_its_response(
    records: Records,
) -> None:
    def node(state: MessagesState) -> dict[str, Any]:
        raise RuntimeError("background boom")

    registry = background_registry(node)
    backend = InMemoryBackgroundBackend(registry)
    async with backend.lifespan(), client(served(registry, background=backend)) as http:
        queued = await http.post(
            "/v1/responses", json={"model": "m", "input": "x", "background": True}
        )
        response_id = queued.json()["id"]

        async def failed() -> bool:
            reply = await http.get(f"/v1/responses/{response_id}")
            return reply.json()["status"] == "failed"

        await eventually(failed, message="the background response to fail")
    [error] = failures(records)
    assert error.response_id == response_id  # type: ignore[attr-defined]
    assert error.model == "m"  # type: ignore[attr-defined]
    # The in-memory engine runs the job in the submitting request's context.
    assert error.request_id == queued.headers["x-request-id"]  # type: ignore[attr-defined]


async def test_cancellations_and_closed_streams_are_not_logged(
    records: Records,
) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    async def node(state: MessagesState) -> dict[str, Any]:
        started.set()
        await release.wait()
        return {"messages": [AIMessage("late")]}

    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    app = served(
        GraphRegistry(
            graphs={"m": GraphConfig(graph=builder.compile(), description="d")}
        )
    )

    async def stream(path: str, body: dict[str, Any]) -> None:
        async with client(app) as http, http.stream("POST", path, json=body) as reply:
            async for _ in reply.aiter_bytes():
                pass

    for path, body in [
        ("/v1/responses", {"model": "m", "input": "x", "stream": True}),
        (
            "/v1/chat/completions",
            {
                "model": "m",
                "messages": [{"role": "user", "content": "x"}],
                "stream": True,
            },
        ),
        ("/v1/responses", {"model": "m", "input": "x"}),
    ]:
        started.clear()
        task = asyncio.create_task(stream(path, body))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    # A fixed window on purpose: no warning is logged late, after the cancel.
    await asyncio.sleep(0.05)
    assert [r for r in records.records if r.levelno >= logging.WARNING] == []


def record_with(**fields: Any) -> logging.LogRecord:
    try:
        raise ValueError("bad")
    except ValueError:
        import sys

        info = sys.exc_info()
    record = logging.getLogger("lgos.test").makeRecord(
        "lgos.test", logging.ERROR, "f", 1, "failed %s", ("x",), info, extra=fields
    )
    return record


def test_json_formatter_writes_one_object_per_record() -> None:
    line = JsonFormatter().format(record_with(request_id="req_1", model="m", n=1))
    assert "\n" not in line
    payload = json.loads(line)
    assert payload["level"] == "ERROR"
    assert payload["logger"] == "lgos.test"
    assert payload["message"] == "failed x"
    assert payload["request_id"] == "req_1" and payload["model"] == "m"
    assert payload["n"] == 1
    assert payload["time"].endswith("Z")
    assert "ValueError: bad" in payload["exception"]


def test_json_formatter_splits_uvicorn_access_records() -> None:
    record = logging.getLogger("uvicorn.access").makeRecord(
        "uvicorn.access",
        logging.INFO,
        "f",
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:1", "GET", "/v1/models", "1.1", 200),
        None,
    )
    payload = json.loads(JsonFormatter().format(record))
    assert payload["method"] == "GET" and payload["status_code"] == 200
    assert payload["path"] == "/v1/models"


def test_text_formatter_appends_fields() -> None:
    TextFormatter().format(record_with())  # no fields: plain line
    line = TextFormatter().format(record_with(request_id="req_1"))
    first = line.splitlines()[0]
    assert first.endswith("lgos.test: failed x request_id=req_1")
    assert "ValueError: bad" in line


def test_command_logging_config_filters_every_handler() -> None:
    config = logging_config("json", "debug")
    assert config["root"]["level"] == "DEBUG"
    for handler in config["handlers"].values():
        assert handler["filters"] == ["lgos"]
    assert config["filters"]["lgos"]["()"].endswith("RequestContextFilter")
    assert config["loggers"]["uvicorn.access"]["handlers"] == ["access"]


def test_serve_passes_structured_logging_to_uvicorn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from langgraph_openai_serve import cli

    passed: dict[str, Any] = {}
    monkeypatch.setattr(
        cli.uvicorn_command, "callback", lambda **options: passed.update(options)
    )
    monkeypatch.setenv("LGOS_LOG_FORMAT", "text")
    monkeypatch.setenv("LGOS_REGISTRY_FACTORY", "")  # restored after _serve sets it
    factory = "tests.lgos.graphs:serve_registry"  # checked before Uvicorn starts
    cli._serve(factory, log_config=None, log_level="warning")
    formatter = passed["log_config"]["formatters"]["lgos"]["()"]
    assert formatter.endswith("TextFormatter")
    assert passed["log_config"]["root"]["level"] == "WARNING"
    cli._serve(factory, log_config="mine.yaml", log_level=None)
    assert passed["log_config"] == "mine.yaml"  # the operator's file wins
