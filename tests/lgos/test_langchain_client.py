"""LangChain's ChatOpenAI pointed at LGOS, over Responses and over Chat Completions."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI

pytestmark = pytest.mark.anyio


@pytest.fixture
async def http_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as client:
        yield client


def _model(http_client: httpx.AsyncClient, name: str, responses: bool) -> ChatOpenAI:
    return ChatOpenAI(
        model=name,
        base_url="http://lgos/v1",
        api_key="test",  # type: ignore[arg-type]
        http_async_client=http_client,
        use_responses_api=responses,
        store=False if responses else None,
        max_retries=0,
    )


@pytest.mark.parametrize("responses", [True, False])
async def test_invoke_and_stream(
    http_client: httpx.AsyncClient, responses: bool
) -> None:
    model = _model(http_client, "echo", responses)
    answer = await model.ainvoke([HumanMessage("from langchain")])
    assert answer.text == "Echo: from langchain"
    chunks = [chunk async for chunk in model.astream([HumanMessage("streaming too")])]
    assert len([c for c in chunks if c.text]) > 1
    assert "".join(c.text for c in chunks) == "Echo: streaming too"


@pytest.mark.parametrize("responses", [True, False])
async def test_tool_round_trip(http_client: httpx.AsyncClient, responses: bool) -> None:
    model = _model(http_client, "tools", responses)

    def weather(city: str) -> str:
        """Return the weather in a city."""
        return "foggy"

    bound = model.bind_tools([weather])
    first = await bound.ainvoke([HumanMessage("Weather?")])
    assert isinstance(first, AIMessage)
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [
        ("weather", {"city": "Paris"})
    ]
    call_id = first.tool_calls[0]["id"]
    second = await bound.ainvoke(
        [HumanMessage("Weather?"), first, ToolMessage("foggy", tool_call_id=call_id)]
    )
    assert second.text == "The tool said foggy."


@pytest.mark.parametrize("responses", [True, False])
async def test_citations_reach_langchain(
    http_client: httpx.AsyncClient, responses: bool
) -> None:
    answer = await _model(http_client, "answers", responses).ainvoke(
        [HumanMessage("cite")]
    )
    assert answer.text.startswith("LangGraph pauses")
    if responses:
        blocks = [
            b for b in answer.content if isinstance(b, dict) and b.get("annotations")
        ]
        urls = [a["url"] for b in blocks for a in b["annotations"]]
        assert urls == [
            "https://langchain-ai.github.io/langgraph/",
            "https://platform.openai.com/docs",
        ]
