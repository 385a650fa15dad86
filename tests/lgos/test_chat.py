"""POST /v1/chat/completions through the OpenAI SDK and raw HTTP."""

from __future__ import annotations

import json

import httpx
import pytest
from dirty_equals import IsNow
from inline_snapshot import Is, snapshot
from openai import AsyncOpenAI

from tests.contract.openapi import validate
from tests.lgos.conftest import parse_sse
from tests.matchers import an_id, failed_message

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
    assert raw == snapshot(
        {
            "id": an_id("chatcmpl"),
            "object": "chat.completion",
            "created": IsNow(unix_number=True),
            "model": "echo",
            "service_tier": None,
            "system_fingerprint": None,
            "moderation": None,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "Echo: x",
                        "refusal": None,
                        "annotations": [],
                    },
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": 1,
                "completion_tokens": 2,
                "total_tokens": 3,
                "prompt_tokens_details": {"cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
            "metadata": {},
        }
    )


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
    completion_id = payloads[0]["id"]
    assert completion_id == an_id("chatcmpl")
    # One completion ID throughout; the usage chunk comes last, with no choices.
    assert payloads == snapshot(
        [
            {
                "id": Is(completion_id),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "echo",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant"},
                        "finish_reason": None,
                        "logprobs": None,
                    }
                ],
                "usage": None,
            },
            {
                "id": Is(completion_id),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "echo",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": "Echo: "},
                        "finish_reason": None,
                        "logprobs": None,
                    }
                ],
                "usage": None,
            },
            {
                "id": Is(completion_id),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "echo",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": "a "},
                        "finish_reason": None,
                        "logprobs": None,
                    }
                ],
                "usage": None,
            },
            {
                "id": Is(completion_id),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "echo",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": "b"},
                        "finish_reason": None,
                        "logprobs": None,
                    }
                ],
                "usage": None,
            },
            {
                "id": Is(completion_id),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "echo",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {"index": 0, "delta": {}, "finish_reason": "stop", "logprobs": None}
                ],
                "usage": None,
            },
            {
                "id": Is(completion_id),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "echo",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [],
                "usage": {
                    "prompt_tokens": 2,
                    "completion_tokens": 3,
                    "total_tokens": 5,
                    "prompt_tokens_details": {"cached_tokens": 0},
                    "completion_tokens_details": {"reasoning_tokens": 0},
                },
            },
        ]
    )


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
    # A reply of tool calls only carries no content at all (the role chunk
    # included), so clients that build text parts from content draw none.
    assert payloads == snapshot(
        [
            {
                "id": an_id("chatcmpl"),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "tools",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant"},
                        "finish_reason": None,
                        "logprobs": None,
                    }
                ],
                "usage": None,
            },
            {
                "id": an_id("chatcmpl"),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "tools",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "id": "call_1",
                                    "type": "function",
                                    "function": {
                                        "name": "weather",
                                        "arguments": '{"city":"Paris"}',
                                    },
                                    "index": 0,
                                }
                            ]
                        },
                        "finish_reason": None,
                        "logprobs": None,
                    }
                ],
                "usage": None,
            },
            {
                "id": an_id("chatcmpl"),
                "object": "chat.completion.chunk",
                "created": IsNow(unix_number=True),
                "model": "tools",
                "service_tier": None,
                "system_fingerprint": None,
                "moderation": None,
                "choices": [
                    {
                        "index": 0,
                        "delta": {},
                        "finish_reason": "tool_calls",
                        "logprobs": None,
                    }
                ],
                "usage": None,
            },
        ]
    )


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
    validate("ErrorResponse", events[-1]["data"])
    failure = failed_message(reply)  # a str: the snapshot copies its values
    assert events[-1]["data"] == snapshot(
        {
            "error": {
                "message": failure,
                "type": "server_error",
                "param": None,
                "code": "server_error",
            }
        }
    )
