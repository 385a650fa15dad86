"""The `functions` graph: the client's functions, tool_choice and parallel calls."""

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langgraph_openai_serve import (
    ClientFunctionTool,
    GraphRequest,
    NamedFunctionToolChoice,
)
from lgos_client.functions import LOCAL_FUNCTIONS
from lgos_demo_api.graphs.functions import (
    CLIENT_FUNCTIONS,
    FunctionsContext,
    build_functions_graph,
    functions_context,
)
from lgos_demo_api.graphs.functions_offline import (
    function_arguments,
    functions_responder,
    matching_functions,
)
from lgos_demo_api.offline import OfflineChatModel, RecordingResponder


def _offered(name: str) -> ClientFunctionTool:
    """A function as both chat UIs offer it (the client core's definition)."""
    function = LOCAL_FUNCTIONS[name]
    return ClientFunctionTool(
        name=function.name,
        description=function.description,
        parameters=dict(function.parameters),
        strict=function.strict,
    )


TIME = _offered("get_current_time")
DICE = _offered("roll_dice")
MOST_DICE = DICE.parameters["properties"]["count"]["maximum"]
BOTH = "What time is it in Tokyo, and roll two dice?"


def context(**request: Any) -> FunctionsContext:
    request.setdefault("tools", (TIME, DICE))
    return functions_context(GraphRequest(model="functions", **request))


async def ask(
    question: str, ctx: FunctionsContext, recorder: RecordingResponder | None = None
) -> AIMessage:
    model = OfflineChatModel(responder=recorder or functions_responder)
    result = await build_functions_graph(model).ainvoke(
        {"messages": [HumanMessage(question)]}, context=ctx
    )
    answer = result["messages"][-1]
    assert isinstance(answer, AIMessage)
    return answer


def test_client_functions_are_the_ones_the_ui_offers() -> None:
    assert frozenset(LOCAL_FUNCTIONS) == CLIENT_FUNCTIONS


def test_context_carries_tools_choice_and_parallel_flag() -> None:
    ctx = context(
        tool_choice=NamedFunctionToolChoice("roll_dice"), parallel_tool_calls=False
    )
    assert ctx.tool_choice == "roll_dice"
    assert ctx.parallel_tool_calls is False
    assert [t["function"]["name"] for t in ctx.tools] == [
        "get_current_time",
        "roll_dice",
    ]
    assert ctx.tools[0]["function"]["strict"] is False
    assert context(tool_choice="none").tool_choice == "none"
    bare = functions_context(
        GraphRequest(model="f", tools=(ClientFunctionTool(name="ping"),))
    )
    assert bare.tools[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {},
    }
    assert "strict" not in bare.tools[0]["function"]  # no strict given: none sent
    assert bare.tool_choice is None


def test_matching_uses_the_words_of_function_names() -> None:
    tools = list(context().tools)
    assert [t["function"]["name"] for t in matching_functions(BOTH, tools)] == [
        "get_current_time",
        "roll_dice",
    ]
    assert matching_functions("What is the current weather?", tools) == []


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Roll two dice", {"sides": 6, "count": 2}),
        ("roll 3 dice with 20 sides", {"sides": 20, "count": 3}),
        ("roll four 8-sided dice", {"sides": 8, "count": 4}),
        ("Roll 50 dice", {"sides": 6, "count": MOST_DICE}),
        ("roll a die", {"sides": 6, "count": 1}),
    ],
)
def test_number_arguments_come_from_the_question(
    question: str, expected: dict[str, int]
) -> None:
    assert function_arguments(DICE.parameters, question) == expected


@pytest.mark.parametrize(
    ("question", "zone"),
    [
        ("What time is it in Tokyo?", "Asia/Tokyo"),
        ("time in America/Sao_Paulo please", "America/Sao_Paulo"),
        ("What time is it?", "UTC"),
    ],
)
def test_time_zone_argument(question: str, zone: str) -> None:
    assert function_arguments(TIME.parameters, question) == {"timezone": zone}


