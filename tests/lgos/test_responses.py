"""POST /v1/responses through the unmodified OpenAI SDK and raw HTTP."""

from __future__ import annotations

import json

import httpx
import pytest
from openai import AsyncOpenAI

from tests.contract.openapi import validate
from tests.lgos.conftest import parse_sse

pytestmark = pytest.mark.anyio


async def test_create_returns_completed_response(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(
        model="echo", input="hello graph", store=False
    )
    assert response.status == "completed"
    assert response.output_text == "Echo: hello graph"
    assert response.id.startswith("resp_")
    message = response.output[0]
    assert message.type == "message"
    assert message.phase == "final_answer"
    assert message.status == "completed"
    assert response.store is False
    # The offline model reports word counts; LGOS passes them through.
    assert response.usage is not None
    assert response.usage.output_tokens == 3


async def test_response_json_validates_against_contract(
    http: httpx.AsyncClient,
) -> None:
    body = {
        "model": "echo",
        "input": "contract",
        "instructions": "Be brief.",
        "metadata": {"topic": "x"},
        "safety_identifier": "user-1",
    }
    reply = await http.post("/v1/responses", json=body)
    assert reply.status_code == 200
    data = reply.json()
    validate("Response", data)
    assert data["instructions"] == "Be brief."
    assert data["metadata"] == {"topic": "x"}
    assert reply.headers["x-request-id"].startswith("req_")


async def test_instructions_reach_the_graph_as_system_message(
    openai_client: AsyncOpenAI,
) -> None:
    response = await openai_client.responses.create(
        model="echo",
        instructions="Ignore me",
        input=[
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "Echo: first"},
            {"role": "user", "content": [{"type": "input_text", "text": "second"}]},
        ],
    )
    assert response.output_text == "Echo: second"


async def test_stream_emits_full_typed_lifecycle(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses",
        json={"model": "echo", "input": "one two three", "stream": True},
    )
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(reply.text)
    types = [event["data"]["type"] for event in events]
    assert all(event["event"] == event["data"]["type"] for event in events)
    assert types[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert types[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = [
        e["data"] for e in events if e["data"]["type"] == "response.output_text.delta"
    ]
    assert len(deltas) == 4  # "Echo: one two three", word by word
    assert "".join(d["delta"] for d in deltas) == "Echo: one two three"
    assert [e["data"]["sequence_number"] for e in events] == list(range(len(events)))
    item_id = events[2]["data"]["item"]["id"]
    assert {d["item_id"] for d in deltas} == {item_id}
    assert {d["output_index"] for d in deltas} == {0}
    response_ids = {
        e["data"]["response"]["id"] for e in events if "response" in e["data"]
    }
    assert len(response_ids) == 1
    final = events[-1]["data"]["response"]
    assert final["status"] == "completed"
    assert final["output"][0]["id"] == item_id
    assert final["output"][0]["content"][0]["text"] == "Echo: one two three"
    for event in events:
        validate("ResponseStreamEvent", event["data"])


async def test_sdk_stream_and_stream_helper(openai_client: AsyncOpenAI) -> None:
    stream = await openai_client.responses.create(
        model="echo", input="streamed", stream=True
    )
    text = ""
    async for event in stream:
        if event.type == "response.output_text.delta":
            text += event.delta
    assert text == "Echo: streamed"

    async with openai_client.responses.stream(model="echo", input="helper") as helper:
        async for _event in helper:
            pass
        final = await helper.get_final_response()
    assert final.output_text == "Echo: helper"


async def test_text_without_streamed_chunks_falls_back(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses",
        json={
            "model": "greeting",
            "input": "hi",
            "stream": True,
            "metadata": {"lgos_settings": '{"name":"Ada"}'},
        },
    )
    events = parse_sse(reply.text)
    deltas = [
        e["data"]["delta"] for e in events if e["data"]["type"].endswith("text.delta")
    ]
    assert deltas == ["Hello, Ada."]
    assert events[-1]["data"]["type"] == "response.completed"
    # No model call reported usage, so the Response carries none.
    assert "usage" not in events[-1]["data"]["response"]


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (None, "Hello, world."),
        ('{"tone":"excited"}', "Hello, world!"),
        ('{"name":"Grace","tone":"excited"}', "Hello, Grace!"),
    ],
)
async def test_settings_change_the_answer(
    openai_client: AsyncOpenAI, settings: str | None, expected: str
) -> None:
    metadata = {"lgos_settings": settings} if settings else None
    response = await openai_client.responses.create(
        model="greeting", input="hi", metadata=metadata
    )
    assert response.output_text == expected


