"""``langgraph_openai_serve.testing``: the scripted offline chat model and its responders."""

import json
import time
from typing import Any, Literal, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import tool
from langchain_openai import custom_tool
from langgraph.graph import START, MessagesState, StateGraph
from pydantic import BaseModel, Field

import langgraph_openai_serve.testing as testing
from langgraph_openai_serve import GraphConfig, GraphRegistry, GraphRequest
from langgraph_openai_serve.graph.runner import TextChunk, run_langgraph_stream
from langgraph_openai_serve.testing import (
    DEFAULT_INTRO,
    EchoResponder,
    OfflineChatModel,
    RecordedCall,
    RecordingResponder,
    call_options,
    default_responder,
    default_structured_responder,
    split_words,
)
from tests.architecture.imports import build_graph

CONVERSATION = [
    SystemMessage("Answer like a pirate.\nNever mention treasure."),
    HumanMessage("What is a graph?"),
    AIMessage("A graph has nodes and edges."),
    HumanMessage("And a   state graph?"),
]


@tool
def get_weather(city: str, days: int) -> str:
    """Return the weather forecast for a city."""
    return "sunny"


@tool
def search(query: str) -> str:
    """Search the web."""
    return "results"


def _concat(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


# --- the module -------------------------------------------------------------


def test_public_names() -> None:
    assert set(testing.__all__) == {
        "DEFAULT_INTRO",
        "EchoResponder",
        "OfflineChatModel",
        "RecordedCall",
        "RecordingResponder",
        "Responder",
        "StructuredResponder",
        "call_options",
        "default_responder",
        "default_structured_responder",
        "parse_sse",
        "run_graph",
        "split_words",
        "stream_graph",
    }
    assert all(hasattr(testing, name) for name in testing.__all__)
    assert issubclass(OfflineChatModel, BaseChatModel)


def test_the_testing_model_imports_no_other_lgos_module() -> None:
    """The model and its responders stand alone; the run helpers use the runner."""
    graph = build_graph()
    own = {m: deps for m, deps in graph.items() if m.startswith(testing.__name__)}
    assert set(own) == {
        "langgraph_openai_serve.testing",
        "langgraph_openai_serve.testing.model",
        "langgraph_openai_serve.testing.responders",
        "langgraph_openai_serve.testing.sse",
        "langgraph_openai_serve.testing.runs",
    }
    for module in ("model", "responders"):
        deps = own[f"{testing.__name__}.{module}"]
        assert all(dep.startswith(testing.__name__) for dep in deps), deps
    graph_layer = "langgraph_openai_serve.graph."
    runs = own[f"{testing.__name__}.runs"]
    assert all(dep.startswith(graph_layer) for dep in runs), runs


# --- default answer -------------------------------------------------------


def test_default_answer_reflects_instructions_user_message_and_count() -> None:
    answer = OfflineChatModel().invoke(CONVERSATION)

    assert DEFAULT_INTRO == "This is the offline model."
    assert answer.content == (
        'This is the offline model. You said: "And a state graph?" '
        'Following instructions: "Answer like a pirate." '
        "I saw 3 conversation messages."
    )


def test_default_answer_without_system_or_user_messages() -> None:
    assert default_responder([HumanMessage("hi")], [], None) == (
        'This is the offline model. You said: "hi" '
        "Following instructions: none. I saw 1 conversation message."
    )
    assert default_responder([SystemMessage("Be kind.")], [], None) == (
        "This is the offline model. You said nothing. "
        'Following instructions: "Be kind." I saw 0 conversation messages.'
    )


def test_default_answer_lists_every_system_message_and_shortens_long_text() -> None:
    long_question = "word " * 100
    answer = default_responder(
        [
            SystemMessage("First."),
            SystemMessage("\n  Second rule.\nmore"),
            HumanMessage(long_question),
        ],
        [],
        None,
    )
    assert isinstance(answer, str)
    assert 'Following instructions: "First.", "Second rule." I saw 1 ' in answer
    quoted = answer.split('You said: "')[1].split('"')[0]
    assert len(quoted) == 200
    assert quoted.endswith("...")


def test_echo_responder_takes_its_own_intro() -> None:
    echo = EchoResponder(intro="Scripted.")
    assert echo([HumanMessage("hi")], [], None) == (
        'Scripted. You said: "hi" Following instructions: none. '
        "I saw 1 conversation message."
    )
    model = OfflineChatModel(responder=echo)
    assert model.invoke("x").text.startswith('Scripted. You said: "x"')


# --- streaming ------------------------------------------------------------


@pytest.mark.anyio
async def test_astream_yields_words_that_concatenate_to_the_answer() -> None:
    model = OfflineChatModel()
    answer = await model.ainvoke(CONVERSATION)
    chunks = [chunk async for chunk in model.astream(CONVERSATION)]

    texts = [chunk.text for chunk in chunks if chunk.text]
    assert len(texts) == len(answer.text.split()) > 10
    assert all(len(text.split()) == 1 for text in texts)
    assert "".join(texts) == answer.text
    assert _concat(chunks).text == answer.text


def test_sync_stream_matches_invoke() -> None:
    model = OfflineChatModel(responder=lambda *_: "  leading and   inner spaces\n")
    chunks = list(model.stream("x"))
    assert [c.text for c in chunks if c.text] == [
        "  ",
        "leading ",
        "and   ",
        "inner ",
        "spaces\n",
    ]
    assert _concat(chunks).text == model.invoke("x").text


@given(st.text())
def test_split_words_keeps_every_character(text: str) -> None:
    chunks = split_words(text)
    assert "".join(chunks) == text
    assert all(len(chunk.split()) <= 1 for chunk in chunks)


@pytest.mark.anyio
async def test_chunk_delay_sleeps_between_async_chunks() -> None:
    model = OfflineChatModel(responder=lambda *_: "a b c d e", chunk_delay=0.05)
    start = time.perf_counter()
    chunks = [chunk async for chunk in model.astream("x")]
    elapsed = time.perf_counter() - start
    assert len(chunks) >= 6  # five words and the final metadata chunk
    assert elapsed >= 0.05 * 5 * 0.9


def test_chunk_delay_is_never_negative() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        OfflineChatModel(chunk_delay=-1)


@pytest.mark.anyio
async def test_a_graph_streams_the_words_through_the_runner() -> None:
    model = OfflineChatModel(responder=lambda *_: "one two three")

    async def answer(state: MessagesState) -> dict:
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState).add_node(answer).add_edge(START, "answer")
    registry = GraphRegistry(
        graphs={"echo": GraphConfig(graph=graph.compile(), description="Echo.")}
    )
    events = [
        event
        async for event in run_langgraph_stream(
            GraphRequest(model="echo"), [HumanMessage("hi")], registry
        )
    ]
    assert [e.text for e in events if isinstance(e, TextChunk)] == [
        "one ",
        "two ",
        "three",
    ]
    assert isinstance(events[-1], AIMessage)
    assert events[-1].text == "one two three"


