"""POST /v1/responses through the unmodified OpenAI SDK and raw HTTP."""

from __future__ import annotations

import json

import httpx
import pytest
from dirty_equals import IsNow, IsPartialDict
from inline_snapshot import Is, snapshot
from openai import AsyncOpenAI

from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate
from tests.matchers import an_id, failed_message

pytestmark = pytest.mark.anyio


async def test_create_returns_completed_response(openai_client: AsyncOpenAI) -> None:
    raw = await openai_client.responses.with_raw_response.create(
        model="echo", input="hello graph", store=False
    )
    assert raw.parse().output_text == "Echo: hello graph"
    # The offline model reports word counts; LGOS passes them through.
    assert raw.http_response.json() == snapshot(
        {
            "id": an_id("resp"),
            "object": "response",
            "created_at": IsNow(unix_number=True),
            "status": "completed",
            "access_programs": None,
            "background": False,
            "error": None,
            "conversation": None,
            "incomplete_details": None,
            "image": None,
            "instructions": None,
            "input_transformations": None,
            "metadata": {},
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": "echo",
            "output": [
                {
                    "id": an_id("msg"),
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {
                            "type": "output_text",
                            "text": "Echo: hello graph",
                            "annotations": [],
                            "logprobs": [],
                        }
                    ],
                    "phase": "final_answer",
                }
            ],
            "moderation": None,
            "parallel_tool_calls": True,
            "store": False,
            "previous_response_id": None,
            "prompt": None,
            "prompt_cache_diagnostics": None,
            "prompt_cache_key": None,
            "prompt_cache_options": None,
            "prompt_cache_retention": None,
            "reasoning": None,
            "safety_identifier": None,
            "service_tier": None,
            "temperature": None,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [],
            "tool_usage": None,
            "top_p": None,
            "top_logprobs": None,
            "truncation": "disabled",
            "completed_at": IsNow(unix_number=True),
            "usage": {
                "input_tokens": 2,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": 3,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 5,
            },
            "user": None,
        }
    )


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
    assert data == snapshot(
        {
            "id": an_id("resp"),
            "object": "response",
            "created_at": IsNow(unix_number=True),
            "status": "completed",
            "access_programs": None,
            "background": False,
            "error": None,
            "conversation": None,
            "incomplete_details": None,
            "image": None,
            "instructions": "Be brief.",
            "input_transformations": None,
            "metadata": {"topic": "x"},
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": "echo",
            "output": [
                {
                    "id": an_id("msg"),
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {
                            "type": "output_text",
                            "text": "Echo: contract",
                            "annotations": [],
                            "logprobs": [],
                        }
                    ],
                    "phase": "final_answer",
                }
            ],
            "moderation": None,
            "parallel_tool_calls": True,
            "store": False,
            "previous_response_id": None,
            "prompt": None,
            "prompt_cache_diagnostics": None,
            "prompt_cache_key": None,
            "prompt_cache_options": None,
            "prompt_cache_retention": None,
            "reasoning": None,
            "temperature": None,
            "service_tier": None,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [],
            "top_p": None,
            "tool_usage": None,
            "truncation": "disabled",
            "top_logprobs": None,
            "completed_at": IsNow(unix_number=True),
            "usage": {
                "input_tokens": 3,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": 2,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 5,
            },
            "safety_identifier": "user-1",
            "user": None,
        }
    )
    assert reply.headers["x-request-id"] == an_id("req")


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
    names = [line[7:] for line in reply.text.split("\n") if line.startswith("event: ")]
    assert names == [event["type"] for event in events]
    for event in events:
        validate("ResponseStreamEvent", event)
    response_id = events[0]["response"]["id"]
    item_id = events[2]["item"]["id"]
    assert (response_id, item_id) == (an_id("resp"), an_id("msg"))
    # "Echo: one two three", word by word, in one item of one Response.
    assert events == snapshot(
        [
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": IsPartialDict(
                    id=Is(response_id), status="in_progress", output=[]
                ),
            },
            {
                "type": "response.in_progress",
                "sequence_number": 1,
                "response": IsPartialDict(
                    id=Is(response_id), status="in_progress", output=[]
                ),
            },
            {
                "type": "response.output_item.added",
                "sequence_number": 2,
                "output_index": 0,
                "item": {
                    "id": Is(item_id),
                    "type": "message",
                    "role": "assistant",
                    "status": "in_progress",
                    "content": [],
                    "phase": "final_answer",
                },
            },
            {
                "type": "response.content_part.added",
                "sequence_number": 3,
                "part": {
                    "type": "output_text",
                    "text": "",
                    "annotations": [],
                    "logprobs": [],
                },
                "item_id": Is(item_id),
                "output_index": 0,
                "content_index": 0,
            },
            {
                "type": "response.output_text.delta",
                "sequence_number": 4,
                "delta": "Echo: ",
                "logprobs": [],
                "item_id": Is(item_id),
                "output_index": 0,
                "content_index": 0,
            },
            {
                "type": "response.output_text.delta",
                "sequence_number": 5,
                "delta": "one ",
                "logprobs": [],
                "item_id": Is(item_id),
                "output_index": 0,
                "content_index": 0,
            },
            {
                "type": "response.output_text.delta",
                "sequence_number": 6,
                "delta": "two ",
                "logprobs": [],
                "item_id": Is(item_id),
                "output_index": 0,
                "content_index": 0,
            },
            {
                "type": "response.output_text.delta",
                "sequence_number": 7,
                "delta": "three",
                "logprobs": [],
                "item_id": Is(item_id),
                "output_index": 0,
                "content_index": 0,
            },
            {
                "type": "response.output_text.done",
                "sequence_number": 8,
                "text": "Echo: one two three",
                "logprobs": [],
                "item_id": Is(item_id),
                "output_index": 0,
                "content_index": 0,
            },
            {
                "type": "response.content_part.done",
                "sequence_number": 9,
                "part": {
                    "type": "output_text",
                    "text": "Echo: one two three",
                    "annotations": [],
                    "logprobs": [],
                },
                "item_id": Is(item_id),
                "output_index": 0,
                "content_index": 0,
            },
            {
                "type": "response.output_item.done",
                "sequence_number": 10,
                "output_index": 0,
                "item": {
                    "id": Is(item_id),
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {
                            "type": "output_text",
                            "text": "Echo: one two three",
                            "annotations": [],
                            "logprobs": [],
                        }
                    ],
                    "phase": "final_answer",
                },
            },
            {
                "type": "response.completed",
                "sequence_number": 11,
                "response": IsPartialDict(
                    id=Is(response_id),
                    status="completed",
                    output=[
                        {
                            "id": Is(item_id),
                            "type": "message",
                            "role": "assistant",
                            "status": "completed",
                            "content": [
                                {
                                    "type": "output_text",
                                    "text": "Echo: one two three",
                                    "annotations": [],
                                    "logprobs": [],
                                }
                            ],
                            "phase": "final_answer",
                        }
                    ],
                ),
            },
        ]
    )


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
    deltas = [e["delta"] for e in events if e["type"].endswith("text.delta")]
    assert deltas == ["Hello, Ada."]
    assert events[-1]["type"] == "response.completed"
    # No model call reported usage, so the Response's usage stays null.
    assert events[-1]["response"]["usage"] is None


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
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    assert events == snapshot(
        [
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": IsPartialDict(
                    status="in_progress",
                    output=[],
                    tools=[
                        {
                            "type": "function",
                            "name": "weather",
                            "description": None,
                            "parameters": {"type": "object"},
                            "strict": None,
                        }
                    ],
                ),
            },
            {
                "type": "response.in_progress",
                "sequence_number": 1,
                "response": IsPartialDict(status="in_progress", output=[]),
            },
            {
                "type": "response.output_item.added",
                "sequence_number": 2,
                "output_index": 0,
                "item": {
                    "id": an_id("fc"),
                    "type": "function_call",
                    "status": "in_progress",
                    "call_id": "call_1",
                    "name": "weather",
                    "arguments": "",
                },
            },
            {
                "type": "response.function_call_arguments.delta",
                "sequence_number": 3,
                "item_id": an_id("fc"),
                "output_index": 0,
                "delta": '{"city":"Paris"}',
            },
            {
                "type": "response.function_call_arguments.done",
                "sequence_number": 4,
                "item_id": an_id("fc"),
                "output_index": 0,
                "name": "weather",
                "arguments": '{"city":"Paris"}',
            },
            {
                "type": "response.output_item.done",
                "sequence_number": 5,
                "output_index": 0,
                "item": {
                    "id": an_id("fc"),
                    "type": "function_call",
                    "status": "completed",
                    "call_id": "call_1",
                    "name": "weather",
                    "arguments": '{"city":"Paris"}',
                },
            },
            {
                "type": "response.completed",
                "sequence_number": 6,
                "response": IsPartialDict(
                    status="completed",
                    output=[
                        {
                            "id": an_id("fc"),
                            "type": "function_call",
                            "status": "completed",
                            "call_id": "call_1",
                            "name": "weather",
                            "arguments": '{"city":"Paris"}',
                        }
                    ],
                ),
            },
        ]
    )


