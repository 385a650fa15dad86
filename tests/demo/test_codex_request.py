"""Codex CLI's first request, replayed against the demo's `chat` model.

OpenAI's Codex CLI (``@openai/codex`` 0.171.0, ``wire_api = "responses"``)
builds every turn from one request struct (``ResponsesApiRequest`` in
``codex-rs/codex-api``): ``model``, ``instructions``, ``input``, ``tools``,
``tool_choice``, ``parallel_tool_calls``, ``reasoning``, ``store``,
``stream``, ``include``, ``prompt_cache_key``, ``client_metadata`` (and
``text`` or ``service_tier`` only when configured). The body below has that
shape and the values a first turn carries, shortened and redacted: its
instructions, tool descriptions and schemas are stand-ins, and the
namespace tool is its multi-agent tool group. Without the namespace tool it
streams a normal answer; with it, the 400 names the Codex setting that
turns that tool off.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from langgraph_openai_serve.testing import parse_sse
from tests.conftest import demo_app
from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio


def _function(name: str, properties: dict[str, Any], required: list[str]) -> dict:
    return {
        "type": "function",
        "name": name,
        "description": f"Stand-in for Codex's {name} description.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


def _text(role: str, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": role,
        "content": [{"type": "input_text", "text": text}],
    }


_STRING = {"type": "string"}
_NUMBER = {"type": "number"}

MULTI_AGENT_TOOLS = {
    "type": "namespace",
    "name": "multi_agent_v1",
    "description": "Tools for spawning and managing sub-agents.",
    "tools": [
        _function("spawn_agent", {"message": _STRING}, ["message"]),
        _function("wait_agent", {"ids": {"type": "array", "items": _STRING}}, []),
        _function("close_agent", {"id": _STRING}, ["id"]),
    ],
}

CODEX_FIRST_REQUEST: dict[str, Any] = {
    "model": "chat",
    "instructions": "You are a coding agent running in a terminal. " * 200,
    "input": [
        _text("developer", "<permissions instructions>sandbox: read-only"),
        _text("user", "<environment_context>cwd: <redacted>, shell: bash"),
        _text("user", "say hello"),
    ],
    "tools": [
        _function(
            "exec_command",
            {
                "cmd": _STRING,
                "workdir": _STRING,
                "yield_time_ms": _NUMBER,
                "max_output_tokens": _NUMBER,
            },
            ["cmd"],
        ),
        _function(
            "write_stdin",
            {"session_id": _NUMBER, "chars": _STRING, "yield_time_ms": _NUMBER},
            ["session_id"],
        ),
        _function("update_plan", {"plan": {"type": "array", "items": {}}}, ["plan"]),
        MULTI_AGENT_TOOLS,
    ],
    "tool_choice": "auto",
    "parallel_tool_calls": False,
    "reasoning": {"summary": "auto"},
    "store": False,
    "stream": True,
    "include": ["reasoning.encrypted_content"],
    "prompt_cache_key": "0199a3c2-7d4e-7f10-9a61-3c5b2e8d4f00",
    "client_metadata": {"x": "y"},
}


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=demo_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as client:
        yield client


async def test_codex_first_turn_streams_an_answer(http: httpx.AsyncClient) -> None:
    body = copy.deepcopy(CODEX_FIRST_REQUEST)
    body["tools"].remove(MULTI_AGENT_TOOLS)
    reply = await http.post("/v1/responses", json=body)
    assert reply.status_code == 200, reply.text
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] == "response.completed"
    response = events[-1]["response"]
    [message] = [item for item in response["output"] if item["type"] == "message"]
    text = "".join(part["text"] for part in message["content"])
    assert text == "".join(
        e["delta"] for e in events if e["type"] == "response.output_text.delta"
    )
    assert "say hello" in text  # the offline model quotes the question


async def test_codex_multi_agent_tools_are_refused_with_the_setting(
    http: httpx.AsyncClient,
) -> None:
    reply = await http.post("/v1/responses", json=CODEX_FIRST_REQUEST)
    assert reply.status_code == 400
    validate("ErrorResponse", reply.json())
    error = reply.json()["error"]
    assert (error["code"], error["param"]) == ("unsupported_value", "tools[3]")
    assert error["message"].startswith("Unsupported type 'namespace' at 'tools[3]'.")
    assert "[agents] enabled = false" in error["message"]
