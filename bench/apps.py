"""What the benchmark serves: a bare JSON route, and LGOS on trivial graphs.

``bare_app`` is the HTTP floor (``uvicorn bench.apps:bare_app``). LGOS runs
the way users run it, ``lgos serve bench.apps:registry``: the registry factory
below receives the server's resources (in memory, or PostgreSQL when
``LGOS_POSTGRES_URI`` is set), so interrupt graphs checkpoint and lease exactly
as in production.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
from fastapi import FastAPI
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt
from starlette.responses import StreamingResponse

from langgraph_openai_serve import GraphConfig, GraphFeature, GraphRegistry
from langgraph_openai_serve.server.resources import ServerResources
from langgraph_openai_serve.testing import OfflineChatModel

STREAM_CHUNKS = 200
"""Text chunks the ``stream200`` graph streams (one per word)."""

CHAIN_SIZES = (1, 10, 100)
"""Node counts of the ``chain<N>`` graphs."""

IDLE_SECONDS = 3600.0
"""How long the ``idle`` graph waits: far longer than any benchmark holds it."""


def chain_graph(nodes: int = 1) -> Any:
    """Build ``nodes`` nodes in a row; the last answers "ok" (1 node: trivial).

    The other nodes return no update, so the cost measured is LangGraph's own
    per-step work.
    """

    def step(state: MessagesState) -> dict[str, Any]:
        return {}

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("ok")]}

    builder = StateGraph(MessagesState)
    previous = START
    for index in range(nodes - 1):
        builder.add_node(f"step{index}", step)
        builder.add_edge(previous, f"step{index}")
        previous = f"step{index}"
    builder.add_node("answer", answer)
    builder.add_edge(previous, "answer")
    return builder.compile()


def trivial_graph() -> Any:
    """Build one node answering "ok" at once: the cost of LangGraph itself."""
    return chain_graph(1)


def stream_text() -> str:
    """Return the ``stream200`` answer: ``STREAM_CHUNKS`` words."""
    return " ".join(f"w{index}" for index in range(STREAM_CHUNKS))


def streaming_graph() -> Any:
    """Build one chat-model call streaming ``STREAM_CHUNKS`` text chunks."""
    text = stream_text()
    model = OfflineChatModel(responder=lambda messages, tools, choice: text)

    async def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    return builder.compile()


def idle_graph() -> Any:
    """Build a graph waiting ``IDLE_SECONDS`` before answering (idle streams)."""

    async def wait(state: MessagesState) -> dict[str, Any]:
        await asyncio.sleep(IDLE_SECONDS)
        return {"messages": [AIMessage("late")]}

    builder = StateGraph(MessagesState)
    builder.add_node("wait", wait)
    builder.add_edge(START, "wait")
    return builder.compile()


class ApprovalState(MessagesState):
    """Messages plus the reviewer's decision."""

    decision: str


def approval_graph(checkpointer: BaseCheckpointSaver | None) -> Any:
    """Build prepare → review → finish, where review pauses with ``interrupt()``.

    With ``checkpointer=None`` the review decides "approve" itself: the same
    three nodes as a plain request, the baseline of the pause → resume figure.
    """

    def prepare(state: ApprovalState) -> dict[str, Any]:
        return {}

    def review(state: ApprovalState) -> dict[str, Any]:
        if checkpointer is None:
            return {"decision": "approve"}
        return {"decision": interrupt({"question": "Approve?"})}

    def finish(state: ApprovalState) -> dict[str, Any]:
        return {"messages": [AIMessage(f"Decision: {state['decision']}")]}

    builder = StateGraph(ApprovalState)
    builder.add_node("prepare", prepare)
    builder.add_node("review", review)
    builder.add_node("finish", finish)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "review")
    builder.add_edge("review", "finish")
    return builder.compile(checkpointer=checkpointer)


