"""The demo graphs through the OpenAI SDK: Responses and Chat Completions agree.

The app is built in-process from the demo registry (offline model) and
reached through ``httpx.ASGITransport``. Every object and stream event the
SDK receives is checked against OpenAI's OpenAPI document; the same graph
answers with the same text, tool calls and citations on both routes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import AsyncOpenAI

from langgraph_openai_serve.graph.citations import citation_slice
from lgos_client.functions import LOCAL_FUNCTIONS
from lgos_demo_api.graphs.citations import NO_SOURCES_REFUSAL
from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio

FAST_WRITER = {"lgos_settings": '{"pace":0}'}
TWO_SOURCES = "Compare Chat Completions and the Responses API"
BOTH_FUNCTIONS = "What time is it in Tokyo, and roll two dice?"
RESPONSES_TOOLS = [f.tool() for f in LOCAL_FUNCTIONS.values()]
CHAT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": t["name"],
            "description": t["description"],
            "parameters": t["parameters"],
            "strict": t["strict"],
        },
    }
    for t in RESPONSES_TOOLS
]


@pytest.fixture
def client(demo_client: AsyncOpenAI) -> AsyncOpenAI:
    """The OpenAI SDK on the in-process offline demo (root conftest)."""
    return demo_client


def wire(obj: Any) -> dict[str, Any]:
    """The JSON the SDK received (fields it filled in itself are left out)."""
    return obj.model_dump(mode="json", exclude_unset=True)


async def respond(client: AsyncOpenAI, **request: Any) -> dict[str, Any]:
    response = wire(await client.responses.create(**request))
    validate("Response", response)
    return response


async def respond_streaming(
    client: AsyncOpenAI, **request: Any
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = []
    async with await client.responses.create(stream=True, **request) as stream:
        async for event in stream:
            events.append(wire(event))
            validate("ResponseStreamEvent", events[-1])
    terminal = events[-1]
    assert terminal["type"] in ("response.completed", "response.incomplete")
    validate("Response", terminal["response"])
    return events, terminal["response"]


async def chat(client: AsyncOpenAI, **request: Any) -> dict[str, Any]:
    completion = wire(await client.chat.completions.create(**request))
    validate("CreateChatCompletionResponse", completion)
    return completion["choices"][0]


async def chat_streaming(client: AsyncOpenAI, **request: Any) -> dict[str, Any]:
    """Stream a completion; return the choice the chunks add up to."""
    text, refusal, annotations, finish = "", "", [], None
    calls: dict[int, dict[str, Any]] = {}
    async with await client.chat.completions.create(stream=True, **request) as stream:
        async for chunk in stream:
            data = wire(chunk)
            validate("CreateChatCompletionStreamResponse", data)
            for choice in data["choices"]:
                delta = choice.get("delta", {})
                text += delta.get("content") or ""
                refusal += delta.get("refusal") or ""
                annotations += delta.get("annotations") or []
                for call in delta.get("tool_calls") or []:
                    entry = calls.setdefault(
                        call["index"], {"id": None, "name": "", "arguments": ""}
                    )
                    entry["id"] = call.get("id") or entry["id"]
                    function = call.get("function") or {}
                    entry["name"] += function.get("name") or ""
                    entry["arguments"] += function.get("arguments") or ""
                finish = choice.get("finish_reason") or finish
    return {
        "text": text,
        "refusal": refusal or None,
        "annotations": annotations,
        "tool_calls": [calls[i] for i in sorted(calls)],
        "finish_reason": finish,
    }


def final_message(response: dict[str, Any]) -> dict[str, Any]:
    (message,) = [
        item
        for item in response["output"]
        if item["type"] == "message" and item.get("phase") == "final_answer"
    ]
    return message


def output_text(response: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    part = final_message(response)["content"][0]
    assert part["type"] == "output_text"
    return part["text"], part["annotations"]


def chat_annotations(annotations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat's nested url_citation annotations, flattened like Responses'."""
    return [{"type": a["type"], **a["url_citation"]} for a in annotations]


def function_calls(response: dict[str, Any]) -> list[tuple[str, str, dict]]:
    return [
        (item["call_id"], item["name"], json.loads(item["arguments"]))
        for item in response["output"]
        if item["type"] == "function_call"
    ]


# -- writer ------------------------------------------------------------------


