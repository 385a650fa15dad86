"""Server tools: selection rules, items, streaming events, replay and failures."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import httpx
import pytest
from inline_snapshot import Is, snapshot
from openai import AsyncOpenAI

from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate
from tests.matchers import an_id

pytestmark = pytest.mark.anyio

BOTH = [{"type": "custom", "name": "lgos_package_version"}, {"type": "web_search"}]


async def _post(http: httpx.AsyncClient, body: dict[str, Any]) -> httpx.Response:
    return await http.post("/v1/responses", json={"model": "server-tools", **body})


async def test_calls_results_and_answer_in_one_response(
    http: httpx.AsyncClient,
) -> None:
    reply = await _post(
        http, {"input": "version and search: langgraph, openai", "tools": BOTH}
    )
    assert reply.status_code == 200, reply.text
    data = reply.json()
    validate("Response", data)
    # Backend payloads (result text, sources) stay private.
    assert data["output"] == snapshot(
        [
            {
                "id": an_id("ctc"),
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_v",
                "name": "lgos_package_version",
                "input": "pydantic",
            },
            {
                "id": an_id("ws"),
                "type": "web_search_call",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "langgraph",
                    "queries": ["langgraph"],
                },
            },
            {
                "id": an_id("ws"),
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": "openai", "queries": ["openai"]},
            },
            {
                "id": an_id("ctco"),
                "type": "custom_tool_call_output",
                "status": "completed",
                "call_id": "call_v",
                "output": Is(version("pydantic")),
            },
            {
                "id": an_id("msg"),
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": Is(
                            f"Found: {version('pydantic')}; "
                            "Result for langgraph; Result for openai"
                        ),
                        "annotations": [],
                        "logprobs": [],
                    }
                ],
                "phase": "final_answer",
            },
        ]
    )


async def test_streamed_server_tool_events(http: httpx.AsyncClient) -> None:
    reply = await _post(
        http, {"input": "version and search: x", "tools": BOTH, "stream": True}
    )
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    # Each event's type and output item: the search completes before the answer.
    sequence = [(e["type"], e.get("output_index")) for e in events]
    assert sequence == snapshot(
        [
            ("response.created", None),
            ("response.in_progress", None),
            ("response.output_item.added", 0),
            ("response.custom_tool_call_input.delta", 0),
            ("response.custom_tool_call_input.done", 0),
            ("response.output_item.done", 0),
            ("response.output_item.added", 1),
            ("response.web_search_call.in_progress", 1),
            ("response.web_search_call.searching", 1),
            ("response.output_item.added", 2),
            ("response.output_item.done", 2),
            ("response.web_search_call.completed", 1),
            ("response.output_item.done", 1),
            ("response.output_item.added", 3),
            ("response.content_part.added", 3),
            ("response.output_text.delta", 3),
            ("response.output_text.delta", 3),
            ("response.output_text.delta", 3),
            ("response.output_text.delta", 3),
            ("response.output_text.delta", 3),
            ("response.output_text.done", 3),
            ("response.content_part.done", 3),
            ("response.output_item.done", 3),
            ("response.completed", None),
        ]
    )
    delta = next(
        e for e in events if e["type"] == "response.custom_tool_call_input.delta"
    )
    assert delta["delta"] == "pydantic"
    final = events[-1]["response"]
    assert final["status"] == "completed"
    assert [i["type"] for i in final["output"]] == [
        "custom_tool_call",
        "web_search_call",
        "custom_tool_call_output",
        "message",
    ]


async def test_only_selected_tools_run(openai_client: AsyncOpenAI) -> None:
    custom_only = await openai_client.responses.create(
        model="server-tools", input="version and search: x", tools=BOTH[:1]
    )
    assert [i.type for i in custom_only.output] == [
        "custom_tool_call",
        "custom_tool_call_output",
        "message",
    ]
    none = await openai_client.responses.create(model="server-tools", input="search: x")
    assert [i.type for i in none.output] == ["message"]
    forced = await openai_client.responses.create(
        model="server-tools", input="hello: q", tools=BOTH[1:], tool_choice="required"
    )
    assert [i.type for i in forced.output] == ["web_search_call", "message"]


async def test_web_search_by_its_dated_name(http: httpx.AsyncClient) -> None:
    # OpenAI's other name for the tool, with its defaults spelled out.
    tool = {
        "type": "web_search_2025_08_26",
        "external_web_access": True,
        "search_context_size": "medium",
    }
    reply = await _post(http, {"input": "search: x", "tools": [tool]})
    assert reply.status_code == 200, reply.text
    data = reply.json()
    validate("Response", data)
    assert [item["type"] for item in data["output"]] == ["web_search_call", "message"]
    assert data["tools"] == [{"type": "web_search_2025_08_26"}]


async def test_replayed_items_are_history(openai_client: AsyncOpenAI) -> None:
    first = await openai_client.responses.create(
        model="server-tools", input="version and search: x", tools=BOTH
    )
    ledger: list[Any] = [{"role": "user", "content": "version and search: x"}]
    ledger += [item.model_dump(exclude_none=True) for item in first.output]
    ledger.append({"role": "user", "content": "thanks"})
    second = await openai_client.responses.create(
        model="server-tools", input=ledger, tools=BOTH
    )
    assert second.output[-1].type == "message"
    # Replayed activity is input, not a new update: it is not emitted again.
    assert [i.type for i in second.output] == ["message"]


async def test_failed_search_is_a_failed_item(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(
        model="server-tools", input="search: fail here", tools=BOTH[1:]
    )
    search = response.output[0]
    assert (search.type, search.status) == ("web_search_call", "failed")
    assert response.status == "completed"


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("search: orphan", "without a result"),
        ("repeat", "twice"),
    ],
)
async def test_broken_server_activity_fails(
    http: httpx.AsyncClient, prompt: str, message: str
) -> None:
    reply = await _post(http, {"input": prompt, "tools": BOTH})
    assert reply.status_code == 500
    assert message in reply.json()["error"]["message"]
    streamed = await _post(http, {"input": prompt, "tools": BOTH, "stream": True})
    events = parse_sse(streamed.text)
    assert events[-1]["type"] == "response.failed"
    for event in events:
        validate("ResponseStreamEvent", event)


@pytest.mark.parametrize(
    ("tools", "choice", "param"),
    [
        (
            [{"type": "custom", "name": "lgos_package_version", "description": "x"}],
            None,
            "tools[0].description",
        ),
        (
            [
                {
                    "type": "custom",
                    "name": "lgos_package_version",
                    "format": {"type": "text"},
                }
            ],
            None,
            "tools[0].format",
        ),
        ([{"type": "custom", "name": "not_registered"}], None, "tools[0]"),
        ([{"type": "function", "name": "lgos_package_version"}], None, "tools[0].name"),
        ([{"type": "web_search"}, {"type": "web_search"}], None, "tools[1]"),
        (
            [{"type": "web_search", "search_context_size": "high"}],
            None,
            "tools[0].search_context_size",
        ),
        (BOTH, {"type": "web_search"}, "tool_choice"),
        (BOTH[1:], {"type": "custom", "name": "lgos_package_version"}, "tool_choice"),
    ],
)
async def test_selection_rules(http: httpx.AsyncClient, tools, choice, param) -> None:
    body: dict[str, Any] = {"input": "x", "tools": tools}
    if choice is not None:
        body["tool_choice"] = choice
    reply = await _post(http, body)
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["param"] == param


async def test_models_without_the_tool_reject_it(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses",
        json={"model": "echo", "input": "x", "tools": [{"type": "web_search"}]},
    )
    assert reply.status_code == 400
    assert reply.json()["error"]["param"] == "tools[0]"


async def test_chat_invokes_but_cannot_select(openai_client: AsyncOpenAI) -> None:
    completion = await openai_client.chat.completions.create(
        model="server-tools",
        messages=[{"role": "user", "content": "version and search: x"}],
    )
    assert completion.choices[0].message.content == "Found: "
    import openai

    with pytest.raises(openai.BadRequestError) as raised:
        await openai_client.chat.completions.create(
            model="server-tools",
            messages=[{"role": "user", "content": "x"}],
            tools=[{"type": "function", "function": {"name": "web_search"}}],
        )
    assert raised.value.param == "tools[0].name"


async def test_named_custom_choice_reaches_the_graph(
    openai_client: AsyncOpenAI,
) -> None:
    response = await openai_client.responses.create(
        model="server-tools",
        input="version please",
        tools=BOTH,
        tool_choice={"type": "custom", "name": "lgos_package_version"},
    )
    assert response.output[0].type == "custom_tool_call"
    # The Response echoes the custom choice as sent, not as a function choice.
    wire = response.model_dump(mode="json", exclude_unset=True)
    assert wire["tool_choice"] == {"type": "custom", "name": "lgos_package_version"}
    async with openai_client.responses.stream(
        model="server-tools",
        input="version please",
        tools=BOTH,
        tool_choice={"type": "custom", "name": "lgos_package_version"},
    ) as stream:
        created = [e async for e in stream if e.type == "response.created"]
    echoed = created[0].response.model_dump(mode="json", exclude_unset=True)
    assert echoed["tool_choice"] == {"type": "custom", "name": "lgos_package_version"}