# --- usage and metadata ---------------------------------------------------


@pytest.mark.anyio
async def test_usage_counts_words_in_and_out() -> None:
    model = OfflineChatModel(responder=lambda *_: "three word answer")
    answer = await model.ainvoke(CONVERSATION)
    # "Answer like a pirate.\nNever mention treasure." = 7, then 4, 6, 4 words
    assert answer.usage_metadata == {
        "input_tokens": 21,
        "output_tokens": 3,
        "total_tokens": 24,
    }
    assert answer.response_metadata["finish_reason"] == "stop"
    assert answer.response_metadata["model_name"] == "offline"

    chunks = [chunk async for chunk in model.astream(CONVERSATION)]
    assert [c.usage_metadata for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert chunks[-1].usage_metadata == answer.usage_metadata
    assert _concat(chunks).usage_metadata == answer.usage_metadata


def test_responder_metadata_and_usage_win() -> None:
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    model = OfflineChatModel(
        model_name="scripted",
        responder=lambda *_: AIMessage(
            "cut short",
            response_metadata={"finish_reason": "length"},
            usage_metadata=usage,
        ),
    )
    answer = model.invoke("x")
    assert answer.response_metadata["finish_reason"] == "length"
    assert answer.response_metadata["model_name"] == "scripted"
    assert answer.usage_metadata == usage
    streamed = _concat(list(model.stream("x")))
    assert streamed.response_metadata["finish_reason"] == "length"
    assert streamed.usage_metadata == usage


@pytest.mark.anyio
async def test_content_blocks_such_as_refusals_pass_through() -> None:
    refusal: list[str | dict[str, Any]] = [
        {"type": "refusal", "refusal": "I can't help with that."}
    ]
    model = OfflineChatModel(responder=lambda *_: AIMessage(content=refusal))
    assert (await model.ainvoke("x")).content == refusal
    chunks = [chunk async for chunk in model.astream("x")]
    assert _concat(chunks).content == refusal


# --- tools ----------------------------------------------------------------


@pytest.mark.anyio
async def test_scripted_tool_calls_come_back_as_tool_calls() -> None:
    seen: list[tuple[list[BaseMessage], list[dict], Any]] = []

    def responder(messages, tools, tool_choice):
        seen.append((messages, tools, tool_choice))
        if isinstance(messages[-1], ToolMessage):
            return f"The forecast says {messages[-1].content}."
        return AIMessage(
            content="Let me check.",
            tool_calls=[
                {
                    "name": "get_weather",
                    "args": {"city": "Paris", "days": 2},
                    "id": "a",
                },
                {"name": "search", "args": {"query": "Paris"}, "id": "b"},
            ],
        )

    model = OfflineChatModel(responder=responder).bind_tools(
        [get_weather, search], tool_choice="auto"
    )
    answer = await model.ainvoke([HumanMessage("Weather in Paris?")])
    assert [(c["name"], c["args"], c["id"]) for c in answer.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 2}, "a"),
        ("search", {"query": "Paris"}, "b"),
    ]
    assert answer.response_metadata["finish_reason"] == "tool_calls"
    tools, tool_choice = seen[0][1], seen[0][2]
    assert [t["function"]["name"] for t in tools] == ["get_weather", "search"]
    assert tools[0]["function"]["parameters"]["required"] == ["city", "days"]
    assert tool_choice == "auto"

    streamed = _concat([c async for c in model.astream([HumanMessage("Weather?")])])
    assert streamed.text == "Let me check."
    assert [c["args"] for c in streamed.tool_calls] == [
        {"city": "Paris", "days": 2},
        {"query": "Paris"},
    ]
    # Usage counts the text words and the JSON arguments' words.
    assert streamed.usage_metadata is not None
    assert streamed.usage_metadata["output_tokens"] == 3 + len(
        json.dumps({"city": "Paris", "days": 2}).split()
    ) + len(json.dumps({"query": "Paris"}).split())

    followup = await model.ainvoke(
        [
            HumanMessage("Weather in Paris?"),
            answer,
            ToolMessage("sunny", tool_call_id="a"),
        ]
    )
    assert followup.text == "The forecast says sunny."
    assert followup.tool_calls == []


