"""OpenTelemetry: the GenAI workflow span and gen_ai.workflow.duration per run."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import START, MessagesState, StateGraph
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    GraphRequest,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.background import InMemoryBackgroundBackend
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.graph.runner import (
    TextChunk,
    prepare_run,
    run_langgraph,
    run_langgraph_stream,
    stream_run,
)
from langgraph_openai_serve.telemetry import error_type
from tests.lgos.graphs import make_registry
from tests.lgos.interrupt_graphs import Counter, approval_graph
from tests.lgos.otel import Capture, otel_fixture  # noqa: F401 - fixture
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

BUCKETS = (1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200)
WORKFLOW = {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "m"}
tracer = trace.get_tracer("tests.lgos.test_telemetry")


class Boom(Exception):
    pass


def one_node_registry(node: Any, **config: Any) -> GraphRegistry:
    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    return GraphRegistry(
        graphs={"m": GraphConfig(graph=builder.compile(), description="d", **config)}
    )


def streaming_node(release: asyncio.Event, started: asyncio.Event) -> Any:
    """Streams one status part, then waits for ``release`` before answering."""

    async def node(state: MessagesState) -> dict[str, Any]:
        get_stream_writer()({"type": "status", "description": "working"})
        started.set()
        await release.wait()
        return {"messages": [AIMessage("done")]}

    return node


def streaming_registry(release: asyncio.Event, started: asyncio.Event) -> GraphRegistry:
    return one_node_registry(streaming_node(release, started))


def assert_failed(capture: Capture, kind: str, message: str | None) -> Any:
    """``message`` None: the exception had none; ``...`` at its end: a prefix."""
    [span] = capture.workflow_spans()
    assert span.status.status_code is StatusCode.ERROR
    if message is not None and message.endswith("..."):
        assert (span.status.description or "").startswith(message[:-3])
    else:
        assert span.status.description == message
    assert dict(span.attributes or {}) == {**WORKFLOW, "error.type": kind}
    assert span.events == ()  # the exception is not repeated as an event
    [point] = capture.metric_points()
    assert dict(point.attributes) == {"gen_ai.workflow.name": "m", "error.type": kind}
    return point


def assert_succeeded(capture: Capture) -> Any:
    [span] = capture.workflow_spans()
    assert span.status.status_code is StatusCode.UNSET
    assert dict(span.attributes or {}) == WORKFLOW
    [point] = capture.metric_points()
    assert dict(point.attributes) == {"gen_ai.workflow.name": "m"}
    return point


def test_error_type_is_module_qualified_unless_built_in() -> None:
    assert error_type(asyncio.CancelledError()) == "asyncio.exceptions.CancelledError"
    assert error_type(GeneratorExit()) == "GeneratorExit"
    assert error_type(ValueError()) == "ValueError"
    assert error_type(Boom()) == "tests.lgos.test_telemetry.Boom"


async def test_a_run_is_one_workflow_span_and_one_measurement(otel: Capture) -> None:
    registry = one_node_registry(lambda state: {"messages": [AIMessage("ok")]})
    answer = await run_langgraph(GraphRequest(model="m"), [HumanMessage("x")], registry)
    assert answer.text == "ok"  # type: ignore[union-attr]

    [span] = otel.workflow_spans()
    assert span.name == "invoke_workflow m"
    assert span.kind is SpanKind.INTERNAL
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "langgraph_openai_serve"
    point = assert_succeeded(otel)
    assert point.count == 1
    assert tuple(point.explicit_bounds) == BUCKETS
    assert span.end_time is not None and span.start_time is not None
    span_seconds = (span.end_time - span.start_time) / 1e9
    assert point.sum == pytest.approx(span_seconds, abs=0.01)


async def test_exception_fails_the_span_with_its_type_and_message(
    otel: Capture,
) -> None:
    def node(state: MessagesState) -> dict[str, Any]:
        raise Boom("the tool broke")

    with pytest.raises(Boom):
        await run_langgraph(
            GraphRequest(model="m"), [HumanMessage("x")], one_node_registry(node)
        )
    assert_failed(otel, "tests.lgos.test_telemetry.Boom", "the tool broke")


async def test_unusable_output_is_a_failure(otel: Capture) -> None:
    registry = one_node_registry(lambda state: {"messages": [HumanMessage("?")]})
    with pytest.raises(Exception, match="added no answer") as raised:
        await run_langgraph(GraphRequest(model="m"), [HumanMessage("x")], registry)
    assert_failed(otel, "langgraph_openai_serve.errors.GraphError", str(raised.value))


async def test_cancelled_consumer_fails_with_cancelled_error(otel: Capture) -> None:
    started, release = asyncio.Event(), asyncio.Event()
    registry = streaming_registry(release, started)

    async def consume() -> None:
        async for _ in run_langgraph_stream(
            GraphRequest(model="m"), [HumanMessage("x")], registry
        ):
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert_failed(otel, "asyncio.exceptions.CancelledError", None)


async def test_stream_closed_mid_run_fails_with_generator_exit(otel: Capture) -> None:
    started, release = asyncio.Event(), asyncio.Event()
    events = run_langgraph_stream(
        GraphRequest(model="m"),
        [HumanMessage("x")],
        streaming_registry(release, started),
    )
    first = await anext(events)
    assert isinstance(first, dict)  # the status part; the graph is still running
    await events.aclose()
    assert_failed(otel, "GeneratorExit", None)


async def test_stream_closed_after_the_final_output_succeeds(otel: Capture) -> None:
    started, release = asyncio.Event(), asyncio.Event()
    release.set()
    events = run_langgraph_stream(
        GraphRequest(model="m"),
        [HumanMessage("x")],
        streaming_registry(release, started),
    )
    async for event in events:
        if isinstance(event, AIMessage):
            break  # leaves the generator suspended at its final yield
    await events.aclose()
    assert_succeeded(otel)


async def test_span_context_is_current_in_the_graph_only(otel: Capture) -> None:
    inside: dict[str, Any] = {}

    async def node(state: MessagesState) -> dict[str, Any]:
        current = trace.get_current_span()
        inside["recording"] = current.is_recording()
        # Graph code cannot change or end the workflow span.
        current.set_attribute("graph.says", "hi")
        current.end()
        with tracer.start_as_current_span("chat model"):
            get_stream_writer()({"type": "status", "description": "step"})
        return {"messages": [AIMessage("ok")]}

    registry = one_node_registry(node)
    consumer_spans = []
    with tracer.start_as_current_span("request") as request_span:
        async for _ in run_langgraph_stream(
            GraphRequest(model="m"), [HumanMessage("x")], registry
        ):
            consumer_spans.append(trace.get_current_span())
    assert consumer_spans and all(s is request_span for s in consumer_spans)
    assert inside["recording"] is False

    [workflow] = otel.workflow_spans()
    [model_call] = otel.finished("chat model")
    [request] = otel.finished("request")
    assert workflow.parent is not None and request.context is not None
    assert workflow.parent.span_id == request.context.span_id
    assert model_call.parent is not None and workflow.context is not None
    assert model_call.parent.span_id == workflow.context.span_id
    assert model_call.context is not None
    assert model_call.context.trace_id == request.context.trace_id
    assert dict(workflow.attributes or {}) == WORKFLOW
    assert workflow.status.status_code is StatusCode.UNSET


async def test_preparation_is_outside_the_span(otel: Capture) -> None:
    """Lease waits and checkpoint reads happen in prepare_run, before the span."""
    saver = InMemorySaver()
    registry = GraphRegistry(
        graphs={
            "m": GraphConfig(
                graph=approval_graph(saver, Counter()),
                description="d",
                features=frozenset({GraphFeature.INTERRUPTS}),
            )
        },
        run_coordinator=InMemoryRunCoordinator(),
    )
    async with prepare_run(
        GraphRequest(model="m"), [HumanMessage("x")], registry
    ) as run:
        # The fixed 0.3 s is the point: a lease wait the span must leave out.
        await asyncio.sleep(0.3)
        events = [event async for event in stream_run(run, stream=False)]
    [span] = otel.workflow_spans()
    assert span.end_time is not None and span.start_time is not None
    assert (span.end_time - span.start_time) / 1e9 < 0.3
    point = assert_succeeded(otel)  # a pause is the run's final output
    assert point.sum < 0.3

    # Re-emitting the pending batch of a retried request executes nothing.
    otel.reset()
    batch = events[-1]
    async with prepare_run(
        GraphRequest(model="m"), [HumanMessage("x")], registry, run_id=batch.run_id
    ) as again:
        assert again.pending is not None
        [_] = [event async for event in stream_run(again, stream=False)]
    assert otel.workflow_spans() == []
    assert otel.metric_points() == []


async def test_cancelled_background_response_fails_the_span(otel: Capture) -> None:
    started, release = asyncio.Event(), asyncio.Event()
    registry = one_node_registry(
        streaming_node(release, started), features=frozenset({GraphFeature.BACKGROUND})
    )
    backend = InMemoryBackgroundBackend(registry)
    app = FastAPI()
    LanggraphOpenaiServe(registry, app, background=backend).bind_openai_api()
    async with (
        backend.lifespan(),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://lgos"
        ) as http,
    ):
        queued = await http.post(
            "/v1/responses", json={"model": "m", "input": "x", "background": True}
        )
        await asyncio.wait_for(started.wait(), 5)
        assert otel.workflow_spans() == []  # queue time is not part of the span
        cancelled = await http.post(f"/v1/responses/{queued.json()['id']}/cancel")
        assert cancelled.json()["status"] == "cancelled"
        await eventually(otel.workflow_spans, message="the workflow span to end")
    # AnyIO's cancellation says which scope cancelled the run.
    assert_failed(
        otel, "asyncio.exceptions.CancelledError", "Cancelled via cancel scope..."
    )


async def test_http_disconnect_fails_the_span(otel: Capture) -> None:
    started, release = asyncio.Event(), asyncio.Event()
    app = FastAPI()
    LanggraphOpenaiServe(streaming_registry(release, started), app).bind_openai_api()

    async def stream() -> None:
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://lgos") as http,
            http.stream(
                "POST",
                "/v1/responses",
                json={"model": "m", "input": "x", "stream": True},
            ) as reply,
        ):
            async for _ in reply.aiter_bytes():
                pass

    task = asyncio.create_task(stream())
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await eventually(otel.workflow_spans, message="the workflow span to end")
    # The graph was still working: the disconnect cancelled the run.
    assert_failed(
        otel, "asyncio.exceptions.CancelledError", "Cancelled via cancel scope..."
    )


@pytest.mark.parametrize("host_tracing", [True, False])
async def test_mounted_app_leaves_http_telemetry_to_the_host(
    otel: Capture, host_tracing: bool
) -> None:
    host = FastAPI(telemetry={"tracing": host_tracing, "metrics": False, "logs": False})
    LanggraphOpenaiServe(make_registry(), host).bind_openai_api()
    transport = httpx.ASGITransport(app=host)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        reply = await http.post("/v1/responses", json={"model": "echo", "input": "hi"})
    assert reply.status_code == 200
    servers = [s for s in otel.finished() if s.kind is SpanKind.SERVER]
    [workflow] = otel.workflow_spans()
    if not host_tracing:
        assert servers == []  # the mounted app's own telemetry is off too
        return
    [server] = servers  # one HTTP span: the host's, not a second from the mount
    assert (server.attributes or {})["http.route"] == "/v1/responses"
    assert workflow.context is not None and server.context is not None
    assert workflow.context.trace_id == server.context.trace_id


async def test_streamed_text_events_are_unaffected(otel: Capture) -> None:
    events = [
        event
        async for event in run_langgraph_stream(
            GraphRequest(model="echo"), [HumanMessage("hello")], make_registry()
        )
    ]
    text = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert text == "Echo: hello"
    [span] = otel.workflow_spans()
    assert span.name == "invoke_workflow echo"