def registry(resources: ServerResources) -> GraphRegistry:
    """Registry factory for ``lgos serve bench.apps:registry``.

    Models: ``trivial`` (also runs in the background), ``chain1``,
    ``chain10``, ``chain100``, ``stream200``, ``idle``, ``approval`` (pauses;
    checkpoints with the server's checkpointer) and ``approval-plain``.
    """
    graphs = {
        "trivial": GraphConfig(
            graph=trivial_graph(),
            description="Answers 'ok'.",
            features=frozenset({GraphFeature.BACKGROUND}),
        ),
        **{
            f"chain{size}": GraphConfig(
                graph=chain_graph(size), description=f"{size} nodes."
            )
            for size in CHAIN_SIZES
        },
        "stream200": GraphConfig(
            graph=streaming_graph(), description=f"Streams {STREAM_CHUNKS} chunks."
        ),
        "idle": GraphConfig(graph=idle_graph(), description="Waits."),
        "approval": GraphConfig(
            graph=approval_graph(resources.checkpointer),
            description="Pauses for an approval.",
            features=frozenset({GraphFeature.INTERRUPTS}),
        ),
        "approval-plain": GraphConfig(
            graph=approval_graph(None), description="Approves without pausing."
        ),
    }
    return GraphRegistry(graphs=graphs, run_coordinator=resources.run_coordinator)


bare_app = FastAPI()


@bare_app.post("/bare")
async def bare(body: dict[str, Any]) -> dict[str, Any]:
    """Parse a JSON body and answer JSON: the HTTP floor."""
    return {"object": "bare", "echo": len(body)}


_BARE_GRAPH = trivial_graph()


_BARE_ROLES: dict[str, type[BaseMessage]] = {
    "user": HumanMessage,
    "assistant": AIMessage,
    "system": SystemMessage,
}


@bare_app.post("/bare-graph")
async def bare_graph(body: dict[str, Any]) -> dict[str, Any]:
    """Run the trivial graph with ``ainvoke`` behind a plain route.

    The least any server can do to answer with the graph: no protocol, no
    validation beyond JSON, no telemetry. ``input`` is a string or a list of
    ``{"role", "content"}`` messages, built with LangChain's constructors.
    It is a diagnostic beside the floor, not a target.
    """
    given = body["input"]
    if isinstance(given, str):
        messages: list[BaseMessage] = [HumanMessage(given)]
    else:
        messages = [_BARE_ROLES[item["role"]](item["content"]) for item in given]
    result = await _BARE_GRAPH.ainvoke({"messages": messages})
    return {"object": "bare", "output_text": result["messages"][-1].text}


_BARE_STREAM_GRAPH = streaming_graph()


async def _bare_stream_events(given: str) -> AsyncIterator[bytes]:
    """SSE ``data:`` frames of the stream graph's text chunks, then ``[DONE]``."""
    state = {"messages": [HumanMessage(given)]}
    async for chunk, _ in _BARE_STREAM_GRAPH.astream(state, stream_mode="messages"):
        if isinstance(chunk, AIMessageChunk) and (text := chunk.text):
            yield b"data: %s\n\n" % orjson.dumps({"delta": text})
    yield b"data: [DONE]\n\n"


@bare_app.post("/bare-stream")
async def bare_stream(body: dict[str, Any]) -> StreamingResponse:
    """Stream the ``stream200`` graph's ``astream`` as SSE behind a plain route.

    The least any server does to stream the graph: ``stream_mode="messages"``,
    each text chunk framed as ``data: {"delta": text}`` and sent as it comes
    (Starlette's ``StreamingResponse``: one ASGI message per chunk), then
    ``data: [DONE]``. No protocol events, no validation beyond JSON, no
    telemetry: the HTTP floor of the concurrent-streams figure. ``input`` is
    the user's text.
    """
    return StreamingResponse(
        _bare_stream_events(body["input"]), media_type="text/event-stream"
    )


@bare_app.get("/health")
async def health() -> dict[str, str]:
    """Readiness probe for the benchmark driver."""
    return {"status": "ok"}