@pytest.mark.anyio
@pytest.mark.parametrize("tool_choice", ["required", "any", True])
async def test_forced_tool_choice_calls_the_first_tool_by_default(
    tool_choice: Any,
) -> None:
    model = OfflineChatModel().bind_tools(
        [get_weather, search], tool_choice=tool_choice
    )
    answer = await model.ainvoke([HumanMessage("Lyon tomorrow")])
    assert answer.text == ""
    assert answer.tool_calls == [
        {
            "name": "get_weather",
            "args": {"city": "Lyon tomorrow", "days": 2},
            "id": "call_offline_1",
            "type": "tool_call",
        }
    ]
    streamed = _concat([c async for c in model.astream([HumanMessage("Lyon")])])
    assert streamed.tool_calls[0]["args"] == {"city": "Lyon", "days": 1}


@pytest.mark.anyio
async def test_named_tool_choice_calls_that_tool() -> None:
    for choice in ("search", {"type": "function", "function": {"name": "search"}}):
        model = OfflineChatModel().bind_tools([get_weather, search], tool_choice=choice)
        answer = await model.ainvoke("find LangGraph docs")
        assert [(c["name"], c["args"]) for c in answer.tool_calls] == [
            ("search", {"query": "find LangGraph docs"})
        ]


@pytest.mark.anyio
@pytest.mark.parametrize("tool_choice", [None, "auto", "none", "no_such_tool"])
async def test_unforced_tool_choice_answers_in_text(tool_choice: Any) -> None:
    answer = await (
        OfflineChatModel()
        .bind_tools([get_weather], tool_choice=tool_choice)
        .ainvoke("hello")
    )
    assert answer.tool_calls == []
    assert answer.text.startswith('This is the offline model. You said: "hello"')


