"""The `mcp` graph: the offline model chooses MCP tools, then answers; end to end.

The tool definitions are the demo MCP server's own (`list_tools`), offered
as they come, prefixed as the LiteLLM gateway names them, or renamed so only
their descriptions tell them apart. The end-to-end tests run the real MCP
server, discover its tools over MCP, hand them to LGOS through the OpenAI SDK
(Responses and Chat Completions), execute every returned call through MCP
and send the results back, as the demo UI does.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    ToolMessage,
)
from langgraph.graph import MessagesState
from mcp import ClientSession
from mcp.types import CallToolResult, TextContent
from openai import AsyncOpenAI

from langgraph_openai_serve import (
    ClientFunctionTool,
    GraphFeature,
    GraphRequest,
    NamedFunctionToolChoice,
)
from lgos_demo_api.graphs.functions import FunctionsContext, functions_context
from lgos_demo_api.graphs.mcp_tools import build_mcp_graph, mcp_graph_config
from lgos_demo_api.graphs.mcp_tools_arguments import tool_arguments
from lgos_demo_api.graphs.mcp_tools_offline import mcp_responder, read_tool_output
from lgos_demo_api.graphs.mcp_tools_plan import plan_tools
from lgos_demo_api.mcp_server import McpServerSettings, create_server
from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.settings import DemoApiSettings
from tests.demo.mcp_helpers import McpServer, mcp_server, mcp_session

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

QUESTION = "convert 5 miles to km and save it as a note"
CONVERSION = {
    "value": 5.0,
    "from_unit": "mi",
    "to_unit": "km",
    "result": 8.04672,
    "text": "5 mi = 8.047 km",
}
SAVED = {"note": {"id": 7, "title": "5 mi = 8.047 km"}, "text": "Saved note 7."}
PREFIX = "lgos_demo-"
OPAQUE = {
    "convert_units": "alpha",
    "save_note": "beta",
    "list_notes": "gamma",
    "search_corpus": "delta",
}


def _listing() -> list[ClientFunctionTool]:
    server = create_server(
        McpServerSettings(
            _env_file=None,  # type: ignore[call-arg]
            notes_path=Path("/nonexistent/notes.json"),  # never written here
        )
    )
    return [
        ClientFunctionTool(
            name=tool.name, description=tool.description, parameters=tool.inputSchema
        )
        for tool in asyncio.run(server.list_tools())
    ]


SERVER_TOOLS = _listing()


def offered(rename: dict[str, str] | None = None, prefix: str = "") -> tuple:
    """The server's tools as a client offers them, renamed or prefixed."""
    return tuple(
        ClientFunctionTool(
            name=prefix + (rename or {}).get(tool.name, tool.name),
            description=tool.description,
            parameters=tool.parameters,
        )
        for tool in SERVER_TOOLS
    )


def context(tools: tuple = (), **request: Any) -> FunctionsContext:
    return functions_context(GraphRequest(model="mcp", tools=tools, **request))


async def answer(messages: list[AnyMessage], ctx: FunctionsContext) -> AIMessage:
    graph = build_mcp_graph(OfflineChatModel(responder=mcp_responder))
    result = await graph.ainvoke(MessagesState(messages=messages), context=ctx)
    reply = result["messages"][-1]
    assert isinstance(reply, AIMessage)
    return reply


def with_result(
    messages: list[AnyMessage], reply: AIMessage, output: Any
) -> list[AnyMessage]:
    (call,) = reply.tool_calls
    text = output if isinstance(output, str) else json.dumps(output)
    return [*messages, reply, ToolMessage(text, tool_call_id=call["id"])]


# -- choosing tools -----------------------------------------------------------


@pytest.mark.parametrize(
    ("rename", "prefix"),
    [(None, ""), (None, PREFIX), (OPAQUE, ""), (OPAQUE, PREFIX)],
    ids=["as-served", "gateway-prefix", "opaque-names", "opaque-prefixed"],
)
def test_each_clause_gets_the_tool_its_words_fit(
    rename: dict[str, str] | None, prefix: str
) -> None:
    tools = [dict(t) for t in context(offered(rename, prefix)).tools]

    def name(original: str) -> str:
        return prefix + (rename or {}).get(original, original)

    plan = plan_tools(QUESTION, tools)
    assert [(s.name, s.clause) for s in plan] == [
        (name("convert_units"), "convert 5 miles to km"),
        (name("save_note"), "save it as a note"),
    ]
    assert [s.name for s in plan_tools("show my notes", tools)] == [name("list_notes")]
    search = plan_tools("search the docs for checkpointers and interrupts", tools)
    assert [s.name for s in search] == [name("search_corpus")]
    assert tool_arguments(search[0]) == {"query": "checkpointers interrupts"}
    assert plan_tools("Hello there, how are you?", tools) == []


