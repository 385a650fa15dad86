"""``run_graph`` and ``stream_graph``: the streamed-text contract checked on every run."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import START, MessagesState, StateGraph

from langgraph_openai_serve import GraphConfig, GraphRegistry, GraphRequest
from langgraph_openai_serve.graph.runner import TextChunk, run_langgraph
from langgraph_openai_serve.testing import OfflineChatModel, run_graph, stream_graph

pytestmark = pytest.mark.anyio

QUESTION = [HumanMessage("Hello")]


def _registry(*, private: bool) -> GraphRegistry:
    """One node, ``shout``, that upper-cases the model's answer."""
    model = OfflineChatModel(responder=lambda messages, tools, choice: "a quiet answer")
    call = model.with_config(tags=[TAG_NOSTREAM]) if private else model

    async def shout(state: MessagesState) -> dict[str, Any]:
        draft = await call.ainvoke(state["messages"])
        return {"messages": [AIMessage(draft.text.upper())]}

    builder = StateGraph(MessagesState)
    builder.add_node(shout)
    builder.add_edge(START, "shout")
    graph = GraphConfig(graph=builder.compile(), description="Shouts.")
    return GraphRegistry(graphs={"shouting": graph})


async def test_run_langgraph_alone_misses_the_mistake() -> None:
    """Why the helpers exist: without streaming the answer looks right."""
    reply = await run_langgraph(
        GraphRequest(model="shouting"), QUESTION, _registry(private=False)
    )
    assert reply.text == "A QUIET ANSWER"


@pytest.mark.parametrize("helper", [run_graph, stream_graph])
async def test_changed_streamed_text_fails_naming_the_node_and_the_tag(
    helper: Any,
) -> None:
    with pytest.raises(AssertionError) as raised:
        await helper(GraphRequest(model="shouting"), QUESTION, _registry(private=False))
    message = str(raised.value)
    assert message.startswith("Graph 'shouting': The text streamed by node 'shout'")
    assert "('a quiet answer')" in message
    assert "('A QUIET ANSWER')" in message
    assert ".with_config(tags=[TAG_NOSTREAM])" in message


async def test_the_tagged_model_call_passes() -> None:
    registry = _registry(private=True)
    request = GraphRequest(model="shouting")
    reply = await run_graph(request, QUESTION, registry)
    assert isinstance(reply, AIMessage)
    assert reply.text == "A QUIET ANSWER"
    events = await stream_graph(request, QUESTION, registry)
    assert isinstance(events[-1], AIMessage)
    assert events[-1].text == reply.text
    chunks = [event for event in events if isinstance(event, TextChunk)]
    assert "".join(chunk.text for chunk in chunks) in ("", reply.text)


async def test_chunks_name_their_node() -> None:
    model = OfflineChatModel(responder=lambda messages, tools, choice: "two words")

    async def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node(answer)
    builder.add_edge(START, "answer")
    registry = GraphRegistry(
        graphs={"m": GraphConfig(graph=builder.compile(), description="d")}
    )
    events = await stream_graph(GraphRequest(model="m"), QUESTION, registry)
    chunks = [event for event in events if isinstance(event, TextChunk)]
    assert [chunk.text for chunk in chunks] == ["two ", "words"]
    assert {chunk.node for chunk in chunks} == {"answer"}
