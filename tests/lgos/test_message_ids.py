"""Input messages reach the graph with the IDs ``add_messages`` would give them.

LGOS gives decoded messages their IDs before the graph's reducer does (see
``graph/message_ids.py``); the graph must see what it saw before: random
version-4 UUID strings where ``add_messages`` assigns them, the caller's IDs
kept, and no IDs at all where nothing in the graph assigns them.
"""

from __future__ import annotations

import uuid
from typing import Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph

from langgraph_openai_serve import GraphConfig, GraphRegistry, GraphRequest
from langgraph_openai_serve.graph.runner import run_langgraph
from langgraph_openai_serve.ids import uuid4_strings

pytestmark = pytest.mark.anyio


class PlainState(TypedDict):
    """A ``messages`` channel without a reducer."""

    messages: list[AnyMessage]


def _recording_graph(state: Any, seen: list[BaseMessage]) -> Any:
    def answer(values: Any) -> dict[str, Any]:
        seen.extend(values["messages"])
        return {"messages": [*values["messages"], AIMessage("ok")]}

    builder = StateGraph(state)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    return builder.compile()


def _conversation() -> list[BaseMessage]:
    return [HumanMessage("hi"), AIMessage("hello", id="msg_kept"), HumanMessage("bye")]


async def _run(config: GraphConfig, messages: list[BaseMessage]) -> None:
    registry = GraphRegistry(graphs={"m": config})
    answer = await run_langgraph(GraphRequest(model="m"), messages, registry)
    assert isinstance(answer, AIMessage)


def _is_uuid4(value: Any) -> bool:
    parsed = uuid.UUID(value)
    return str(parsed) == value and parsed.version == 4


async def test_add_messages_graphs_see_uuid4_ids_and_the_callers_kept() -> None:
    seen: list[BaseMessage] = []
    graph = _recording_graph(MessagesState, seen)
    await _run(GraphConfig(graph=graph, description="d"), _conversation())
    first, kept, last = (message.id for message in seen)
    assert kept == "msg_kept"
    assert _is_uuid4(first) and _is_uuid4(last) and first != last
    # As the reducer's own assignment would leave them: set, and given.
    assert all("id" in message.model_fields_set for message in seen)


async def test_graphs_that_assign_no_ids_see_none() -> None:
    seen: list[BaseMessage] = []
    await _run(
        GraphConfig(graph=_recording_graph(PlainState, seen), description="d"),
        _conversation(),
    )
    assert [message.id for message in seen] == [None, "msg_kept", None]


async def test_an_input_adapter_receives_the_messages_as_decoded() -> None:
    received: list[BaseMessage] = []

    def to_input(request: GraphRequest, messages: list[BaseMessage]) -> Any:
        received.extend(messages)
        assert [message.id for message in messages] == [None, "msg_kept", None]
        return {"messages": messages}

    graph = _recording_graph(MessagesState, [])
    config = GraphConfig(graph=graph, description="d", request_to_input=to_input)
    await _run(config, _conversation())
    assert len(received) == 3


def test_uuid4_strings_are_distinct_version_4_uuids() -> None:
    made = uuid4_strings(2000)
    assert len(set(made)) == 2000
    assert all(_is_uuid4(value) for value in made)
    assert {uuid.UUID(value).variant for value in made} == {uuid.RFC_4122}
    assert uuid4_strings(0) == []