async def test_writer_streams_commentary_then_the_same_answer_as_chat(
    client: AsyncOpenAI,
) -> None:
    question = "What is a river delta?"
    events, response = await respond_streaming(
        client, model="writer", input=question, metadata=FAST_WRITER
    )

    phases = [item.get("phase") for item in response["output"]]
    assert phases == ["commentary"] * 5 + ["final_answer"]
    notes = [item["content"][0]["text"] for item in response["output"][:5]]
    assert notes[0] == "Outlining the answer in 3 sections"
    assert notes[-1] == "Polishing the final answer"
    answer, _ = output_text(response)
    assert "### A river delta: the basics" in answer
    assert not any(note in answer for note in notes)

    # Every commentary message is complete before the answer's first delta.
    first_delta = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "response.output_text.delta"
        and e["item_id"] == final_message(response)["id"]
    )
    commentary_done = [
        i
        for i, e in enumerate(events)
        if e["type"] == "response.output_item.done"
        and e["item"].get("phase") == "commentary"
    ]
    assert len(commentary_done) == 5
    assert max(commentary_done) < first_delta

    # Non-streaming Responses and Chat Completions carry no commentary.
    plain = await respond(client, model="writer", input=question, metadata=FAST_WRITER)
    assert [item.get("phase") for item in plain["output"]] == ["final_answer"]
    assert output_text(plain)[0] == answer
    messages = [{"role": "user", "content": question}]
    choice = await chat(client, model="writer", messages=messages, metadata=FAST_WRITER)
    assert choice["message"]["content"] == answer
    streamed = await chat_streaming(
        client, model="writer", messages=messages, metadata=FAST_WRITER
    )
    assert streamed["text"] == answer


# -- citations ---------------------------------------------------------------


async def test_citations_match_on_both_routes_and_spans_validate(
    client: AsyncOpenAI,
) -> None:
    events, response = await respond_streaming(
        client, model="citations", input=TWO_SOURCES
    )
    text, annotations = output_text(response)
    assert [(a["type"], a["title"]) for a in annotations] == [
        ("url_citation", "OpenAI Chat Completions"),
        ("url_citation", "OpenAI Responses API"),
    ]
    for number, annotation in enumerate(annotations, start=1):
        span = citation_slice(annotation["start_index"], annotation["end_index"], text)
        assert text[span] == f"[{number}]"

    added = [e for e in events if e["type"] == "response.output_text.annotation.added"]
    assert [e["annotation"] for e in added] == annotations
    done = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "response.output_text.done"
        and e["item_id"] == final_message(response)["id"]
    )
    assert all(events.index(e) < done for e in added)

    plain = await respond(client, model="citations", input=TWO_SOURCES)
    assert output_text(plain) == (text, annotations)

    messages = [{"role": "user", "content": TWO_SOURCES}]
    choice = await chat(client, model="citations", messages=messages)
    assert choice["message"]["content"] == text
    assert chat_annotations(choice["message"]["annotations"]) == annotations
    streamed = await chat_streaming(client, model="citations", messages=messages)
    assert streamed["text"] == text
    assert chat_annotations(streamed["annotations"]) == annotations


async def test_uncovered_question_is_a_refusal_on_both_routes(
    client: AsyncOpenAI,
) -> None:
    question = "What is the capital of France?"
    events, response = await respond_streaming(
        client, model="citations", input=question
    )
    assert final_message(response)["content"] == [
        {"type": "refusal", "refusal": NO_SOURCES_REFUSAL}
    ]
    assert [e["delta"] for e in events if e["type"] == "response.refusal.delta"] == [
        NO_SOURCES_REFUSAL
    ]
    messages = [{"role": "user", "content": question}]
    choice = await chat(client, model="citations", messages=messages)
    assert choice["message"]["refusal"] == NO_SOURCES_REFUSAL
    assert not choice["message"].get("content")
    streamed = await chat_streaming(client, model="citations", messages=messages)
    assert streamed["refusal"] == NO_SOURCES_REFUSAL


# -- functions ---------------------------------------------------------------