async def test_function_call_and_continuation(openai_client: AsyncOpenAI) -> None:
    tools = [
        {
            "type": "function",
            "name": "weather",
            "description": "Weather.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
            },
        }
    ]
    first = await openai_client.responses.create(
        model="tools", input="Weather?", tools=tools
    )
    calls = [item for item in first.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("weather", {"city": "Paris"})
    ]
    ledger = [{"role": "user", "content": "Weather?"}]
    ledger += [item.model_dump(exclude_none=True) for item in first.output]
    ledger.append(
        {"type": "function_call_output", "call_id": calls[0].call_id, "output": "sunny"}
    )
    second = await openai_client.responses.create(
        model="tools", input=ledger, tools=tools
    )
    assert second.output_text == "The tool said sunny."


async def test_streamed_function_call_events(http: httpx.AsyncClient) -> None:
    tools = [{"type": "function", "name": "weather", "parameters": {"type": "object"}}]
    reply = await http.post(
        "/v1/responses",
        json={"model": "tools", "input": "Weather?", "tools": tools, "stream": True},
    )
    events = [e["data"] for e in parse_sse(reply.text)]
    types = [e["type"] for e in events]
    assert types == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert events[3]["delta"] == '{"city":"Paris"}'
    for event in events:
        validate("ResponseStreamEvent", event)


async def test_status_events_become_commentary(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "status", "input": "q", "stream": True}
    )
    events = [e["data"] for e in parse_sse(reply.text)]
    final = events[-1]["response"]
    phases = [(item["phase"], item["content"][0]["text"]) for item in final["output"]]
    assert phases == [
        ("commentary", "Reading the question"),
        ("commentary", "Writing the answer"),
        ("final_answer", "Echo: q"),
    ]
    for event in events:
        validate("ResponseStreamEvent", event)
    # Non-streaming requests carry no commentary.
    plain = (
        await http.post("/v1/responses", json={"model": "status", "input": "q"})
    ).json()
    assert [item["phase"] for item in plain["output"]] == ["final_answer"]


async def test_failure_mid_stream_keeps_partial_answer(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "failing", "input": "boom", "stream": True}
    )
    events = [e["data"] for e in parse_sse(reply.text)]
    assert events[-1]["type"] == "response.failed"
    failed = events[-1]["response"]
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == "server_error"
    assert "secret" not in failed["error"]["message"]
    assert failed["output"][0]["status"] == "incomplete"
    assert failed["output"][0]["content"][0]["text"] == "Echo: boom"
    for event in events:
        validate("ResponseStreamEvent", event)


async def test_parity_mismatch_fails_the_stream(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "mismatch", "input": "x", "stream": True}
    )
    events = [e["data"] for e in parse_sse(reply.text)]
    assert events[-1]["type"] == "response.failed"
    assert "does not match" in events[-1]["response"]["error"]["message"]


async def test_non_streaming_graph_failure_is_a_server_error(
    app, http: httpx.AsyncClient
) -> None:
    reply = await http.post("/v1/responses", json={"model": "failing", "input": "boom"})
    assert reply.status_code == 500
    error = reply.json()["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "server_error",
        "server_error",
        None,
    )
    assert "secret" not in error["message"]
    validate("ErrorResponse", reply.json())


async def test_graph_factory_is_served(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(model="factory", input="built")
    assert response.output_text == "Echo: built"
