"""A graph that takes its time, for tests of what a server does under load."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from langgraph_openai_serve import GraphConfig, GraphRegistry

SLOW_SECONDS = 3.0
"""How long a ``slow`` run waits before it answers."""


def slow_graph() -> Any:
    """Wait :data:`SLOW_SECONDS` (without blocking the loop), then answer ``done``."""

    async def wait(state: MessagesState) -> dict[str, Any]:
        await asyncio.sleep(SLOW_SECONDS)
        return {"messages": [AIMessage(content="done")]}

    builder = StateGraph(MessagesState)
    builder.add_node("wait", wait)
    builder.add_edge(START, "wait")
    builder.add_edge("wait", END)
    return builder.compile()


def serve_slow_registry(resources: Any) -> GraphRegistry:
    """Registry factory: ``lgos serve tests.lgos.slow_graphs:serve_slow_registry``."""
    return GraphRegistry(
        graphs={"slow": GraphConfig(graph=slow_graph(), description="Takes its time.")}
    )