@pytest.mark.parametrize("prefix", ["", PREFIX], ids=["as-served", "gateway-prefix"])
@pytest.mark.parametrize(
    ("question", "planned", "arguments"),
    [
        # "notes" alone never saves one: a change needs its verb asked for.
        ("What notes do I have?", "list_notes", {}),
        ("Which notes have I saved?", "list_notes", {}),
        ("show my notes about milk", "list_notes", {"query": "milk"}),
        ("list notes containing 'km'", "list_notes", {"query": "km"}),
        ("Add a note: buy milk", "save_note", {"text": "buy milk"}),
        ("remember that the meeting is at 3", "save_note", {"text": "meeting is at 3"}),
        # "note" as a verb saves.
        ("note: call mom", "save_note", {"text": "call mom"}),
        (
            "Note down that the meeting is at 3",
            "save_note",
            {"text": "meeting is at 3"},
        ),
    ],
)
def test_reading_notes_never_saves_one(
    question: str, planned: str, arguments: dict[str, Any], prefix: str
) -> None:
    tools = [dict(t) for t in context(offered(None, prefix)).tools]
    (step,) = plan_tools(question, tools)
    assert step.name == prefix + planned
    assert tool_arguments(step) == arguments


def test_note_it_saves_the_result_and_a_change_no_tool_makes_gets_none() -> None:
    tools = [dict(t) for t in context(offered()).tools]
    plan = plan_tools("turn 100 F into C and note it", tools)
    assert [step.name for step in plan] == ["convert_units", "save_note"]
    assert tool_arguments(plan[1], "100 °F = 37.778 °C") == {
        "text": "100 °F = 37.778 °C"
    }
    # No tool deletes notes: listing them would not do what was asked.
    assert plan_tools("delete my notes", tools) == []


def test_a_description_that_starts_with_a_change_needs_its_verb() -> None:
    # Names that say nothing: only "Save a note ..." tells beta apart.
    tools = [dict(t) for t in context(offered(OPAQUE, "")).tools]
    assert [s.name for s in plan_tools("list my notes", tools)] == ["gamma"]
    assert [s.name for s in plan_tools("save a note: hi", tools)] == ["beta"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many km is 26.2 miles?", {"value": 26.2, "from_unit": "mi", "to_unit": "km"}),
        ("what is 100 fahrenheit in celsius", {"value": 100, "from_unit": "F", "to_unit": "C"}),
        ("convert 3 ft to cm", {"value": 3, "from_unit": "ft", "to_unit": "cm"}),
        ("how many inches in a mile", {"value": 1, "from_unit": "mi", "to_unit": "in"}),
        ("save a note: buy milk", {"text": "buy milk"}),
        ('remember "call Ada" please', {"text": "call Ada"}),
        ("list my notes about milk", {"query": "milk"}),
        ("find 2 passages on plan review in the docs", {"query": "passages plan review", "limit": 2}),
    ],
)  # fmt: skip
def test_arguments_come_from_the_clause_and_the_schema(
    question: str, expected: dict[str, Any]
) -> None:
    tools = [dict(t) for t in context(offered(prefix=PREFIX)).tools]
    (step,) = plan_tools(question, tools)
    assert tool_arguments(step) == expected


# -- the offline graph ---------------------------------------------------------


async def test_two_rounds_convert_then_save_the_result_then_answer() -> None:
    ctx = context(offered(prefix=PREFIX))
    messages: list[AnyMessage] = [HumanMessage(QUESTION)]
    first = await answer(messages, ctx)
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [
        (f"{PREFIX}convert_units", {"value": 5, "from_unit": "mi", "to_unit": "km"})
    ]
    assert (await answer(messages, ctx)).tool_calls == first.tool_calls  # same IDs
    messages = with_result(messages, first, CONVERSION)
    second = await answer(messages, ctx)
    assert [(c["name"], c["args"]) for c in second.tool_calls] == [
        (f"{PREFIX}save_note", {"text": "5 mi = 8.047 km"})
    ]
    assert second.tool_calls[0]["id"] != first.tool_calls[0]["id"]
    messages = with_result(messages, second, SAVED)
    final = await answer(messages, ctx)
    assert final.tool_calls == []
    assert "5 mi = 8.047 km" in final.text
    assert "Saved note 7." in final.text
    assert f"`{PREFIX}convert_units(" in final.text
    assert f"`{PREFIX}save_note(" in final.text