def test_forced_custom_tool_call_uses_the_user_text() -> None:
    @custom_tool
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    reply = (
        OfflineChatModel()
        .bind_tools([shout], tool_choice="required")
        .invoke([HumanMessage("hello there")])
    )
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [
        ("shout", {"__arg1": "hello there"})
    ]


# --- recording ------------------------------------------------------------


def test_recording_responder_records_and_delegates() -> None:
    recorder = RecordingResponder(inner=lambda *_: "scripted")
    model = OfflineChatModel(responder=recorder).bind_tools(
        [search], tool_choice="auto"
    )
    assert model.invoke([SystemMessage("s"), HumanMessage("q")]).content == "scripted"
    [call] = recorder.calls
    assert isinstance(call, RecordedCall)
    assert [m.content for m in call.messages] == ["s", "q"]
    assert call.tools[0]["function"]["name"] == "search"
    assert call.tool_choice == "auto"


def test_recording_responder_defaults_to_the_default_responder() -> None:
    recorder = RecordingResponder()
    model = OfflineChatModel(responder=recorder)
    assert model.invoke("hi").text == default_responder([HumanMessage("hi")], [], None)
    model.with_structured_output(search).invoke("structured")
    assert [call.messages[-1].content for call in recorder.calls] == ["hi"]


@pytest.mark.anyio
async def test_the_recorder_keeps_each_calls_options() -> None:
    # What a graph binds or passes (a generation control, a stop list) is
    # recorded; tools and the tool choice are not options.
    recorder = RecordingResponder()
    model = OfflineChatModel(responder=recorder)
    plain = await model.ainvoke("a")
    await model.bind(temperature=0.2, max_tokens=64).ainvoke("b")
    streamed = [
        chunk
        async for chunk in model.bind_tools([search], tool_choice="auto")
        .bind(top_p=0.5)
        .astream("c", stop=["\n"])
    ]
    model.invoke("d", reasoning_effort="low")
    assert [call.options for call in recorder.calls] == [
        {},
        {"temperature": 0.2, "max_tokens": 64},
        {"top_p": 0.5, "stop": ["\n"]},
        {"reasoning_effort": "low"},
    ]
    # The answers do not depend on the options.
    assert plain.text == default_responder([HumanMessage("a")], [], None)
    assert "".join(str(chunk.text) for chunk in streamed) == default_responder(
        [HumanMessage("c")], [], None
    )


