"""A whole turn: LGOS serves a graph with ``mcp_tools``, the UI runs its calls on MCP.

LGOS runs in-process (``httpx.ASGITransport``) and serves a small graph that
asks for the offered MCP tools by name, then answers from their outputs; the
MCP server is a real FastMCP server over streamable HTTP
(:mod:`tests.ui.mcp_server`). The UI's :class:`ChatSession` and
:class:`Conversation` do what the Chainlit callbacks do: read the model,
discover the tools, ask, run each call through MCP and send the outputs back.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from openai import AsyncOpenAI

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    GraphRequest,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from lgos_chainlit.mcp_tools import McpServer
from lgos_chainlit.mcp_toolset import McpToolset
from lgos_chainlit.model_catalog import load_session
from lgos_chainlit.session import ChatSession
from lgos_chainlit.turn_listener import FunctionRunner, TurnListener
from lgos_client.functions import FunctionCall
from tests.ui.mcp_server import McpSite, serving_mcp

pytestmark = pytest.mark.anyio


@dataclass(frozen=True, slots=True)
class Offered:
    names: tuple[str, ...] = ()


def offered(request: GraphRequest, settings: Any = None) -> Offered:
    return Offered(tuple(tool.name for tool in request.tools))


def tool_user_graph() -> Any:
    """Call the offered tools the question names; then answer from their outputs.

    "convert and save" calls ``convert_units`` (5 mi to km) and, in the same
    answer, ``notes_save``; "explode" calls ``explode``. Tool outputs are
    quoted back in the answer, one line each.
    """

    async def agent(state: MessagesState, runtime: Runtime[Offered]) -> dict[str, Any]:
        messages = state["messages"]
        outputs = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            outputs.insert(0, f"{message.name or 'tool'} said {message.text}")
        if outputs:
            return {"messages": [AIMessage("\n".join(outputs))]}
        names = runtime.context.names if runtime.context else ()
        question = messages[-1].text
        wanted: list[tuple[str, dict[str, Any]]] = []
        if "convert" in question and "convert_units" in names:
            wanted.append(
                ("convert_units", {"value": 5, "from_unit": "mi", "to_unit": "km"})
            )
        if "save" in question and "notes_save" in names:
            wanted.append(("notes_save", {"text": "5 mi is 8.047 km"}))
        if "explode" in question and "explode" in names:
            wanted.append(("explode", {"reason": "asked to"}))
        if not wanted:
            return {"messages": [AIMessage(f"No tools for that; offered: {names}")]}
        calls = [
            {"name": name, "args": args, "id": f"call_{len(messages)}_{index}"}
            for index, (name, args) in enumerate(wanted)
        ]
        return {"messages": [AIMessage("", tool_calls=calls)]}

    builder = StateGraph(MessagesState, context_schema=Offered)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    return builder.compile()


@pytest.fixture
async def lgos() -> AsyncIterator[AsyncOpenAI]:
    registry = GraphRegistry(
        graphs={
            "mcp": GraphConfig(
                graph=tool_user_graph(),
                description="Uses the client's MCP tools.",
                features=frozenset({GraphFeature.MCP_TOOLS}),
                context_factory=offered,
            ),
            "plain": GraphConfig(
                graph=tool_user_graph(),
                description="Offered no MCP tools.",
                context_factory=offered,
            ),
        },
        run_coordinator=InMemoryRunCoordinator(),
    )
    app = FastAPI()
    LanggraphOpenaiServe(registry, app).bind_openai_api()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http:
        yield AsyncOpenAI(
            base_url="http://lgos/v1",
            api_key="x",
            http_client=http,  # pyright: ignore[reportArgumentType]
            max_retries=0,
        )


@pytest.fixture
async def site() -> AsyncIterator[McpSite]:
    async with serving_mcp() as running:
        yield running


class Steps(TurnListener):
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, bool]] = []
        self.not_run: list[str] = []

    async def run_function(
        self, call: FunctionCall, run: FunctionRunner
    ) -> tuple[str, bool]:
        output, ok = await run()
        self.calls.append((call.name, output, ok))
        return output, ok

    async def on_calls_not_run(self, calls: Any, reason: str) -> None:
        self.not_run.append(reason)


async def mcp_session(client: AsyncOpenAI, model: str, url: str) -> ChatSession:
    """What the UI does when a chat opens: read the model, find the tools."""
    session = await load_session(client, model)
    if session.offers_mcp_tools:
        session.mcp = McpToolset(server=McpServer(url=url))
        await session.mcp.discover(session.reserved_function_names)
    return session


async def test_a_turn_calls_two_mcp_tools_and_answers_from_them(
    lgos: AsyncOpenAI, site: McpSite
) -> None:
    session = await mcp_session(lgos, "mcp", site.url)
    assert session.offers_mcp_tools
    steps = Steps()

    result = await session.conversation.ask(
        lgos,
        "convert 5 miles to km and save it as a note",
        listener=steps,
        functions=session.functions,
    )

    assert result.status == "completed", result.error
    assert [(name, ok) for name, _, ok in steps.calls] == [
        ("convert_units", True),
        ("notes_save", True),
    ]
    assert steps.calls[0][1] == '{"value":8.047,"unit":"km"}'
    assert json.loads(steps.calls[1][1]) == {"saved": "5 mi is 8.047 km", "count": 1}
    assert '{"value":8.047,"unit":"km"}' in result.answer
    assert '"saved":"5 mi is 8.047 km"' in result.answer
    kinds = [item.get("type", "message") for item in session.conversation.items]
    assert kinds.count("function_call") == kinds.count("function_call_output") == 2

    # The replayed ledger is accepted on the next turn, and the notes persist.
    again = await session.conversation.ask(
        lgos, "save it again", listener=steps, functions=session.functions
    )
    assert again.status == "completed", again.error
    assert json.loads(steps.calls[2][1])["count"] == 2


async def test_a_tool_error_goes_back_to_the_graph_as_its_output(
    lgos: AsyncOpenAI, site: McpSite
) -> None:
    session = await mcp_session(lgos, "mcp", site.url)
    steps = Steps()

    result = await session.conversation.ask(
        lgos, "explode please", listener=steps, functions=session.functions
    )

    assert result.status == "completed", result.error
    [(name, output, ok)] = steps.calls
    assert (name, ok) == ("explode", False)
    assert json.loads(output) == {
        "error": "Error executing tool explode: exploded: asked to"
    }
    assert "exploded: asked to" in result.answer
    assert not steps.not_run


async def test_a_server_gone_mid_chat_gives_the_graph_an_error_output(
    lgos: AsyncOpenAI, site: McpSite
) -> None:
    session = await mcp_session(lgos, "mcp", site.url)
    await site.stop()
    steps = Steps()

    result = await session.conversation.ask(
        lgos, "convert 5 miles", listener=steps, functions=session.functions
    )

    assert result.status == "completed", result.error
    [(name, output, ok)] = steps.calls
    assert (name, ok) == ("convert_units", False)
    assert "cannot connect" in json.loads(output)["error"]
    assert "cannot connect" in result.answer


async def test_a_model_without_the_feature_gets_no_mcp_tools(
    lgos: AsyncOpenAI, site: McpSite
) -> None:
    session = await mcp_session(lgos, "plain", site.url)
    assert not session.offers_mcp_tools
    steps = Steps()
    result = await session.conversation.ask(
        lgos, "convert 5 miles", listener=steps, functions=session.functions
    )
    assert result.answer == "No tools for that; offered: ()"
    assert steps.calls == []
    assert site.headers == []
