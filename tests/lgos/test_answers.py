"""Refusals, incomplete answers and citations, on both routes, streamed or not."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from openai import AsyncOpenAI

from langgraph_openai_serve import GraphError
from langgraph_openai_serve.graph.citations import citation_slice
from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate
from tests.lgos.graphs import CITED_TEXT

pytestmark = pytest.mark.anyio


async def _response(
    http: httpx.AsyncClient, prompt: str, stream: bool
) -> tuple[dict, list]:
    reply = await http.post(
        "/v1/responses", json={"model": "answers", "input": prompt, "stream": stream}
    )
    assert reply.status_code == 200, reply.text
    if not stream:
        validate("Response", reply.json())
        return reply.json(), []
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    return events[-1]["response"], events


async def _chat(http: httpx.AsyncClient, prompt: str, stream: bool) -> Any:
    body = {
        "model": "answers",
        "messages": [{"role": "user", "content": prompt}],
        "stream": stream,
    }
    reply = await http.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200, reply.text
    if not stream:
        validate("CreateChatCompletionResponse", reply.json())
        return reply.json()
    assert reply.text.endswith("data: [DONE]\n\n")
    return parse_sse(reply.text)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("prompt", "refusal"),
    [("refuse", "I can't help with that."), ("refuse-kwargs", "Not that, sorry.")],
)
async def test_refusal(
    http: httpx.AsyncClient, stream: bool, prompt: str, refusal: str
) -> None:
    response, events = await _response(http, prompt, stream)
    assert response["status"] == "completed"
    assert response["output"][0]["content"] == [{"type": "refusal", "refusal": refusal}]
    if stream:
        types = [e["type"] for e in events]
        assert "response.refusal.delta" in types
        assert "response.output_text.delta" not in types
        done = next(e for e in events if e["type"] == "response.refusal.done")
        assert done["refusal"] == refusal

    chat = await _chat(http, prompt, stream)
    if stream:
        for chunk in chat:
            validate("CreateChatCompletionStreamResponse", chunk)
        deltas = [c["choices"][0]["delta"] for c in chat]
        assert [d["refusal"] for d in deltas if d.get("refusal")] == [refusal]
    else:
        message = chat["choices"][0]["message"]
        assert (message["content"], message["refusal"]) == (None, refusal)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("prompt", "reason", "finish"),
    [
        ("truncate", "max_output_tokens", "length"),
        ("filter", "content_filter", "content_filter"),
    ],
)
async def test_incomplete(
    http: httpx.AsyncClient, stream: bool, prompt: str, reason: str, finish: str
) -> None:
    response, events = await _response(http, prompt, stream)
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": reason}
    assert response["output"][0]["status"] == "incomplete"
    if stream:
        assert events[-1]["type"] == "response.incomplete"
    chat = await _chat(http, prompt, stream)
    final = chat[-1] if stream else chat
    assert final["choices"][0]["finish_reason"] == finish


async def test_truncated_call_stays_raw(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(
        model="answers", input="truncated-call"
    )
    call = next(item for item in response.output if item.type == "function_call")
    assert (call.status, call.arguments) == ("incomplete", '{"city": "Par')
    assert response.status == "incomplete"


@pytest.mark.parametrize("prompt", ["cite", "cite-streamed"])
@pytest.mark.parametrize("stream", [False, True])
async def test_citations_on_responses(
    http: httpx.AsyncClient, prompt: str, stream: bool
) -> None:
    response, events = await _response(http, prompt, stream)
    part = response["output"][0]["content"][0]
    assert part["text"] == CITED_TEXT
    annotations = part["annotations"]
    assert [(a["url"], a["start_index"], a["end_index"]) for a in annotations] == [
        ("https://langchain-ai.github.io/langgraph/", 0, 8),
        ("https://platform.openai.com/docs", 39, 44),
    ]
    spans = [
        CITED_TEXT[citation_slice(a["start_index"], a["end_index"], CITED_TEXT)]
        for a in annotations
    ]
    assert spans == ["LangGraph", "OpenAI"]
    if stream:
        added = [
            e for e in events if e["type"] == "response.output_text.annotation.added"
        ]
        assert [e["annotation"] for e in added] == annotations
        assert [e["annotation_index"] for e in added] == [0, 1]
        done_at = next(
            i for i, e in enumerate(events) if e["type"] == "response.output_text.done"
        )
        assert all(events.index(e) < done_at for e in added)
        deltas = "".join(
            e["delta"] for e in events if e["type"] == "response.output_text.delta"
        )
        assert deltas == CITED_TEXT


@pytest.mark.parametrize("stream", [False, True])
async def test_citations_on_chat(http: httpx.AsyncClient, stream: bool) -> None:
    chat = await _chat(http, "cite", stream)
    if stream:
        # The final delta's annotations are LGOS's documented extension.
        annotations = chat[-1]["choices"][0]["delta"]["annotations"]
    else:
        annotations = chat["choices"][0]["message"]["annotations"]
    assert [a["url_citation"]["start_index"] for a in annotations] == [0, 39]
    assert annotations[0] == {
        "type": "url_citation",
        "url_citation": {
            "url": "https://langchain-ai.github.io/langgraph/",
            "title": "LangGraph",
            "start_index": 0,
            "end_index": 8,
        },
    }


@pytest.mark.parametrize("prompt", ["cite-bad-span", "cite-wrong-text"])
async def test_invalid_citations_fail(http: httpx.AsyncClient, prompt: str) -> None:
    reply = await http.post("/v1/responses", json={"model": "answers", "input": prompt})
    assert reply.status_code == 500
    assert "citation" in reply.json()["error"]["message"].lower()
    response, _ = await _response(http, prompt, True)
    assert response["status"] == "failed"


def test_citation_slice() -> None:
    text = "Read the source [1]."
    assert text[citation_slice(9, 14, text)] == "source"
    for start, end in [(-1, 3), (5, 4), (0, 20)]:
        with pytest.raises(GraphError):
            citation_slice(start, end, text)


async def test_replayed_assistant_output_reaches_the_graph(
    openai_client: AsyncOpenAI,
) -> None:
    first = await openai_client.responses.create(model="answers", input="cite")
    ledger: list[Any] = [{"role": "user", "content": "cite"}]
    ledger += [item.model_dump() for item in first.output]  # SDK nulls included
    ledger.append({"role": "user", "content": "again"})
    second = await openai_client.responses.create(model="answers", input=ledger)
    assert second.output_text == "Plain: again"
