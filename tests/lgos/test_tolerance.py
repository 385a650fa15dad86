"""Every value LGOS accepts as asking for nothing, on the wire in both directions.

The request models declare, per field, the values of OpenAI fields LGOS
does not serve that ask for nothing (``openai_no_op_values``) and the named
fields of well-known clients (``client_fields``); see
``langgraph_openai_serve.api.tolerance``. For each declaration, at any
depth, every accepted example is sent and answered (200), and one value
that would ask for something is refused with the right code and ``param``:
``unsupported_parameter`` for a value LGOS cannot honour, ``invalid_type``
for a hint or client field of the wrong type. A declaration without a case
here fails :func:`test_every_declaration_has_a_case`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from langgraph_openai_serve.api.chat import chat_request as chat
from langgraph_openai_serve.api.request_fields import StrictModel
from langgraph_openai_serve.api.responses import responses_request as responses
from langgraph_openai_serve.api.tolerance import as_no_op
from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio

RESPONSES = {"model": "echo", "input": "fields"}
CHAT = {"model": "echo", "messages": [{"role": "user", "content": "fields"}]}


def _user(part: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [part]}]


def _replayed_call(fields: dict[str, Any]) -> list[dict[str, Any]]:
    call = {"id": "call_1", "type": "function"} | fields
    call["function"] = {"name": "f", "arguments": "{}"}
    return [
        {"role": "user", "content": "fields"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "1"},
        {"role": "user", "content": "fields"},
    ]


Body = Callable[[dict[str, Any]], dict[str, Any]]

# Where each model's fields go: (route, body holding the fields, param prefix).
PLACES: dict[type[StrictModel], tuple[str, Body, str]] = {
    responses.ResponseCreateRequest: ("/v1/responses", lambda f: RESPONSES | f, ""),
    responses.ReasoningConfig: (
        "/v1/responses",
        lambda f: RESPONSES | {"reasoning": f},
        "reasoning.",
    ),
    responses.TextConfig: ("/v1/responses", lambda f: RESPONSES | {"text": f}, "text."),
    responses.ResponseStreamOptions: (
        "/v1/responses",
        lambda f: RESPONSES | {"stream": True, "stream_options": f},
        "stream_options.",
    ),
    responses.InputText: (
        "/v1/responses",
        lambda f: (
            RESPONSES | {"input": _user({"type": "input_text", "text": "fields"} | f)}
        ),
        "input[0].content[0].",
    ),
    responses.InputFile: (
        "/v1/responses",
        lambda f: {
            "model": "files",
            "input": _user({"type": "input_file", "file_id": "file-abc"} | f),
        },
        "input[0].content[0].",
    ),
    responses.FunctionTool: (
        "/v1/responses",
        lambda f: RESPONSES | {"tools": [{"type": "function", "name": "f"} | f]},
        "tools[0].",
    ),
    responses.CustomToolSelector: (
        "/v1/responses",
        lambda f: {
            "model": "server-tools",
            "input": "fields",
            "tools": [{"type": "custom", "name": "lgos_package_version"} | f],
        },
        "tools[0].",
    ),
    responses.WebSearchSelector: (
        "/v1/responses",
        lambda f: {
            "model": "server-tools",
            "input": "fields",
            "tools": [{"type": "web_search"} | f],
        },
        "tools[0].",
    ),
    chat.ChatCompletionRequest: ("/v1/chat/completions", lambda f: CHAT | f, ""),
    chat.StreamOptions: (
        "/v1/chat/completions",
        lambda f: CHAT | {"stream": True, "stream_options": f},
        "stream_options.",
    ),
    chat.TextPart: (
        "/v1/chat/completions",
        lambda f: CHAT | {"messages": _user({"type": "text", "text": "fields"} | f)},
        "messages[0].content[0].",
    ),
    chat.FilePart: (
        "/v1/chat/completions",
        lambda f: {
            "model": "files",
            "messages": _user({"type": "file", "file": {"file_id": "file-abc"}} | f),
        },
        "messages[0].content[0].",
    ),
    chat.ToolCall: (
        "/v1/chat/completions",
        lambda f: CHAT | {"messages": _replayed_call(f)},
        "messages[1].tool_calls[0].",
    ),
}

_BREAKPOINT = {"mode": "implicit"}  # OpenAI's only breakpoint mode is "explicit"

# One value per declaration that asks for something (or has the wrong type).
REFUSED: dict[tuple[type[StrictModel], str], Any] = {
    (responses.ResponseCreateRequest, "include"): ["web_search_call.action.sources"],
    (responses.ResponseCreateRequest, "truncation"): "auto",
    (responses.ResponseCreateRequest, "service_tier"): "flex",
    (responses.ResponseCreateRequest, "top_logprobs"): 2,
    (responses.ResponseCreateRequest, "prompt_cache_key"): 5,
    (responses.ResponseCreateRequest, "prompt_cache_retention"): "forever",
    (responses.ResponseCreateRequest, "prompt_cache_options"): "30m",
    (responses.ResponseCreateRequest, "client_metadata"): {"x": 1},
    (responses.ReasoningConfig, "summary"): "verbose",
    (responses.ReasoningConfig, "generate_summary"): "verbose",
    (responses.ReasoningConfig, "context"): "everything",
    (responses.TextConfig, "format"): {"type": "json_object"},
    (responses.TextConfig, "verbosity"): "low",
    (responses.ResponseStreamOptions, "include_obfuscation"): True,
    (responses.InputText, "prompt_cache_breakpoint"): _BREAKPOINT,
    (responses.InputFile, "prompt_cache_breakpoint"): _BREAKPOINT,
    (responses.FunctionTool, "defer_loading"): True,
    (responses.CustomToolSelector, "defer_loading"): True,
    (responses.WebSearchSelector, "external_web_access"): False,
    (responses.WebSearchSelector, "search_context_size"): "high",
    (chat.ChatCompletionRequest, "n"): 2,
    (chat.ChatCompletionRequest, "logprobs"): True,
    (chat.ChatCompletionRequest, "top_logprobs"): 2,
    (chat.ChatCompletionRequest, "logit_bias"): {"50256": -100},
    (chat.ChatCompletionRequest, "verbosity"): "high",
    (chat.ChatCompletionRequest, "response_format"): {"type": "json_object"},
    (chat.ChatCompletionRequest, "modalities"): ["text", "audio"],
    (chat.ChatCompletionRequest, "service_tier"): "priority",
    (chat.ChatCompletionRequest, "prompt_cache_key"): ["k"],
    (chat.ChatCompletionRequest, "prompt_cache_retention"): "forever",
    (chat.ChatCompletionRequest, "prompt_cache_options"): "30m",
    (chat.StreamOptions, "include_obfuscation"): True,
    (chat.TextPart, "prompt_cache_breakpoint"): _BREAKPOINT,
    (chat.FilePart, "prompt_cache_breakpoint"): _BREAKPOINT,
    (chat.ToolCall, "index"): "0",
}


def _declared() -> set[tuple[type[StrictModel], str]]:
    models = [
        value
        for module in (responses, chat)
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, StrictModel)
    ]
    return {
        (model, name)
        for model in models
        for name in (*model.openai_no_op_values, *model.client_fields)
    }


def test_every_declaration_has_a_case() -> None:
    assert _declared() == set(REFUSED)
    assert {model for model, _ in REFUSED} <= set(PLACES)


def _accepted_cases() -> list[tuple[type[StrictModel], str, Any]]:
    cases = []
    for model, name in REFUSED:
        declared = model.client_fields.get(name)
        no_op = (
            declared.value if declared else as_no_op(model.openai_no_op_values[name])
        )
        cases.extend((model, name, example) for example in no_op.examples)
    return cases


def _case_id(value: Any) -> str | None:
    if isinstance(value, type):
        return value.__name__
    return None


async def _served(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> None:
    reply = await http.post(path, json=body)
    assert reply.status_code == 200, reply.text
    if body.get("stream"):
        events = parse_sse(reply.text)
        if path == "/v1/responses":
            assert events[-1]["type"] == "response.completed"
        else:
            assert reply.text.endswith("data: [DONE]\n\n")
    elif path == "/v1/responses":
        validate("Response", reply.json())
        assert reply.json()["status"] == "completed"
    else:
        validate("CreateChatCompletionResponse", reply.json())


@pytest.mark.parametrize(("model", "name", "value"), _accepted_cases(), ids=_case_id)
async def test_a_value_asking_for_nothing_is_served(
    http: httpx.AsyncClient, model: type[StrictModel], name: str, value: Any
) -> None:
    path, body, _ = PLACES[model]
    await _served(http, path, body({name: value}))


@pytest.mark.parametrize(("model", "name"), sorted(REFUSED, key=repr), ids=_case_id)
async def test_a_value_asking_for_something_is_refused(
    http: httpx.AsyncClient, model: type[StrictModel], name: str
) -> None:
    path, body, prefix = PLACES[model]
    reply = await http.post(path, json=body({name: REFUSED[model, name]}))
    assert reply.status_code == 400, reply.text
    validate("ErrorResponse", reply.json())
    error = reply.json()["error"]
    declared = model.client_fields.get(name)
    no_op = declared.value if declared else as_no_op(model.openai_no_op_values[name])
    code = "invalid_type" if declared or no_op.hint else "unsupported_parameter"
    assert (error["code"], error["param"]) == (code, prefix + name)
    if code == "unsupported_parameter":
        # Advice for a client that sends the value by default may follow.
        assert f"Omit it, or send null or {no_op.shown}." in error["message"]


async def test_a_retrieve_query_follows_the_same_include_rule(
    http: httpx.AsyncClient,
) -> None:
    # Entries naming parts LGOS never emits ask for nothing: the usual 404.
    asks_nothing = await http.get(
        "/v1/responses/resp_1?include[]=reasoning.encrypted_content"
        "&include[]=file_search_call.results"
    )
    assert asks_nothing.status_code == 404, asks_nothing.text
    refused = await http.get(
        "/v1/responses/resp_1?include[]=web_search_call.action.sources"
    )
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert (error["code"], error["param"]) == ("unsupported_parameter", "include")


async def test_a_namespace_tool_names_the_codex_setting(
    http: httpx.AsyncClient,
) -> None:
    namespace = {
        "type": "namespace",
        "name": "multi_agent_v1",
        "description": "Sub-agents.",
        "tools": [{"type": "function", "name": "spawn_agent", "parameters": {}}],
    }
    reply = await http.post("/v1/responses", json=RESPONSES | {"tools": [namespace]})
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert (error["code"], error["param"]) == ("unsupported_value", "tools[0]")
    assert "Codex CLI" in error["message"]
    assert "[agents] enabled = false" in error["message"]


async def test_cached_web_search_names_the_codex_setting(
    http: httpx.AsyncClient,
) -> None:
    # Codex CLI's web_search tool, under either of OpenAI's names for it.
    for kind in ("web_search", "web_search_2025_08_26"):
        tool = {"type": kind, "external_web_access": False}
        body = {"model": "server-tools", "input": "x", "tools": [tool]}
        reply = await http.post("/v1/responses", json=body)
        assert reply.status_code == 400
        error = reply.json()["error"]
        param = "tools[0].external_web_access"
        assert (error["code"], error["param"]) == ("unsupported_parameter", param)
        assert "Codex CLI" in error["message"]
        assert 'web_search = "disabled"' in error["message"]


def test_the_reference_table_names_every_declaration() -> None:
    page = Path(__file__).parents[2] / "docs" / "reference" / "openai-api.md"
    text = page.read_text()
    table = text[text.index("| field (API) | accepted besides omission and `null` |") :]
    table = table[: table.index("\n\n")]
    first_cells = " ".join(row.split("|")[1] for row in table.splitlines()[2:])
    missing = {name for _, name in _declared() if f"`{name}`" not in first_cells}
    # Nested names appear with their parent (reasoning.summary, ...).
    missing = {name for name in missing if f".{name}`" not in first_cells}
    assert missing == set()
