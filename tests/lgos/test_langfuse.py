"""Langfuse: LGOS_ENABLE_LANGFUSE, the process-wide handler, run attributes.

No network: every Langfuse client here exports to the SDK's in-memory span
exporter (``Langfuse(span_exporter=...)``), and Langfuse's resource manager
is reset between tests.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.messages import HumanMessage
from langfuse import Langfuse
from langfuse._client.resource_manager import LangfuseResourceManager
from langfuse.langchain import CallbackHandler
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from langgraph_openai_serve import GraphConfig, GraphRegistry, GraphRequest
from langgraph_openai_serve.graph import run_config
from langgraph_openai_serve.graph.runner import run_langgraph
from langgraph_openai_serve.integrations import langfuse as lgos_langfuse
from langgraph_openai_serve.testing import OfflineChatModel
from tests.lgos.graphs import echo_responder, model_graph
from tests.lgos.otel import Capture, otel_fixture  # noqa: F401 - fixture

pytestmark = pytest.mark.anyio

USER = "user-7"
SESSION = "conversation-42"
NATIVE = ("user.id", "session.id", "langfuse.trace.name")


@pytest.fixture
def langfuse_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-lf-test")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-lf-test")
    monkeypatch.setenv("LANGFUSE_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("LGOS_ENABLE_LANGFUSE", raising=False)
    monkeypatch.setattr(lgos_langfuse, "_handler", None)
    LangfuseResourceManager.reset()
    run_config.set_run_tracing(None)
    yield
    LangfuseResourceManager.reset()
    run_config.set_run_tracing(None)


def enable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LGOS_ENABLE_LANGFUSE", "True")
    assert lgos_langfuse.install_langfuse()  # what lgos serve and lgos worker do


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.chains = 0

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        self.chains += 1


def echo_registry(callbacks: Any) -> GraphRegistry:
    graph = model_graph(OfflineChatModel(responder=echo_responder))
    return GraphRegistry(
        graphs={
            "echo": GraphConfig(
                graph=graph, description="Echo.", runtime_callbacks=callbacks
            )
        }
    )


REQUEST = GraphRequest(model="echo", user=USER, metadata={"conversation_id": SESSION})


def observations(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    Langfuse().flush()  # the handler's client: one per public key
    return list(exporter.get_finished_spans())


async def test_toggle_on_sets_user_session_and_trace_name_everywhere(
    langfuse_env: None, monkeypatch: pytest.MonkeyPatch, otel: Capture
) -> None:
    enable(monkeypatch)
    exporter = InMemorySpanExporter()
    # LGOS builds the client; give it Langfuse's in-memory exporter hook.
    monkeypatch.setattr(
        lgos_langfuse, "Langfuse", functools.partial(Langfuse, span_exporter=exporter)
    )
    recorder = Recorder()
    callbacks = [recorder]
    answer = await run_langgraph(
        REQUEST, [HumanMessage("hi")], echo_registry(callbacks)
    )
    assert answer.text == "Echo: hi"  # type: ignore[union-attr]

    assert callbacks == [recorder]  # the registered list is not mutated
    assert recorder.chains > 0  # and still receives the run
    spans = observations(exporter)
    kinds = {(s.attributes or {}).get("langfuse.observation.type") for s in spans}
    assert {"chain", "generation"} <= kinds  # chains and the model call
    for span in spans:
        attributes = span.attributes or {}
        assert attributes["user.id"] == USER, span.name
        assert attributes["session.id"] == SESSION, span.name
        assert attributes["langfuse.trace.name"] == "echo", span.name

    # Langfuse has its own tracer provider: no observation reaches the
    # application's exporter, no application span reaches Langfuse, and both
    # share the trace ID.
    [workflow] = otel.workflow_spans()
    assert not any(s.name == "lgos.graph_run" for s in otel.finished())
    assert all(not s.name.startswith("invoke_workflow") for s in spans)
    assert workflow.context is not None
    assert {s.context.trace_id for s in spans if s.context} == {
        workflow.context.trace_id
    }
    handler = lgos_langfuse.get_langfuse_callback()
    assert handler is lgos_langfuse.get_langfuse_callback()  # process-wide


async def test_custom_handler_with_toggle_off_gets_no_lgos_attributes(
    langfuse_env: None,
) -> None:
    exporter = InMemorySpanExporter()
    Langfuse(tracer_provider=TracerProvider(), span_exporter=exporter)
    handler = CallbackHandler()
    await run_langgraph(REQUEST, [HumanMessage("hi")], echo_registry([handler]))
    spans = observations(exporter)
    assert spans  # the custom handler traced the run
    for span in spans:
        attributes = span.attributes or {}
        assert "user.id" not in attributes, span.name
        assert "session.id" not in attributes, span.name
        assert attributes.get("langfuse.trace.name") != "echo", span.name
    assert lgos_langfuse._handler is None  # LGOS created nothing


async def test_an_application_client_keeps_its_tracing_setup(
    langfuse_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    enable(monkeypatch)
    exporter = InMemorySpanExporter()
    own = TracerProvider()
    Langfuse(tracer_provider=own, span_exporter=exporter)
    manager = CallbackManager(handlers=[])
    await run_langgraph(REQUEST, [HumanMessage("hi")], echo_registry(manager))
    assert manager.handlers == []  # the registered manager is not mutated
    assert len(LangfuseResourceManager._instances) == 1  # no second client
    [instance] = LangfuseResourceManager._instances.values()
    assert instance.tracer_provider is own
    spans = observations(exporter)
    assert all((s.attributes or {}).get("user.id") == USER for s in spans)


def test_config_adds_the_handler_beside_every_callback_shape(
    langfuse_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    enable(monkeypatch)
    Langfuse(tracer_provider=TracerProvider(), span_exporter=InMemorySpanExporter())
    handler = lgos_langfuse.get_langfuse_callback()
    usage = Recorder()
    own = Recorder()
    for callbacks in (None, [own], CallbackManager(handlers=[own])):
        config = GraphConfig(
            graph=model_graph(OfflineChatModel(responder=echo_responder)),
            description="d",
            runtime_callbacks=callbacks,
        )
        built = run_config.runnable_config(config, REQUEST, [usage], request_id="r")
        added = built["callbacks"]
        handlers = added.handlers if isinstance(added, CallbackManager) else added
        assert handler in handlers and usage in handlers  # type: ignore[operator]
        if callbacks is not None:
            assert own in handlers  # type: ignore[operator]
            registered = (
                callbacks.handlers
                if isinstance(callbacks, CallbackManager)
                else callbacks
            )
            assert registered == [own]
        metadata = built["metadata"]  # type: ignore[typeddict-item]
        assert metadata["langfuse_user_id"] == USER
        assert metadata["langfuse_session_id"] == SESSION
        assert metadata["langfuse_trace_name"] == "echo"
        assert metadata["lgos.user"] == USER


@pytest.mark.parametrize("toggle", [True, False])
def test_the_server_installs_langfuse_as_the_toggle_says(
    langfuse_env: None, monkeypatch: pytest.MonkeyPatch, toggle: bool
) -> None:
    """The graph layer never imports Langfuse: ``lgos serve`` injects it."""
    from langgraph_openai_serve.server.app import create_app
    from langgraph_openai_serve.server.server_settings import ServerSettings

    monkeypatch.setenv("LGOS_ENABLE_LANGFUSE", str(toggle))
    create_app(lambda resources: echo_registry(None), settings=ServerSettings())
    installed = run_config.run_tracing()
    assert installed is (lgos_langfuse.LANGFUSE_TRACING if toggle else None)