async def test_status_events_become_commentary(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "status", "input": "q", "stream": True}
    )
    events = parse_sse(reply.text)
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
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    # The partial answer stays, marked incomplete; the message hides the cause.
    # A name, not a call: inline-snapshot copies what a call in it is given.
    failed = failed_message(reply)
    assert events[-1] == snapshot(
        {
            "type": "response.failed",
            "sequence_number": 9,
            "response": {
                "id": an_id("resp"),
                "object": "response",
                "created_at": IsNow(unix_number=True),
                "status": "failed",
                "access_programs": None,
                "background": False,
                "completed_at": None,
                "conversation": None,
                "error": {"code": "server_error", "message": failed},
                "image": None,
                "incomplete_details": None,
                "input_transformations": None,
                "instructions": None,
                "max_output_tokens": None,
                "max_tool_calls": None,
                "metadata": {},
                "model": "failing",
                "moderation": None,
                "output": [
                    {
                        "id": an_id("msg"),
                        "type": "message",
                        "role": "assistant",
                        "status": "incomplete",
                        "content": [
                            {
                                "type": "output_text",
                                "text": "Echo: boom",
                                "annotations": [],
                                "logprobs": [],
                            }
                        ],
                        "phase": "final_answer",
                    }
                ],
                "parallel_tool_calls": True,
                "previous_response_id": None,
                "prompt": None,
                "prompt_cache_diagnostics": None,
                "prompt_cache_key": None,
                "prompt_cache_options": None,
                "prompt_cache_retention": None,
                "reasoning": None,
                "safety_identifier": None,
                "service_tier": None,
                "store": False,
                "temperature": None,
                "text": {"format": {"type": "text"}},
                "tool_choice": "auto",
                "tool_usage": None,
                "tools": [],
                "top_logprobs": None,
                "top_p": None,
                "truncation": "disabled",
                "usage": {
                    "input_tokens": 1,
                    "input_tokens_details": {
                        "cached_tokens": 0,
                        "cache_write_tokens": 0,
                    },
                    "output_tokens": 2,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 3,
                },
                "user": None,
            },
        }
    )


async def test_parity_mismatch_fails_the_stream(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "mismatch", "input": "x", "stream": True}
    )
    events = parse_sse(reply.text)
    assert events[-1]["type"] == "response.failed"
    message = events[-1]["response"]["error"]["message"]
    assert "is not the final message's text" in message
    assert "TAG_NOSTREAM" in message


async def test_non_streaming_graph_failure_is_a_server_error(
    app, http: httpx.AsyncClient
) -> None:
    reply = await http.post("/v1/responses", json={"model": "failing", "input": "boom"})
    validate("ErrorResponse", reply.json())
    # The message hides the cause ("secret").
    # A name, not a call: inline-snapshot copies what a call in it is given.
    failed = failed_message(reply)
    assert (reply.status_code, reply.json()) == snapshot(
        (
            500,
            {
                "error": {
                    "message": failed,
                    "type": "server_error",
                    "param": None,
                    "code": "server_error",
                }
            },
        )
    )


async def test_graph_factory_is_served(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(model="factory", input="built")
    assert response.output_text == "Echo: built"