@pytest.mark.parametrize(
    "output",
    [
        {"error": "Error executing tool convert_units: Cannot convert mi to kg."},
        "Error executing tool convert_units: Cannot convert mi to kg.",
        {"isError": True, "content": [{"type": "text", "text": "Cannot convert mi to kg."}]},
    ],
    ids=["ui-error-json", "mcp-error-text", "call-tool-result"],
)  # fmt: skip
async def test_an_error_result_ends_the_plan(output: Any) -> None:
    ctx = context(offered())
    messages: list[AnyMessage] = [HumanMessage("convert 5 miles to kg and save it")]
    first = await answer(messages, ctx)
    assert first.tool_calls[0]["name"] == "convert_units"
    final = await answer(with_result(messages, first, output), ctx)
    assert final.tool_calls == []
    assert final.text.startswith(
        "The `convert_units` tool failed: Cannot convert mi to kg. I stopped there"
    )


async def test_it_in_a_new_turn_is_the_last_result_of_an_earlier_one() -> None:
    ctx = context(offered())
    messages: list[AnyMessage] = [HumanMessage("convert 5 miles to km")]
    first = await answer(messages, ctx)
    messages = with_result(messages, first, CONVERSION)
    messages = [*messages, await answer(messages, ctx), HumanMessage("save it")]
    second = await answer(messages, ctx)
    assert [(c["name"], c["args"]) for c in second.tool_calls] == [
        ("save_note", {"text": "5 mi = 8.047 km"})
    ]


async def test_a_call_missing_a_required_argument_is_not_made() -> None:
    reply = await answer([HumanMessage("convert 5 miles")], context(offered()))
    assert reply.tool_calls == []
    assert reply.text.startswith(
        "To call `convert_units` I need `to_unit` (The unit to convert to), "
        "and your message does not say."
    )
    # Nothing to point "it" at: no empty note is saved either.
    reply = await answer([HumanMessage("save it as a note")], context(offered()))
    assert reply.tool_calls == []
    assert reply.text.startswith("To call `save_note` I need `text`")


async def test_without_tools_it_says_none_are_attached() -> None:
    reply = await answer([HumanMessage(QUESTION)], context())
    assert reply.tool_calls == []
    assert "Your client attached no MCP tools" in reply.text
    assert "just demo --mcp" in reply.text


async def test_an_unrelated_question_lists_what_the_tools_can_do() -> None:
    reply = await answer([HumanMessage("Tell me a joke")], context(offered()))
    assert reply.tool_calls == []
    assert "None of the attached MCP tools fits" in reply.text
    assert "- `convert_units`: Convert a value between units" in reply.text
    assert f"Try: {QUESTION}." in reply.text


async def test_tool_choice_none_never_calls() -> None:
    reply = await answer(
        [HumanMessage(QUESTION)], context(offered(), tool_choice="none")
    )
    assert reply.tool_calls == []
    assert "may not call any" in reply.text


async def test_named_and_required_tool_choices() -> None:
    named = await answer(
        [HumanMessage("Tell me a joke")],
        context(offered(), tool_choice=NamedFunctionToolChoice("list_notes")),
    )
    assert [c["name"] for c in named.tool_calls] == ["list_notes"]
    required = await answer(
        [HumanMessage("anything saved?")], context(offered(), tool_choice="required")
    )
    assert len(required.tool_calls) == 1


def test_tool_outputs_are_read_as_the_clients_send_them() -> None:
    assert read_tool_output(json.dumps(CONVERSION)) == ("5 mi = 8.047 km", None)
    wrapped = {"structuredContent": CONVERSION, "isError": False, "content": []}
    assert read_tool_output(json.dumps(wrapped)) == ("5 mi = 8.047 km", None)
    assert read_tool_output("plain words") == ("plain words", None)
    assert read_tool_output('{"error": "boom"}') == ("boom", "boom")


def test_the_graph_declares_mcp_tools_and_no_client_tools(
    offline_settings: DemoApiSettings,
) -> None:
    config = mcp_graph_config(offline_settings)
    assert config.features == frozenset({GraphFeature.MCP_TOOLS})
    assert config.client_tools == frozenset()
    assert "just demo --mcp" in config.description
    assert QUESTION in config.description


