"""Adapters, runtime context versus config, and what GraphRequest carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.config import get_config
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from openai import AsyncOpenAI

from langgraph_openai_serve import (
    GraphConfig,
    GraphRegistry,
    GraphRequest,
    LanggraphOpenaiServe,
    NamedFunctionToolChoice,
)
from tests.lgos.graphs import Greeting

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class AppContext:
    """Server-owned values plus the public settings, as one typed context."""

    settings: Greeting
    tenant: str
    user: str | None


class Seen:
    def __init__(self) -> None:
        self.requests: list[GraphRequest] = []
        self.contexts: list[AppContext] = []
        self.configurable: list[dict[str, Any]] = []


def build_app(seen: Seen) -> FastAPI:
    class State(MessagesState):
        tool_names: list[str]

    def node(state: State, runtime: Runtime[AppContext]) -> dict[str, Any]:
        seen.contexts.append(runtime.context)
        seen.configurable.append(dict(get_config().get("configurable", {})))
        names = ",".join(state["tool_names"]) or "none"
        return {"messages": [AIMessage(f"{runtime.context.settings.name}|{names}")]}

    builder = StateGraph(State, context_schema=AppContext)
    builder.add_node("node", node)
    builder.add_edge(START, "node")

    def to_input(request: GraphRequest, messages: list[BaseMessage]) -> dict[str, Any]:
        seen.requests.append(request)
        return {"messages": messages, "tool_names": [t.name for t in request.tools]}

    async def make_context(
        request: GraphRequest, settings: Greeting | None
    ) -> AppContext:
        assert settings is not None
        return AppContext(settings=settings, tenant="acme", user=request.user)

    config = GraphConfig(
        graph=builder.compile(),
        description="Adapters.",
        client_settings=Greeting,
        request_to_input=to_input,
        context_factory=make_context,
    )
    app = FastAPI()
    LanggraphOpenaiServe(
        GraphRegistry(graphs={"adapters": config}), app
    ).bind_openai_api()
    return app


@pytest.fixture
async def setup() -> Any:
    seen = Seen()
    transport = httpx.ASGITransport(app=build_app(seen))
    async with httpx.AsyncClient(transport=transport) as http_client:
        yield (
            seen,
            AsyncOpenAI(
                base_url="http://lgos/v1", api_key="x", http_client=http_client
            ),
        )


async def test_responses_request_reaches_adapters(setup: Any) -> None:
    seen, client = setup
    tools = [{"type": "function", "name": "lookup", "parameters": {"type": "object"}}]
    response = await client.responses.create(
        model="adapters",
        input="hi",
        tools=tools,
        tool_choice={"type": "function", "name": "lookup"},
        parallel_tool_calls=False,
        safety_identifier="end-user-7",
        metadata={
            "lgos_settings": '{"name":"Ada"}',
            "conversation_id": "c-1",
            "team": "x",
        },
    )
    assert response.output_text == "Ada|lookup"
    request = seen.requests[-1]
    assert request.model == "adapters"
    assert request.user == "end-user-7"
    assert request.tool_choice == NamedFunctionToolChoice("lookup")
    assert request.parallel_tool_calls is False
    assert request.tools[0].parameters == {"type": "object"}
    assert dict(request.metadata) == {
        "lgos_settings": '{"name":"Ada"}',
        "conversation_id": "c-1",
        "team": "x",
    }
    context = seen.contexts[-1]
    assert context == AppContext(
        settings=Greeting(name="Ada"), tenant="acme", user="end-user-7"
    )
    # Request values never leak into the configurable section of RunnableConfig.
    assert not any(
        key in seen.configurable[-1] for key in ("name", "team", "lgos_settings")
    )


async def test_chat_request_reaches_adapters(setup: Any) -> None:
    seen, client = setup
    completion = await client.chat.completions.create(
        model="adapters",
        messages=[{"role": "user", "content": "hi"}],
        tools=[{"type": "function", "function": {"name": "lookup", "parameters": {}}}],
        tool_choice="required",
        user="legacy-user",
    )
    assert completion.choices[0].message.content == "world|lookup"
    request = seen.requests[-1]
    assert (request.user, request.tool_choice) == ("legacy-user", "required")


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("items", "message"),
    [
        (
            [{"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}],
            "No output",
        ),
        (
            [
                {
                    "type": "function_call",
                    "call_id": "a",
                    "name": "f",
                    "arguments": "{}",
                },
                {"type": "function_call_output", "call_id": "a", "output": "1"},
                {"type": "function_call_output", "call_id": "a", "output": "2"},
            ],
            "more than one output",
        ),
        (
            [{"type": "function_call_output", "call_id": "zz", "output": "1"}],
            "answers no earlier",
        ),
        (
            # An interrupt's answer sent without the paused Response: the
            # message says what to send.
            [{"type": "function_call_output", "call_id": "call_lg_x", "output": "1"}],
            "answers no earlier call. To answer a paused run's question, send "
            "previous_response_id",
        ),
        (
            [
                {
                    "type": "function_call",
                    "call_id": "a",
                    "name": "f",
                    "arguments": "{}",
                },
                {
                    "type": "function_call",
                    "call_id": "a",
                    "name": "g",
                    "arguments": "{}",
                },
            ],
            "more than one call",
        ),
        (
            [
                {
                    "type": "function_call",
                    "call_id": "a",
                    "name": "f",
                    "arguments": "[1]",
                }
            ],
            "JSON object",
        ),
    ],
)
async def test_broken_continuations_fail_before_the_graph(
    setup: Any, stream: bool, items: list[dict[str, Any]], message: str
) -> None:
    seen, client = setup
    import openai

    with pytest.raises(openai.BadRequestError, match=message):
        await client.responses.create(
            model="adapters",
            input=[{"role": "user", "content": "x"}, *items],
            stream=stream,
        )
    assert seen.contexts == []


async def test_chat_tool_result_for_an_interrupt_call_has_no_responses_hint(
    setup: Any,
) -> None:
    """Chat Completions has no previous_response_id: an orphan tool result
    with an interrupt's call ID is refused without the Responses hint."""
    seen, client = setup
    import openai

    with pytest.raises(openai.BadRequestError) as caught:
        await client.chat.completions.create(
            model="adapters",
            messages=[
                {"role": "user", "content": "x"},
                {"role": "tool", "tool_call_id": "call_lg_x", "content": "1"},
            ],
        )
    message = caught.value.body["message"]  # type: ignore[index]
    assert message == "The output for 'call_lg_x' answers no earlier call."
    assert seen.contexts == []
