"""The values of a Response's keys: the request's where LGOS accepted it, else null.

The key sets themselves are checked against OpenAI's document in
``tests/contract/test_response_keys.py``; these tests check what the keys
hold: ``null`` where nothing on LGOS gives a value, the client's own value
where LGOS accepted one, ``usage`` and ``completed_at`` once known.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import httpx
import pytest
from dirty_equals import IsInt
from fastapi import FastAPI
from langgraph.checkpoint.memory import InMemorySaver
from openai import AsyncOpenAI

from langgraph_openai_serve import LanggraphOpenaiServe
from langgraph_openai_serve.api.responses.frame import ResponseFrame
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate
from tests.lgos.interrupt_graphs import Counter, interrupt_registry

pytestmark = pytest.mark.anyio

NOT_ON_LGOS = (
    # Null on a plain first request: LGOS gives them no value of its own (a
    # request may send some, such as prompt_cache_key, which are echoed).
    "access_programs",
    "conversation",
    "image",
    "input_transformations",
    "max_output_tokens",
    "max_tool_calls",
    "moderation",
    "prompt",
    "prompt_cache_diagnostics",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning",
    "temperature",
    "tool_usage",
    "top_logprobs",
    "top_p",
)
NOT_GIVEN = ("previous_response_id", "safety_identifier", "service_tier", "user")
"""Null on a first request that does not send them."""


async def test_a_first_plain_request(http: httpx.AsyncClient) -> None:
    response = (
        await http.post("/v1/responses", json={"model": "echo", "input": "hi"})
    ).json()
    for key in (*NOT_ON_LGOS, *NOT_GIVEN):
        assert response[key] is None, key
    assert response["instructions"] is None
    assert response["error"] is None
    assert response["incomplete_details"] is None
    assert {
        key: response[key]
        for key in (
            "metadata",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "store",
            "background",
            "text",
            "truncation",
        )
    } == {
        "metadata": {},
        "tools": [],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "store": False,
        "background": False,
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
    }
    assert response["completed_at"] == IsInt(ge=response["created_at"])
    assert response["usage"]["total_tokens"] > 0


async def test_client_values_are_echoed(http: httpx.AsyncClient) -> None:
    tool = {
        "type": "function",
        "name": "lookup",
        "description": "Look a word up.",
        "parameters": {"type": "object", "properties": {}},
        "strict": False,
    }
    body = {
        "model": "echo",
        "input": "hi",
        "instructions": "Be brief.",
        "metadata": {"topic": "x", "conversation_id": "c-1"},
        "user": "user-1",
        "safety_identifier": "safe-1",
        "service_tier": "auto",
        "truncation": "disabled",
        "tools": [tool],
        "tool_choice": {"type": "function", "name": "lookup"},
        "parallel_tool_calls": False,
        "store": False,
        "text": {"format": {"type": "text"}},
        "prompt_cache_key": "8f14e45f-ceea-467f-a0e6-7e3f8c4b2d10",
        "prompt_cache_retention": "24h",
    }
    for stream in (False, True):
        reply = await http.post("/v1/responses", json={**body, "stream": stream})
        if stream:
            events = parse_sse(reply.text)
            responses = [e["response"] for e in events if "response" in e]
            assert len(responses) == 3
        else:
            responses = [reply.json()]
        for response in responses:
            validate("Response", response)
            sent = {key: value for key, value in body.items() if key != "input"}
            assert {key: response[key] for key in sent} == sent


async def test_the_sdk_reads_the_keys(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(
        model="echo", input="hi", service_tier="default", safety_identifier="s-1"
    )
    assert response.previous_response_id is None
    assert response.max_output_tokens is None
    assert response.reasoning is None
    assert response.conversation is None
    assert (response.service_tier, response.safety_identifier) == ("default", "s-1")
    assert response.completed_at is not None
    assert response.usage is not None


async def test_usage_and_completed_at_once_known(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "echo", "input": "hi", "stream": True}
    )
    events = parse_sse(reply.text)
    snapshots = {e["type"]: e["response"] for e in events if "response" in e}
    for name in ("response.created", "response.in_progress"):
        assert snapshots[name]["status"] == "in_progress"
        assert snapshots[name]["completed_at"] is None
        assert snapshots[name]["usage"] is None
    done = snapshots["response.completed"]
    assert done["completed_at"] == IsInt(ge=done["created_at"])
    assert done["usage"]["output_tokens"] > 0


async def test_failed_and_incomplete_are_not_completed(
    http: httpx.AsyncClient,
) -> None:
    for model, prompt, status in (
        ("failing", "boom", "failed"),
        ("answers", "truncate", "incomplete"),
    ):
        reply = await http.post(
            "/v1/responses", json={"model": model, "input": prompt, "stream": True}
        )
        last = parse_sse(reply.text)[-1]["response"]
        assert last["status"] == status
        assert last["completed_at"] is None


async def test_a_resume_echoes_previous_response_id() -> None:
    app = FastAPI()
    registry = interrupt_registry(InMemorySaver(), InMemoryRunCoordinator(), Counter())
    LanggraphOpenaiServe(registry, app).bind_openai_api()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        paused = (
            await http.post("/v1/responses", json={"model": "approval", "input": "Go"})
        ).json()
        assert paused["previous_response_id"] is None
        [call] = [i for i in paused["output"] if i["type"] == "function_call"]
        done = (
            await http.post(
                "/v1/responses",
                json={
                    "model": "approval",
                    "previous_response_id": paused["id"],
                    "input": [
                        {
                            "type": "function_call_output",
                            "call_id": call["call_id"],
                            "output": "approve",
                        }
                    ],
                },
            )
        ).json()
    assert done["status"] == "completed"
    assert done["previous_response_id"] == paused["id"]


def test_an_accepted_request_field_is_echoed_without_further_change() -> None:
    # A field another change adds to the request model (here in a subclass)
    # reaches the Response when OpenAI's Response has that key.
    class WithTemperature(ResponseCreateRequest):
        openai_not_served: ClassVar[Mapping[str, str]] = {
            name: why
            for name, why in ResponseCreateRequest.openai_not_served.items()
            if name != "temperature"
        }
        temperature: float | None = None

    request = WithTemperature.model_validate(
        {"model": "echo", "input": "hi", "temperature": 0.5}
    )
    assert ResponseFrame(request=request).snapshot("in_progress")["temperature"] == 0.5
    plain = ResponseCreateRequest.model_validate({"model": "echo", "input": "hi"})
    echo = plain.echo()
    assert "input" not in echo
    assert "stream" not in echo
    assert echo["previous_response_id"] is None


async def test_chat_echoes_service_tier_and_metadata(http: httpx.AsyncClient) -> None:
    body: dict[str, Any] = {
        "model": "echo",
        "messages": [{"role": "user", "content": "hi"}],
        "service_tier": "auto",
        "metadata": {"topic": "x"},
    }
    completion = (await http.post("/v1/chat/completions", json=body)).json()
    assert completion["service_tier"] == "auto"
    assert completion["metadata"] == {"topic": "x"}
    assert completion["system_fingerprint"] is None
    message = completion["choices"][0]["message"]
    assert (message["refusal"], message["annotations"]) == (None, [])
    reply = await http.post("/v1/chat/completions", json={**body, "stream": True})
    chunks = parse_sse(reply.text)
    assert {chunk["service_tier"] for chunk in chunks} == {"auto"}
    assert {chunk["usage"] for chunk in chunks} == {None}
    plain = (
        await http.post(
            "/v1/chat/completions",
            json={"model": "echo", "messages": body["messages"]},
        )
    ).json()
    assert (plain["service_tier"], plain["metadata"]) == (None, {})