def test_call_options_are_read_only_and_empty_outside_a_call() -> None:
    seen: list[Any] = []

    def responder(messages: Any, tools: Any, tool_choice: Any) -> str:
        seen.append(call_options())
        return "ok"

    OfflineChatModel(responder=responder).invoke("x", seed=7)
    assert seen == [{"seed": 7}]
    with pytest.raises(TypeError):
        seen[0]["seed"] = 8  # type: ignore[index]
    assert call_options() == {}


# --- structured output ----------------------------------------------------


class Triage(BaseModel):
    topic: str
    depth: Literal["quick", "deep"]
    sub_questions: list[str]
    budget: int = Field(ge=5)
    ratio: float
    needs_clarification: bool = False
    note: str | None = None


@pytest.mark.anyio
async def test_structured_output_returns_a_schema_instance() -> None:
    structured = OfflineChatModel().with_structured_output(Triage)
    result = await structured.ainvoke(
        [SystemMessage("Triage this."), HumanMessage("Compare LangGraph and CrewAI")]
    )
    assert result == Triage(
        topic="Compare LangGraph and CrewAI",
        depth="quick",
        sub_questions=["Compare LangGraph and CrewAI"],
        budget=5,
        ratio=4.0,
        needs_clarification=False,
        note=None,
    )


@pytest.mark.anyio
async def test_structured_output_with_raw_and_custom_structured_responder() -> None:
    calls: list[tuple[list[BaseMessage], Any]] = []

    def structured_responder(messages, schema):
        calls.append((messages, schema))
        return {
            "topic": "scripted",
            "depth": "deep",
            "sub_questions": ["a", "b"],
            "budget": 10,
            "ratio": 0.5,
            "needs_clarification": True,
        }

    model = OfflineChatModel(structured_responder=structured_responder)
    result = await model.with_structured_output(Triage, include_raw=True).ainvoke(
        "anything"
    )
    assert result["parsing_error"] is None
    assert result["parsed"].depth == "deep"
    assert result["parsed"].needs_clarification is True
    assert isinstance(result["raw"], AIMessage)
    assert result["raw"].tool_calls[0]["name"] == "Triage"
    assert result["raw"].tool_calls[0]["id"] == "call_offline_1"
    assert calls[0][1] is Triage
    assert calls[0][0][-1].content == "anything"


def test_a_structured_responder_may_refuse() -> None:
    refusal: list[str | dict[str, Any]] = [{"type": "refusal", "refusal": "No."}]
    model = OfflineChatModel(structured_responder=lambda *_: AIMessage(content=refusal))
    result = model.with_structured_output(Triage, include_raw=True).invoke("x")
    assert result["parsed"] is None
    assert result["raw"].content == refusal


def test_structured_output_with_json_schema_and_typeddict_returns_dicts() -> None:
    schema = {
        "title": "Answer",
        "description": "An answer.",
        "type": "object",
        "properties": {
            "answer": {"type": "string"},
            "confidence": {"type": "number", "default": 0.5},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["answer"],
    }
    model = OfflineChatModel()
    assert model.with_structured_output(schema).invoke("Why is the sky blue?") == {
        "answer": "Why is the sky blue?",
        "confidence": 0.5,
    }

    class Verdict(TypedDict):
        """A verdict."""

        ok: bool
        reason: str

    assert model.with_structured_output(Verdict).invoke("check") == {
        "ok": True,
        "reason": "check",
    }


def test_default_structured_responder_handles_constraints_and_no_user_text() -> None:
    class Note(BaseModel):
        title: str = Field(max_length=5)
        kind: Literal["memo"]
        count: int

    assert default_structured_responder([HumanMessage("a long title")], Note) == {
        "title": "a lon",
        "kind": "memo",
        "count": 3,
    }
    assert default_structured_responder([SystemMessage("s")], Note) == {
        "title": "",
        "kind": "memo",
        "count": 0,
    }
    with pytest.raises(ValueError, match="Unsupported function"):
        default_structured_responder([], 42)