# -- end to end: the real MCP server, LGOS through the OpenAI SDK ------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    with mcp_server(tmp_path_factory.mktemp("mcp-graph")) as running:
        yield running


def mcp_output(result: CallToolResult) -> str:
    """The function output a client sends for an MCP result (as the demo UI does)."""
    if result.isError:
        text = "".join(c.text for c in result.content if isinstance(c, TextContent))
        return json.dumps({"error": text})
    return json.dumps(result.structuredContent)


async def notes(session: ClientSession) -> list[str]:
    listed = await session.call_tool("list_notes", {})
    assert listed.structuredContent is not None
    return [note["text"] for note in listed.structuredContent["notes"]]


async def test_responses_round_trip_through_the_mcp_server(
    server: McpServer, demo_client: AsyncOpenAI
) -> None:
    async with mcp_session(server.url) as session:
        listed = (await session.list_tools()).tools
        tools: list[Any] = [
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.inputSchema,
                "strict": False,
            }
            for tool in listed
        ]
        before = await notes(session)
        ledger: list[Any] = [{"role": "user", "content": QUESTION}]
        called = []
        response = None
        for _ in range(4):
            response = await demo_client.responses.create(
                model="mcp", input=ledger, tools=tools
            )
            output = response.model_dump(mode="json", exclude_unset=True)["output"]
            calls = [item for item in output if item["type"] == "function_call"]
            if not calls:
                break
            ledger += output
            for call in calls:
                called.append(call["name"])
                result = await session.call_tool(
                    call["name"], json.loads(call["arguments"])
                )
                ledger.append(
                    {
                        "type": "function_call_output",
                        "call_id": call["call_id"],
                        "output": mcp_output(result),
                    }
                )
        assert called == ["convert_units", "save_note"]
        assert response is not None
        assert "5 mi = 8.047 km" in response.output_text
        assert "Saved note" in response.output_text
        assert await notes(session) == ["5 mi = 8.047 km", *before]


async def test_chat_completions_round_trip_through_the_mcp_server(
    server: McpServer, demo_client: AsyncOpenAI
) -> None:
    async with mcp_session(server.url) as session:
        listed = (await session.list_tools()).tools
        tools: list[Any] = [
            {
                "type": "function",
                "function": {
                    "name": PREFIX + tool.name,  # as the LiteLLM gateway names them
                    "description": tool.description,
                    "parameters": tool.inputSchema,
                },
            }
            for tool in listed
        ]
        before = await notes(session)
        messages: list[Any] = [{"role": "user", "content": QUESTION}]
        called = []
        completion = None
        for _ in range(4):
            completion = await demo_client.chat.completions.create(
                model="mcp", messages=messages, tools=tools
            )
            message = completion.choices[0].message
            if not message.tool_calls:
                break
            assert completion.choices[0].finish_reason == "tool_calls"
            messages.append(message.model_dump(mode="json", exclude_unset=True))
            for call in message.tool_calls:
                assert call.type == "function"
                called.append(call.function.name)
                result = await session.call_tool(
                    call.function.name.removeprefix(PREFIX),
                    json.loads(call.function.arguments),
                )
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "content": mcp_output(result),
                    }
                )
        assert called == [f"{PREFIX}convert_units", f"{PREFIX}save_note"]
        assert completion is not None
        text = completion.choices[0].message.content or ""
        assert "5 mi = 8.047 km" in text
        assert "Saved note" in text
        assert await notes(session) == ["5 mi = 8.047 km", *before]


async def test_a_failing_mcp_tool_ends_the_turn_with_its_reason(
    server: McpServer, demo_client: AsyncOpenAI
) -> None:
    async with mcp_session(server.url) as session:
        listed = (await session.list_tools()).tools
        tools: list[Any] = [
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.inputSchema,
            }
            for tool in listed
        ]
        question = "convert 5 miles to kg and save it as a note"
        first = await demo_client.responses.create(
            model="mcp", input=question, tools=tools
        )
        output = first.model_dump(mode="json", exclude_unset=True)["output"]
        (call,) = [item for item in output if item["type"] == "function_call"]
        result = await session.call_tool(call["name"], json.loads(call["arguments"]))
        assert result.isError is True
        final = await demo_client.responses.create(
            model="mcp",
            input=[
                {"role": "user", "content": question},
                *output,
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": mcp_output(result),
                },
            ],
            tools=tools,
        )
    assert [item.type for item in final.output] == ["message"]
    assert final.output_text.startswith(
        "The `convert_units` tool failed: Cannot convert mi (length) to kg (mass)"
    )