@pytest.mark.anyio
async def test_auto_calls_every_matching_function() -> None:
    answer = await ask(BOTH, context())
    assert [(c["name"], c["args"]) for c in answer.tool_calls] == [
        ("get_current_time", {"timezone": "Asia/Tokyo"}),
        ("roll_dice", {"sides": 6, "count": 2}),
    ]
    assert len({c["id"] for c in answer.tool_calls}) == 2


@pytest.mark.anyio
async def test_parallel_calls_off_keeps_one_call() -> None:
    answer = await ask(BOTH, context(parallel_tool_calls=False))
    assert [c["name"] for c in answer.tool_calls] == ["get_current_time"]


@pytest.mark.anyio
async def test_tool_choice_none_never_calls() -> None:
    answer = await ask(BOTH, context(tool_choice="none"))
    assert answer.tool_calls == []
    assert "may not call any" in answer.text


@pytest.mark.anyio
async def test_tool_choice_none_is_enforced_even_if_the_model_calls() -> None:
    def rogue(messages, tools, tool_choice):
        call = {"name": "roll_dice", "args": {}, "id": "call_rogue"}
        return AIMessage(content="Rolling anyway.", tool_calls=[call])

    answer = await ask(BOTH, context(tool_choice="none"), RecordingResponder(rogue))
    assert answer.tool_calls == []
    assert answer.text == "Rolling anyway."


@pytest.mark.anyio
async def test_required_calls_a_function_even_without_a_match() -> None:
    auto = await ask("Hello there", context())
    assert auto.tool_calls == []
    assert "None of your functions" in auto.text

    required = await ask("Hello there", context(tool_choice="required"))
    assert [c["name"] for c in required.tool_calls] == ["get_current_time"]


@pytest.mark.anyio
async def test_named_choice_calls_that_function() -> None:
    answer = await ask(
        "What time is it?", context(tool_choice=NamedFunctionToolChoice("roll_dice"))
    )
    assert [c["name"] for c in answer.tool_calls] == ["roll_dice"]


@pytest.mark.anyio
async def test_the_model_gets_the_tools_and_the_choice() -> None:
    recorder = RecordingResponder(functions_responder)
    await ask(BOTH, context(tool_choice="required"), recorder)
    (call,) = recorder.calls
    assert [t["function"]["name"] for t in call.tools] == [
        "get_current_time",
        "roll_dice",
    ]
    assert call.tool_choice == "required"
    assert call.messages[0].type == "system"


@pytest.mark.anyio
async def test_without_tools_the_model_answers_in_text() -> None:
    recorder = RecordingResponder(functions_responder)
    answer = await ask(BOTH, context(tools=()), recorder)
    assert answer.tool_calls == []
    assert recorder.calls[0].tools == []
    assert "no functions" in answer.text


@pytest.mark.anyio
async def test_function_results_produce_the_final_answer() -> None:
    graph = build_functions_graph(OfflineChatModel(responder=functions_responder))
    calls = [
        {"name": "get_current_time", "args": {"timezone": "Asia/Tokyo"}, "id": "c1"},
        {"name": "roll_dice", "args": {"sides": 6, "count": 2}, "id": "c2"},
    ]
    result = await graph.ainvoke(
        {
            "messages": [
                HumanMessage(BOTH),
                AIMessage(content="", tool_calls=calls),
                ToolMessage(
                    '{"time": "14:05", "timezone": "Asia/Tokyo"}', tool_call_id="c1"
                ),
                ToolMessage('{"rolls": [3, 5], "total": 8}', tool_call_id="c2"),
            ]
        },
        context=context(),
    )
    answer = result["messages"][-1]
    assert answer.tool_calls == []
    assert (
        '`get_current_time(timezone="Asia/Tokyo")` returned time: "14:05"'
        in answer.text
    )
    assert (
        "`roll_dice(sides=6, count=2)` returned rolls: [3, 5], total: 8" in answer.text
    )
