"""Null is absence; a value asking for what LGOS does anyway is not a request.

OpenAI clients send fields LGOS does not serve in two harmless shapes: an
explicit ``null`` (``temperature: null`` from a settings object with nothing
set) and a value that asks for exactly what LGOS does (the Agents SDK's
``include: []``, ``n: 1``, ``truncation: "disabled"``). Both are accepted;
every other value of such a field is refused with ``unsupported_parameter``
and the field in ``param``; a name OpenAI does not define is
``unknown_parameter``. Every case goes over the wire (ASGI) and every error
is checked against OpenAI's ``ErrorResponse`` schema. Each declared no-op
value, hint and client field is tested in both directions in
``test_tolerance.py``.
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from openai import AsyncOpenAI

from langgraph_openai_serve.api.chat.chat_request import ChatCompletionRequest
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest
from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio

RESPONSES = {"model": "echo", "input": "fields"}
CHAT = {"model": "echo", "messages": [{"role": "user", "content": "fields"}]}


async def _ok_response(http: httpx.AsyncClient, body: dict[str, Any]) -> dict:
    reply = await http.post("/v1/responses", json=body)
    assert reply.status_code == 200, reply.text
    response = reply.json()
    validate("Response", response)
    assert response["output"][0]["content"][0]["text"] == "Echo: fields"
    return response


async def _ok_chat(http: httpx.AsyncClient, body: dict[str, Any]) -> dict:
    reply = await http.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200, reply.text
    completion = reply.json()
    validate("CreateChatCompletionResponse", completion)
    assert completion["choices"][0]["message"]["content"] == "Echo: fields"
    return completion


async def _error(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> dict:
    reply = await http.post(path, json=body)
    assert reply.status_code == 400, reply.text
    validate("ErrorResponse", reply.json())
    return reply.json()["error"]


@pytest.mark.parametrize("field", sorted(ResponseCreateRequest.openai_not_served))
async def test_responses_null_is_absence(http: httpx.AsyncClient, field: str) -> None:
    await _ok_response(http, {**RESPONSES, field: None})


@pytest.mark.parametrize("field", sorted(ChatCompletionRequest.openai_not_served))
async def test_chat_null_is_absence(http: httpx.AsyncClient, field: str) -> None:
    await _ok_chat(http, {**CHAT, field: None})


async def test_the_agents_sdk_shape_is_served(http: httpx.AsyncClient) -> None:
    # Everything together, nested nulls included, streaming too.
    body = {
        **RESPONSES,
        "include": [],
        "temperature": None,
        "top_p": None,
        "max_output_tokens": None,
        "reasoning": {"effort": None, "summary": None},
        "truncation": "disabled",
        "text": {"format": {"type": "text"}, "verbosity": None},
        "tool_choice": None,
        "parallel_tool_calls": None,
        "store": None,
        "prompt": None,
        "conversation": None,
        "service_tier": None,
        "max_tool_calls": None,
        "top_logprobs": None,
        "prompt_cache_key": None,
    }
    response = await _ok_response(http, body)
    assert response["truncation"] == "disabled"
    reply = await http.post(
        "/v1/responses",
        json={**body, "stream": True, "stream_options": {"include_obfuscation": False}},
    )
    last = parse_sse(reply.text)[-1]
    assert last["type"] == "response.completed"
    assert last["response"]["output"][0]["content"][0]["text"] == "Echo: fields"


async def test_the_common_chat_shape_is_served(http: httpx.AsyncClient) -> None:
    body = {
        **CHAT,
        "n": 1,
        "logprobs": False,
        "temperature": None,
        "max_tokens": None,
        "seed": None,
        "stop": None,
        "logit_bias": None,
        "response_format": {"type": "text"},
        "messages": [
            {"role": "user", "content": "fields"},
            {
                "role": "assistant",
                "content": "Hi",
                "audio": None,
                "function_call": None,
            },
            {"role": "user", "content": "fields"},
        ],
    }
    await _ok_chat(http, body)
    reply = await http.post(
        "/v1/chat/completions",
        json={
            **body,
            "stream": True,
            "stream_options": {"include_usage": True, "include_obfuscation": False},
        },
    )
    assert reply.status_code == 200
    assert reply.text.rstrip().endswith("data: [DONE]")


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"temperature": 0.2}, "temperature"),
        ({"temperature": 1}, "temperature"),
        ({"max_output_tokens": 100}, "max_output_tokens"),
        ({"include": ["message.output_text.logprobs"]}, "include"),
        ({"truncation": "auto"}, "truncation"),
        ({"reasoning": {"effort": "low"}}, "reasoning.effort"),
        ({"reasoning": {"effort": "high", "summary": "auto"}}, "reasoning.effort"),
        ({"reasoning": {"mode": "pro"}}, "reasoning.mode"),
        ({"service_tier": "flex"}, "service_tier"),
        ({"top_logprobs": 2}, "top_logprobs"),
        ({"moderation": {"model": "omni-moderation-latest"}}, "moderation"),
        ({"text": {"verbosity": "low"}}, "text.verbosity"),
        (
            {"stream": True, "stream_options": {"include_obfuscation": True}},
            "stream_options.include_obfuscation",
        ),
        (
            {"tools": [{"type": "function", "name": "f", "defer_loading": True}]},
            "tools[0].defer_loading",
        ),
        (
            {"tools": [{"type": "custom", "name": "t", "description": "mine"}]},
            "tools[0].description",
        ),
        (
            {"tools": [{"type": "web_search", "filters": {"allowed_domains": ["x"]}}]},
            "tools[0].filters",
        ),
        (
            {
                "tools": [
                    {"type": "web_search", "user_location": {"type": "approximate"}}
                ]
            },
            "tools[0].user_location",
        ),
        (
            {"tools": [{"type": "web_search", "external_web_access": False}]},
            "tools[0].external_web_access",
        ),
        (
            {
                "input": [
                    {"type": "function_call", "call_id": "c", "name": "f"}
                    | {"arguments": "{}", "caller": {"type": "program"}},
                    {"type": "function_call_output", "call_id": "c", "output": "1"},
                ]
            },
            "input[0].caller",
        ),
        (
            {
                "input": [
                    {
                        "role": "user",
                        "content": [{"type": "input_file", "file_url": "https://x/y"}],
                    }
                ]
            },
            "input[0].content[0].file_url",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
async def test_responses_refuse_what_lgos_cannot_honour(
    http: httpx.AsyncClient, extra: dict[str, Any], param: str
) -> None:
    error = await _error(http, "/v1/responses", {**RESPONSES, **extra})
    assert (error["code"], error["param"]) == ("unsupported_parameter", param)
    assert error["message"].startswith(f"Unsupported parameter: '{param}' (")


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"n": 2}, "n"),
        ({"n": True}, "n"),  # JSON true is not the number 1
        ({"n": 1.0}, "n"),
        ({"logprobs": True}, "logprobs"),
        ({"temperature": 0}, "temperature"),
        ({"response_format": {"type": "json_object"}}, "response_format"),
        ({"modalities": ["text", "audio"]}, "modalities"),
        ({"verbosity": "high"}, "verbosity"),
        ({"stop": ["\n"]}, "stop"),
        ({"functions": [{"name": "f"}]}, "functions"),
        (
            {"stream": True, "stream_options": {"include_obfuscation": True}},
            "stream_options.include_obfuscation",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "x"},
                    {"role": "assistant", "content": "y", "audio": {"id": "audio_1"}},
                    {"role": "user", "content": "z"},
                ]
            },
            "messages[1].audio",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
async def test_chat_refuses_what_lgos_cannot_honour(
    http: httpx.AsyncClient, extra: dict[str, Any], param: str
) -> None:
    error = await _error(http, "/v1/chat/completions", {**CHAT, **extra})
    assert (error["code"], error["param"]) == ("unsupported_parameter", param)


async def test_the_message_says_what_is_accepted(http: httpx.AsyncClient) -> None:
    error = await _error(http, "/v1/chat/completions", {**CHAT, "n": 3})
    assert error["message"] == (
        "Unsupported parameter: 'n' (one choice per request). Omit it, or send null or 1."
    )


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/v1/responses", {**RESPONSES, "temprature": 0.2}, "temprature"),
        ("/v1/responses", {**RESPONSES, "n": 1}, "n"),  # a Chat field
        ("/v1/chat/completions", {**CHAT, "include": []}, "include"),  # a Responses one
        ("/v1/responses", {**RESPONSES, "text": {"colour": None}}, "text.colour"),
    ],
)
async def test_names_openai_does_not_define_stay_unknown(
    http: httpx.AsyncClient, path: str, body: dict[str, Any], param: str
) -> None:
    error = await _error(http, path, body)
    assert (error["code"], error["param"]) == ("unknown_parameter", param)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/responses", {**RESPONSES, "stream_options": {}}),
        ("/v1/chat/completions", {**CHAT, "stream_options": {"include_usage": True}}),
    ],
)
async def test_stream_options_need_stream(
    http: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    error = await _error(http, path, body)
    assert error["param"] == "stream_options"
    assert error["message"] == "stream_options may only be set when stream is true."


async def test_chat_store_true_says_why(http: httpx.AsyncClient) -> None:
    error = await _error(http, "/v1/chat/completions", {**CHAT, "store": True})
    assert error["param"] == "store"
    assert error["message"] == (
        "Chat completions are not stored; send store=false or omit it."
    )


async def test_structured_output_is_unsupported_on_both_apis(
    openai_client: AsyncOpenAI,
) -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        text: str

    with pytest.raises(openai.BadRequestError) as responses:
        await openai_client.responses.parse(model="echo", input="x", text_format=Answer)
    with pytest.raises(openai.BadRequestError) as chat:
        await openai_client.chat.completions.parse(
            model="echo",
            messages=[{"role": "user", "content": "x"}],
            response_format=Answer,
        )
    for raised, param in ((responses, "text.format"), (chat, "response_format")):
        assert (raised.value.code, raised.value.param) == (
            "unsupported_parameter",
            param,
        )
        assert "structured output is not supported" in raised.value.message


@pytest.mark.parametrize("settings", ['{"audience":"expert"}', "not json", "[]", '""'])
async def test_settings_for_a_model_without_settings(
    openai_client: AsyncOpenAI, settings: str
) -> None:
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as raised:
            await openai_client.responses.create(
                model="echo",
                input="hi",
                stream=stream,
                metadata={"lgos_settings": settings},
            )
        assert raised.value.param == "metadata.lgos_settings"
        assert "publishes no runtime settings" in raised.value.message
    with pytest.raises(openai.BadRequestError) as raised:
        await openai_client.chat.completions.create(
            model="echo",
            messages=[{"role": "user", "content": "hi"}],
            metadata={"lgos_settings": settings},
        )
    assert raised.value.param == "metadata.lgos_settings"


async def test_empty_settings_for_a_model_without_settings(
    openai_client: AsyncOpenAI,
) -> None:
    response = await openai_client.responses.create(
        model="echo", input="hi", metadata={"lgos_settings": "{}"}
    )
    assert response.output_text == "Echo: hi"


async def test_an_item_reference_says_what_to_send_instead(
    http: httpx.AsyncClient,
) -> None:
    # The Vercel AI SDK replays earlier answers by reference unless store is false.
    body = {
        **RESPONSES,
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
            {"type": "item_reference", "id": "msg_1"},
            {"role": "user", "content": [{"type": "input_text", "text": "And?"}]},
        ],
    }
    error = await _error(http, "/v1/responses", body)
    assert (error["code"], error["param"]) == ("unsupported_value", "input[1]")
    assert "store: false" in error["message"]
