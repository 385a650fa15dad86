"""Every object LGOS emits carries every key OpenAI's objects carry.

The key sets come from OpenAI's OpenAPI document (an object schema's
properties and those of its ``allOf`` members, without the SDK-only
``output_text``) and from the newest ``openai`` package's models, which know
keys the document copy does not have yet. Each Response LGOS emits (JSON, every
streamed snapshot, in progress, completed, incomplete and failed, background
create, retrieve and cancel) and each chat completion and chunk is checked
against them, and against the schema.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionMessage,
)
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_chunk import Choice as ChunkChoice
from openai.types.responses import Response

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.api.responses.response_keys import RESPONSE_KEYS
from langgraph_openai_serve.background import InMemoryBackgroundBackend
from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import schema, validate
from tests.lgos.graphs import make_registry
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

_REF = "#/components/schemas/"


def _sdk_only(node: dict[str, Any]) -> bool:
    # output_text: "SDK-only convenience property", never on the wire.
    members = [node, *node.get("anyOf", ()), *node.get("oneOf", ())]
    return any("x-oaiSupportedSDKs" in member for member in members)


def schema_keys(name_or_node: str | dict[str, Any]) -> set[str]:
    """The wire keys of an object schema: its properties and its allOf members'."""
    node = schema(name_or_node) if isinstance(name_or_node, str) else name_or_node
    if "$ref" in node:
        return schema_keys(node["$ref"].removeprefix(_REF))
    keys = {
        name for name, prop in node.get("properties", {}).items() if not _sdk_only(prop)
    }
    for member in node.get("allOf", ()):
        keys |= schema_keys(member)
    return keys


def choice_schema(name: str) -> dict[str, Any]:
    return schema(name)["properties"]["choices"]["items"]


RESPONSE_DOCUMENT_KEYS = schema_keys("Response")
RESPONSE_SDK_KEYS = set(Response.model_fields)
RESPONSE_EXPECTED = RESPONSE_DOCUMENT_KEYS | RESPONSE_SDK_KEYS | {"store"}
"""OpenAI sends ``store`` too, though its Response schema does not list it."""

COMPLETION_EXPECTED = schema_keys("CreateChatCompletionResponse") | set(
    ChatCompletion.model_fields
)
CHUNK_EXPECTED = (
    schema_keys("CreateChatCompletionStreamResponse")
    | set(ChatCompletionChunk.model_fields)
) - {"obfuscation"}
"""OpenAI leaves ``obfuscation`` out for ``include_obfuscation: false``; LGOS never pads."""

COMPLETION_CHOICE_EXPECTED = schema_keys(
    choice_schema("CreateChatCompletionResponse")
) | set(Choice.model_fields)
CHUNK_CHOICE_REQUIRED = set(
    choice_schema("CreateChatCompletionStreamResponse")["required"]
) | {"logprobs"}
MESSAGE_EXPECTED = set(schema("ChatCompletionResponseMessage")["required"]) | {
    "annotations"
}
"""Role, content, refusal and annotations, as OpenAI sends every message."""
MESSAGE_OPTIONAL = set(ChatCompletionMessage.model_fields) - MESSAGE_EXPECTED
"""``tool_calls`` when there are calls; ``audio`` and ``function_call`` never."""


def test_the_key_sets_are_read_from_the_document_and_the_sdk() -> None:
    # The document's Response is an allOf of three parts; each adds keys.
    parts = schema("Response")["allOf"]
    assert len(parts) == 3
    assert {"metadata", "temperature", "user"} <= schema_keys(parts[0])
    assert {"previous_response_id", "tools"} <= schema_keys(parts[1])
    assert {"usage", "completed_at", "output"} <= schema_keys(parts[2])
    assert "output_text" not in RESPONSE_DOCUMENT_KEYS
    # LGOS's own list is exactly the union.
    assert set(RESPONSE_KEYS) == RESPONSE_EXPECTED
    assert len(RESPONSE_KEYS) == len(set(RESPONSE_KEYS))


def test_keys_the_document_copy_lacks_are_the_sdks() -> None:
    # Printed with -s: the newer keys LGOS sends because the SDK has them.
    newer = sorted(RESPONSE_SDK_KEYS - RESPONSE_DOCUMENT_KEYS)
    print("Response keys the document lacks:", newer)
    print(
        "Response keys the SDK lacks:",
        sorted(RESPONSE_DOCUMENT_KEYS - RESPONSE_SDK_KEYS),
    )
    assert set(newer) <= set(RESPONSE_KEYS)


# --------------------------------------------------------------- the server


class Gate:
    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()


def _waiting_graph(gate: Gate) -> Any:
    async def work(state: MessagesState) -> dict[str, Any]:
        gate.entered.set()
        await gate.release.wait()
        return {"messages": [AIMessage("Done")]}

    builder = StateGraph(MessagesState)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder.compile()


class Server:
    def __init__(self) -> None:
        self.gate = Gate()
        graphs = dict(make_registry().graphs)
        graphs["waiting"] = GraphConfig(
            graph=_waiting_graph(self.gate),
            description="Waits for the test.",
            features=frozenset({GraphFeature.BACKGROUND}),
        )
        self.registry = GraphRegistry(graphs=graphs)
        self.backend = InMemoryBackgroundBackend(self.registry)
        self.app = FastAPI()
        LanggraphOpenaiServe(
            self.registry, self.app, background=self.backend
        ).bind_openai_api()


