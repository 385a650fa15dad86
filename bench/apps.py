"""ASGI apps the benchmark serves: a bare JSON route and LGOS on trivial graphs.

Run by ``bench/run.py`` through Uvicorn, e.g.
``uvicorn bench.apps:lgos_app`` and ``uvicorn bench.apps:bare_app``.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

from langgraph_openai_serve import GraphConfig, GraphRegistry, LanggraphOpenaiServe
from lgos_demo_api.offline import OfflineChatModel

STREAM_WORDS = 200


def trivial_graph() -> Any:
    """One node that answers at once: the cost of LangGraph itself."""

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("ok")]}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    return builder.compile()


def streaming_graph() -> Any:
    """One model call streaming ``STREAM_WORDS`` chunks with no delay."""
    text = " ".join(f"w{i}" for i in range(STREAM_WORDS))
    model = OfflineChatModel(responder=lambda messages, tools, choice: text)

    async def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    return builder.compile()


bare_app = FastAPI()


@bare_app.post("/bare")
async def bare(body: dict[str, Any]) -> dict[str, Any]:
    """Parse a JSON body and answer JSON: the HTTP floor."""
    return {"object": "bare", "echo": len(body)}


lgos_app = FastAPI()
LanggraphOpenaiServe(
    GraphRegistry(
        graphs={
            "trivial": GraphConfig(graph=trivial_graph(), description="Trivial."),
            "stream200": GraphConfig(graph=streaming_graph(), description="Streams."),
        }
    ),
    lgos_app,
).bind_openai_api()
