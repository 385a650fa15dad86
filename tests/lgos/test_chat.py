"""POST /v1/chat/completions through the OpenAI SDK and raw HTTP."""

from __future__ import annotations

import json

import httpx
import pytest
from openai import AsyncOpenAI

from tests.contract.openapi import validate
from tests.lgos.conftest import parse_sse

pytestmark = pytest.mark.anyio


async def test_completion(openai_client: AsyncOpenAI, http: httpx.AsyncClient) -> None:
    completion = await openai_client.chat.completions.create(
        model="echo",
        messages=[
            {"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "text", "text": "hi chat"}]},
        ],
    )
    choice = completion.choices[0]
    assert choice.message.content == "Echo: hi chat"
    assert choice.finish_reason == "stop"
    assert completion.usage is not None and completion.usage.completion_tokens == 3
    raw = (
        await http.post(
            "/v1/chat/completions",
            json={"model": "echo", "messages": [{"role": "user", "content": "x"}]},
        )
    ).json()
    validate("CreateChatCompletionResponse", raw)
    assert raw["choices"][0]["logprobs"] is None
    assert raw["choices"][0]["message"]["refusal"] is None


async def test_stream_with_and_without_usage(
    openai_client: AsyncOpenAI, http: httpx.AsyncClient
) -> None:
    stream = await openai_client.chat.completions.create(
        model="echo", messages=[{"role": "user", "content": "a b"}], stream=True
    )
    chunks = [chunk async for chunk in stream]
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Echo: a b"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(c.usage is None for c in chunks)

    reply = await http.post(
        "/v1/chat/completions",
        json={
            "model": "echo",
            "messages": [{"role": "user", "content": "a b"}],
            "stream": True,
            "stream_options": {"include_usage": True},
        },
    )
    events = parse_sse(reply.text)
    assert events[-1]["data"] == "[DONE]"
    payloads = [e["data"] for e in events[:-1]]
    for payload in payloads:
        validate("CreateChatCompletionStreamResponse", payload)
    assert payloads[-1]["choices"] == []
    assert payloads[-1]["usage"]["completion_tokens"] == 3
    assert len({p["id"] for p in payloads}) == 1


async def test_tool_calls(openai_client: AsyncOpenAI, http: httpx.AsyncClient) -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "weather", "parameters": {"type": "object"}},
        }
    ]
    completion = await openai_client.chat.completions.create(
        model="tools", messages=[{"role": "user", "content": "Weather?"}], tools=tools
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == (
        "weather",
        {"city": "Paris"},
    )
    follow = await openai_client.chat.completions.create(
        model="tools",
        messages=[
            {"role": "user", "content": "Weather?"},
            choice.message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "rainy"},
        ],
        tools=tools,
    )
    assert follow.choices[0].message.content == "The tool said rainy."

    reply = await http.post(
        "/v1/chat/completions",
        json={
            "model": "tools",
            "messages": [{"role": "user", "content": "Weather?"}],
            "tools": tools,
            "stream": True,
        },
    )
    payloads = [e["data"] for e in parse_sse(reply.text)[:-1]]
    for payload in payloads:
        validate("CreateChatCompletionStreamResponse", payload)
    assert payloads[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert (
        payloads[-2]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"]
        == "weather"
    )
    # A reply of tool calls only carries no content at all (the role chunk
    # included), so clients that build text parts from content draw none.
    assert payloads[0]["choices"][0]["delta"] == {"role": "assistant"}
    assert not any("content" in p["choices"][0]["delta"] for p in payloads)


async def test_same_text_through_both_routes(openai_client: AsyncOpenAI) -> None:
    chat = await openai_client.chat.completions.create(
        model="echo", messages=[{"role": "user", "content": "parity"}]
    )
    response = await openai_client.responses.create(model="echo", input="parity")
    assert chat.choices[0].message.content == response.output_text


async def test_status_events_are_ignored(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/chat/completions",
        json={
            "model": "status",
            "messages": [{"role": "user", "content": "q"}],
            "stream": True,
        },
    )
    text = "".join(
        e["data"]["choices"][0]["delta"].get("content") or ""
        for e in parse_sse(reply.text)[:-1]
    )
    assert text == "Echo: q"


async def test_failure_mid_stream_sends_error(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/chat/completions",
        json={
            "model": "failing",
            "messages": [{"role": "user", "content": "q"}],
            "stream": True,
        },
    )
    events = parse_sse(reply.text)
    assert events[-1]["data"]["error"]["type"] == "server_error"
    assert events[-1]["data"]["error"]["code"] == "server_error"
    validate("ErrorResponse", events[-1]["data"])