@pytest.fixture
async def server() -> AsyncIterator[tuple[Server, httpx.AsyncClient]]:
    state = Server()
    transport = httpx.ASGITransport(app=state.app)
    async with (
        state.backend.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://lgos") as http,
    ):
        yield state, http


def check_response(response: dict[str, Any]) -> None:
    assert set(response) == RESPONSE_EXPECTED, (
        f"missing {sorted(RESPONSE_EXPECTED - set(response))}, "
        f"unexpected {sorted(set(response) - RESPONSE_EXPECTED)}"
    )
    validate("Response", response)


async def _stream(http: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, dict]:
    reply = await http.post("/v1/responses", json={**body, "stream": True})
    assert reply.status_code == 200, reply.text
    snapshots = {}
    for data in parse_sse(reply.text):
        validate("ResponseStreamEvent", data)
        if "response" in data:
            snapshots[data["type"]] = data["response"]
    return snapshots


# --------------------------------------------------------------- Responses


async def test_json_response(server: tuple[Server, httpx.AsyncClient]) -> None:
    _, http = server
    reply = await http.post("/v1/responses", json={"model": "echo", "input": "hi"})
    assert reply.status_code == 200, reply.text
    check_response(reply.json())
    incomplete = await http.post(
        "/v1/responses", json={"model": "answers", "input": "truncate"}
    )
    assert incomplete.json()["status"] == "incomplete"
    check_response(incomplete.json())


@pytest.mark.parametrize(
    ("model", "prompt", "events"),
    [
        (
            "echo",
            "hi",
            ["response.created", "response.in_progress", "response.completed"],
        ),
        (
            "answers",
            "truncate",
            ["response.created", "response.in_progress", "response.incomplete"],
        ),
        (
            "failing",
            "boom",
            ["response.created", "response.in_progress", "response.failed"],
        ),
    ],
)
async def test_streamed_snapshots(
    server: tuple[Server, httpx.AsyncClient],
    model: str,
    prompt: str,
    events: list[str],
) -> None:
    _, http = server
    snapshots = await _stream(http, {"model": model, "input": prompt})
    assert list(snapshots) == events
    for response in snapshots.values():
        check_response(response)


async def test_background_create_retrieve_cancel(
    server: tuple[Server, httpx.AsyncClient],
) -> None:
    state, http = server
    body = {"model": "waiting", "input": "hi", "background": True}
    queued = (await http.post("/v1/responses", json=body)).json()
    assert queued["status"] == "queued"
    check_response(queued)
    await state.gate.entered.wait()
    running = (await http.get(f"/v1/responses/{queued['id']}")).json()
    assert running["status"] == "in_progress"
    check_response(running)
    cancelled = (await http.post(f"/v1/responses/{queued['id']}/cancel")).json()
    assert cancelled["status"] == "cancelled"
    check_response(cancelled)

    state.gate.release.set()
    second = (await http.post("/v1/responses", json=body)).json()

    async def finished() -> dict[str, Any] | None:
        reply = await http.get(f"/v1/responses/{second['id']}")
        return reply.json() if reply.json()["status"] == "completed" else None

    done = await eventually(finished, message="the background response to finish")
    check_response(done)
    check_response((await http.post(f"/v1/responses/{second['id']}/cancel")).json())


# --------------------------------------------------------------- Chat


def check_completion(completion: dict[str, Any]) -> None:
    assert set(completion) == COMPLETION_EXPECTED
    (choice,) = completion["choices"]
    assert set(choice) == COMPLETION_CHOICE_EXPECTED
    message = choice["message"]
    assert MESSAGE_EXPECTED <= set(message) <= MESSAGE_EXPECTED | MESSAGE_OPTIONAL
    validate("CreateChatCompletionResponse", completion)


def check_chunk(chunk: dict[str, Any]) -> None:
    assert set(chunk) == CHUNK_EXPECTED, sorted(set(chunk) ^ CHUNK_EXPECTED)
    for choice in chunk["choices"]:
        assert set(choice) >= CHUNK_CHOICE_REQUIRED
        assert set(choice) <= set(ChunkChoice.model_fields)
    validate("CreateChatCompletionStreamResponse", chunk)


@pytest.mark.parametrize("prompt", ["hi", "truncate", "cite", "refuse"])
async def test_chat_completion(
    server: tuple[Server, httpx.AsyncClient], prompt: str
) -> None:
    _, http = server
    body = {"model": "answers", "messages": [{"role": "user", "content": prompt}]}
    reply = await http.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200, reply.text
    check_completion(reply.json())


@pytest.mark.parametrize("include_usage", [False, True])
async def test_chat_chunks(
    server: tuple[Server, httpx.AsyncClient], include_usage: bool
) -> None:
    _, http = server
    body = {
        "model": "echo",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": include_usage},
    }
    reply = await http.post("/v1/chat/completions", json=body)
    assert reply.text.endswith("data: [DONE]\n\n")
    chunks = parse_sse(reply.text)
    for chunk in chunks:
        check_chunk(chunk)
    assert (chunks[-1]["usage"] is not None) is include_usage
    assert all(chunk["usage"] is None for chunk in chunks[:-1])
