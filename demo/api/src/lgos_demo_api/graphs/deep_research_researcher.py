"""The `researcher` subgraph of `deep-research`: one plan question, searched.

Topology::

    START --> search -.-> tools | END
    tools --> search

Each plan question gets its own researcher (one `Send` each, all in
parallel), working in a clean context: its question only, never the
conversation or its attachments. `search` asks the model for any number of
parallel `web_search` calls (private, tagged `TAG_NOSTREAM`) and publishes
one status event per query; LangGraph's prebuilt `ToolNode` runs them in
`tools` (a failing search becomes an error result the model can work
around). A researcher stops when the model asks for no search or its
research rounds are used up, and returns its searches to the root graph's
`messages`, where LGOS turns them into `web_search_call` items.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_stream_writer
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from langgraph_openai_serve import status_event
from lgos_demo_api.graphs.deep_research_prompts import RESEARCH_PROMPT
from lgos_demo_api.graphs.deep_research_state import (
    DeepResearchContext,
    Finding,
    ResearcherInput,
    ResearcherOutput,
    ResearcherState,
)
from lgos_demo_api.graphs.tool_calls import call_id, with_tool_calls

__all__ = ["ResearcherGraph", "build_researcher_graph"]

ResearcherGraph = CompiledStateGraph[
    ResearcherState, DeepResearchContext, ResearcherInput, ResearcherOutput
]
"""The compiled `researcher` subgraph type."""


def _ensure_ids(reply: AIMessage, *parts: object) -> AIMessage:
    """Give tool calls without an ID one (LGOS needs an ID per public call)."""
    if all(call.get("id") for call in reply.tool_calls):
        return reply
    calls = [
        {**call, "id": call.get("id") or call_id(*parts, index)}
        for index, call in enumerate(reply.tool_calls)
    ]
    return reply.model_copy(update={"tool_calls": calls})


def build_researcher_graph(model: BaseChatModel, search: BaseTool) -> ResearcherGraph:
    """Compile the `researcher` subgraph.

    Args:
        model: The chat model that chooses the searches, privately.
        search: The `web_search` tool.

    Returns:
        The compiled subgraph, named `researcher`, without a checkpointer.

    """
    private: RunnableConfig = {"tags": [TAG_NOSTREAM]}

    async def search_step(
        state: ResearcherState, runtime: Runtime[DeepResearchContext]
    ) -> dict[str, Any]:
        context = runtime.context or DeepResearchContext()
        messages = state.get("messages", [])
        rounds = sum(isinstance(m, AIMessage) and bool(m.tool_calls) for m in messages)
        call_ids = [
            str(call["id"])
            for m in messages
            if isinstance(m, AIMessage)
            for call in m.tool_calls
            if call.get("id")
        ]
        finished = {
            "findings": [
                Finding(
                    index=state["index"], question=state["question"], call_ids=call_ids
                )
            ]
        }
        rounds_left = context.settings.research_rounds - rounds
        if rounds_left <= 0:
            return finished
        forced = context.forces_research and rounds == 0
        bound = model.bind_tools([search], tool_choice="required" if forced else "auto")
        reply = await bound.ainvoke(
            [
                SystemMessage(RESEARCH_PROMPT.format(rounds_left=rounds_left)),
                HumanMessage(state["question"]),
                *messages,
            ],
            config=private,
        )
        assert isinstance(reply, AIMessage)
        calls = [call for call in reply.tool_calls if call["name"] == search.name]
        if not calls:
            return finished
        reply = with_tool_calls(reply, calls)
        reply = _ensure_ids(reply, state["question"], rounds)
        write = get_stream_writer()
        for call in reply.tool_calls:
            query = str(call["args"].get("query", "")).strip()
            write(status_event(f"Searching the web: {query}"))
        return {"messages": [reply]}

    def after_search(state: ResearcherState) -> str:
        messages = state.get("messages", [])
        last = messages[-1] if messages else None
        if state.get("findings") or not isinstance(last, AIMessage):
            return END
        return "tools" if last.tool_calls else END

    researcher_builder = StateGraph(
        ResearcherState,
        context_schema=DeepResearchContext,
        input_schema=ResearcherInput,
        output_schema=ResearcherOutput,
    )
    researcher_builder.add_node("search", search_step)
    researcher_builder.add_node("tools", ToolNode([search], handle_tool_errors=True))
    researcher_builder.add_edge(START, "search")
    researcher_builder.add_conditional_edges("search", after_search, ["tools", END])
    researcher_builder.add_edge("tools", "search")
    return researcher_builder.compile(name="researcher")
