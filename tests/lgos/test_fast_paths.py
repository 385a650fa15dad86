"""The request path's shortcuts keep the public behaviour.

Lean routes (OpenAPI, methods, path parameters), identifiers, the usage
handler's event filter, non-streaming cancellation, and the server's frozen
startup heap and young-generation threshold.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph

from langgraph_openai_serve import (
    GraphConfig,
    GraphRegistry,
    GraphRequest,
    LanggraphOpenaiServe,
    ids,
)
from langgraph_openai_serve.graph.runner import run_langgraph
from langgraph_openai_serve.graph.usage import UsageCollector
from langgraph_openai_serve.ids import new_id
from langgraph_openai_serve.server.app import YOUNG_GENERATION_THRESHOLD, create_app
from langgraph_openai_serve.server.resources import ServerResources
from langgraph_openai_serve.server.server_settings import ServerSettings
from langgraph_openai_serve.settings import LgosSettings
from langgraph_openai_serve.testing import OfflineChatModel
from tests.lgos.graphs import make_registry, model_graph

pytestmark = pytest.mark.anyio


async def test_openapi_documents_the_routes_when_enabled() -> None:
    app = FastAPI()
    server = LanggraphOpenaiServe(
        make_registry(), app, settings=LgosSettings(openai_api_docs_enabled=True)
    ).bind_openai_api()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        schema = (await http.get("/v1/openapi.json")).json()
        assert (await http.get("/v1/docs")).status_code == 200
    assert schema == {"servers": [{"url": "/v1"}], **server.openai_app.openapi()}
    assert {path: sorted(item) for path, item in schema["paths"].items()} == {
        "/models": ["get"],
        "/models/{model}": ["get"],
        "/responses": ["post"],
        "/responses/{response_id}": ["get"],
        "/responses/{response_id}/cancel": ["post"],
        "/chat/completions": ["post"],
        "/health": ["get"],
    }
    [parameter] = schema["paths"]["/models/{model}"]["get"]["parameters"]
    assert parameter["name"] == "model" and parameter["in"] == "path"

    @server.openai_app.get("/extra")
    async def extra() -> dict[str, str]:
        return {"ok": "yes"}

    assert "/extra" in server.openai_app.openapi()["paths"]  # the host's own route


async def test_routes_keep_their_methods_and_path_parameters(
    http: httpx.AsyncClient,
) -> None:
    head = await http.head("/v1/models")
    assert head.status_code == 405  # GET routes do not answer HEAD
    assert head.headers["allow"] == "GET"
    wrong = await http.get("/v1/responses")
    assert wrong.status_code == 405
    assert wrong.json()["error"]["type"] == "invalid_request_error"
    model = await http.get("/v1/models/echo")
    assert model.json()["id"] == "echo"
    missing = await http.get("/v1/responses/resp_unknown")
    assert missing.status_code == 404
    assert "resp_unknown" in missing.json()["error"]["message"]


def test_ids_are_unique_random_hex() -> None:
    made = [new_id("msg") for _ in range(2000)]  # more than one pool page
    assert len(set(made)) == len(made)
    assert all(re.fullmatch(r"msg_[0-9a-f]{32}", i) for i in made)


def test_a_forked_child_draws_other_ids() -> None:
    new_id("warm")  # the parent holds buffered bytes
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.write(write, new_id("x").encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 64).decode()
    os.waitpid(pid, 0)
    assert child != new_id("x")
    assert ids._pool is not None


class RecordingUsage(UsageCollector):
    """Records which callback events reach the handler."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        self.events.append("chain_start")

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.events.append("chat_model_start")

    def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        self.events.append("llm_end")
        super().on_llm_end(*args, **kwargs)


async def test_usage_handler_receives_only_model_results() -> None:
    def responder(messages: Any, tools: Any, choice: Any) -> AIMessage:
        usage = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
        return AIMessage("ok", usage_metadata=usage)

    graph = model_graph(OfflineChatModel(responder=responder))
    handler = RecordingUsage()
    await graph.ainvoke({"messages": [HumanMessage("x")]}, {"callbacks": [handler]})
    assert handler.events == ["llm_end"]
    assert handler.usage is not None and handler.usage["total_tokens"] == 5


async def test_anyio_cancelling_a_non_streaming_run_stops_the_graph_once() -> None:
    started = asyncio.Event()
    cancelled: list[int] = []

    async def slow(state: MessagesState) -> dict[str, Any]:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(1)
            await asyncio.sleep(0.05)  # cleanup that awaits survives one cancel
            raise
        return {"messages": [AIMessage("late")]}

    builder = StateGraph(MessagesState)
    builder.add_node("slow", slow)
    builder.add_edge(START, "slow")
    registry = GraphRegistry(
        graphs={"slow": GraphConfig(graph=builder.compile(), description="d")}
    )
    with anyio.CancelScope() as scope:

        async def cancel_when_started() -> None:
            await started.wait()
            scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(cancel_when_started)
            await run_langgraph(
                GraphRequest(model="slow"), [HumanMessage("x")], registry
            )
    assert cancelled == [1]
    leftovers = [t for t in asyncio.all_tasks() if t.get_name() == "lgos.graph_run"]
    assert leftovers == []


async def test_lgos_serve_freezes_its_startup_heap() -> None:
    def factory(resources: ServerResources) -> GraphRegistry:
        return make_registry()

    app = create_app(
        factory, settings=ServerSettings(interrupt_sweep_interval_minutes=0)
    )
    threshold = gc.get_threshold()
    gc.unfreeze()
    try:
        async with app.router.lifespan_context(app):
            assert gc.get_freeze_count() > 0
            # Long conversations are not traversed several times a request.
            young, *older = gc.get_threshold()
            assert young == max(threshold[0], YOUNG_GENERATION_THRESHOLD)
            assert tuple(older) == threshold[1:]
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


async def test_the_openapi_document_says_what_the_routes_accept_and_answer() -> None:
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    app = FastAPI()
    server = LanggraphOpenaiServe(
        make_registry(), app, settings=LgosSettings(openai_api_docs_enabled=True)
    ).bind_openai_api()
    document = server.openai_app.openapi()
    registry = Registry().with_resource(
        "urn:lgos", DRAFT202012.create_resource(document)
    )

    def validator(ref: str) -> Draft202012Validator:
        pointer = ref.removeprefix("#")
        return Draft202012Validator({"$ref": f"urn:lgos#{pointer}"}, registry=registry)

    paths = document["paths"]
    for path, method in (("/responses", "post"), ("/chat/completions", "post")):
        body = paths[path][method]["requestBody"]["content"]["application/json"]
        check = validator(body["schema"]["$ref"])
        good = (
            {"model": "echo", "input": [{"role": "user", "content": "hi"}]}
            if path == "/responses"
            else {"model": "echo", "messages": [{"role": "user", "content": "hi"}]}
        )
        assert check.is_valid(good)
        assert not check.is_valid({**good, "colour": "red"})
    for path, operations in paths.items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert "422" not in responses or path == "/responses", (path, method)
            errors = [status for status in responses if status >= "400"]
            assert errors or path == "/health", (path, method)
            for status in errors:
                schema = responses[status]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorResponse"}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        refused = (await http.post("/v1/responses", json={"model": "echo"})).json()
    assert validator("#/components/schemas/ErrorResponse").is_valid(refused)
    assert "HTTPValidationError" not in document["components"]["schemas"]