async def test_function_round_trip_matches_on_both_routes(
    client: AsyncOpenAI,
) -> None:
    # Round 1: the graph calls both of the client's functions.
    events, response = await respond_streaming(
        client, model="functions", input=BOTH_FUNCTIONS, tools=RESPONSES_TOOLS
    )
    calls = function_calls(response)
    assert [(name, args) for _, name, args in calls] == [
        ("get_current_time", {"timezone": "Asia/Tokyo"}),
        ("roll_dice", {"sides": 6, "count": 2}),
    ]
    kinds = [e["type"] for e in events]
    assert kinds.count("response.function_call_arguments.done") == 2

    messages: list[dict[str, Any]] = [{"role": "user", "content": BOTH_FUNCTIONS}]
    choice = await chat(client, model="functions", messages=messages, tools=CHAT_TOOLS)
    assert choice["finish_reason"] == "tool_calls"
    chat_calls = [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in choice["message"]["tool_calls"]
    ]
    assert chat_calls == calls
    streamed = await chat_streaming(
        client, model="functions", messages=messages, tools=CHAT_TOOLS
    )
    assert [
        (c["id"], c["name"], json.loads(c["arguments"])) for c in streamed["tool_calls"]
    ] == calls
    assert streamed["finish_reason"] == "tool_calls"

    # Round 2: the client sends the results back; both routes answer alike.
    results = {
        "get_current_time": '{"timezone":"Asia/Tokyo","time":"09:30"}',
        "roll_dice": '{"rolls":[2,5],"total":7}',
    }
    ledger = [
        {"role": "user", "content": BOTH_FUNCTIONS},
        *[item for item in response["output"]],
        *[
            {
                "type": "function_call_output",
                "call_id": call_id,
                "output": results[name],
            }
            for call_id, name, _ in calls
        ],
    ]
    _, final = await respond_streaming(
        client, model="functions", input=ledger, tools=RESPONSES_TOOLS
    )
    answer, _ = output_text(final)
    assert function_calls(final) == []
    assert 'time: "09:30"' in answer
    assert "rolls: [2, 5], total: 7" in answer

    chat_messages = [
        *messages,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": choice["message"]["tool_calls"],
        },
        *[
            {"role": "tool", "tool_call_id": call_id, "content": results[name]}
            for call_id, name, _ in calls
        ],
    ]
    final_choice = await chat(
        client, model="functions", messages=chat_messages, tools=CHAT_TOOLS
    )
    assert final_choice["finish_reason"] == "stop"
    assert final_choice["message"]["content"] == answer


@pytest.mark.parametrize(
    ("tool_choice", "chat_choice", "names"),
    [
        ("none", "none", []),
        ("required", "required", ["get_current_time"]),
        (
            {"type": "function", "name": "roll_dice"},
            {"type": "function", "function": {"name": "roll_dice"}},
            ["roll_dice"],
        ),
    ],
)
async def test_tool_choice_on_both_routes(
    client: AsyncOpenAI, tool_choice: Any, chat_choice: Any, names: list[str]
) -> None:
    question = "Hello!"
    response = await respond(
        client,
        model="functions",
        input=question,
        tools=RESPONSES_TOOLS,
        tool_choice=tool_choice,
    )
    assert [name for _, name, _ in function_calls(response)] == names
    choice = await chat(
        client,
        model="functions",
        messages=[{"role": "user", "content": question}],
        tools=CHAT_TOOLS,
        tool_choice=chat_choice,
    )
    chat_names = [
        c["function"]["name"] for c in choice["message"].get("tool_calls") or []
    ]
    assert chat_names == names
    if not names:
        assert output_text(response)[0] == choice["message"]["content"]


async def test_parallel_tool_calls_false_on_both_routes(client: AsyncOpenAI) -> None:
    response = await respond(
        client,
        model="functions",
        input=BOTH_FUNCTIONS,
        tools=RESPONSES_TOOLS,
        parallel_tool_calls=False,
    )
    assert [name for _, name, _ in function_calls(response)] == ["get_current_time"]
    choice = await chat(
        client,
        model="functions",
        messages=[{"role": "user", "content": BOTH_FUNCTIONS}],
        tools=CHAT_TOOLS,
        parallel_tool_calls=False,
    )
    assert [c["function"]["name"] for c in choice["message"]["tool_calls"]] == [
        "get_current_time"
    ]


async def test_models_advertise_the_ui_functions(client: AsyncOpenAI) -> None:
    model = await client.models.retrieve("functions")
    extension = model.model_extra["lgos"]  # type: ignore[index]
    assert sorted(extension["client_tools"]) == sorted(LOCAL_FUNCTIONS)
    for name in ("writer", "citations"):
        other = await client.models.retrieve(name)
        assert other.model_extra["lgos"]["client_tools"] == []  # type: ignore[index]
