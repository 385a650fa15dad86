"""The `scope` subgraph of `deep-research`: triage, then the plan review.

Topology::

    START --> triage -.-> review | END
    review -.-> triage | review | END

`triage` asks the model, through private structured output
(`TriageDecision`, tagged `TAG_NOSTREAM`), whether the request needs
research and for three to five self-contained research questions; it reads
the conversation without web-search activity, attachments resolved. `review`
pauses with `interrupt()`; the answer starts the research (`Start research`),
skips it (`Answer now`), edits the plan (any other text: `triage` revises it
and asks again; the edit never enters the conversation) or asks again
(blank).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from lgos_demo_api.attachments import resolve_file_inputs
from lgos_demo_api.files_client import FilesClient
from lgos_demo_api.graphs.deep_research_prompts import (
    ANSWER_NOW,
    FORCED_RESEARCH,
    REVISE_PLAN,
    START_RESEARCH,
    TRIAGE_PROMPT,
    numbered,
    review_question,
)
from lgos_demo_api.graphs.deep_research_state import (
    DeepResearchContext,
    ScopeInput,
    ScopeOutput,
    ScopeState,
    TriageDecision,
)
from lgos_demo_api.graphs.transcript import is_replayed_web_search, latest_human

__all__ = ["ScopeGraph", "build_scope_graph", "conversation"]

_DEFAULT_REFUSAL = "I can't help with that request."

ScopeGraph = CompiledStateGraph[
    ScopeState, DeepResearchContext, ScopeInput, ScopeOutput
]
"""The compiled `scope` subgraph type."""


def _is_search_history(message: BaseMessage) -> bool:
    """Tell whether a message is a replayed search or one of this run's."""
    if isinstance(message, ToolMessage):
        return message.name == "web_search"
    if isinstance(message, AIMessage) and message.tool_calls:
        return all(call["name"] == "web_search" for call in message.tool_calls)
    return is_replayed_web_search(message)


def conversation(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Return the conversation without web-search activity (triage, answer)."""
    return [m for m in messages if not _is_search_history(m)]


def _refusal_text(message: Any) -> str | None:
    if not isinstance(message, AIMessage):
        return None
    if isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, dict) and block.get("type") == "refusal":
                return str(block.get("refusal") or "").strip() or _DEFAULT_REFUSAL
    refusal = message.additional_kwargs.get("refusal")
    return str(refusal) if refusal else None


def build_scope_graph(model: BaseChatModel, files: FilesClient | None) -> ScopeGraph:
    """Compile the `scope` subgraph.

    Args:
        model: The chat model `triage` asks, privately.
        files: The Files API client `triage` reads attachments through.

    Returns:
        The compiled subgraph, named `scope`, without a checkpointer (it
        inherits the parent's, so a paused review is stored under the
        scope's checkpoint namespace and resumed there without rerunning
        triage).

    """
    private: RunnableConfig = {"tags": [TAG_NOSTREAM]}
    triage_model = model.with_structured_output(TriageDecision, include_raw=True)

    async def triage(
        state: ScopeState, runtime: Runtime[DeepResearchContext]
    ) -> dict[str, Any]:
        context = runtime.context or DeepResearchContext()
        messages = conversation(state["messages"])
        if context.answers_directly or (
            messages and isinstance(messages[-1], ToolMessage)
        ):
            # tool_choice none / a named function, or function results to use.
            return {"plan": [], "refusal": None, "edit": None, "review": None}
        instructions = [TRIAGE_PROMPT]
        if context.forces_research:
            instructions.append(FORCED_RESEARCH)
        if state.get("edit") and state.get("plan"):
            instructions.append(
                REVISE_PLAN.format(plan=numbered(state["plan"]), edit=state["edit"])
            )
        prompt = await resolve_file_inputs(
            [SystemMessage("\n\n".join(instructions)), *messages],
            files,
            cache=context.file_cache,
        )
        result = await triage_model.ainvoke(prompt, config=private)
        decision = result.get("parsed") if isinstance(result, dict) else None
        if not isinstance(decision, TriageDecision):
            # No decision: answer directly, carrying a refusal if there was one.
            raw = result.get("raw") if isinstance(result, dict) else None
            refusal = _refusal_text(raw)
            return {"plan": [], "refusal": refusal, "edit": None, "review": None}
        plan = [q.strip() for q in decision.questions if q.strip()][:5]
        if not plan and context.forces_research:
            latest = latest_human(messages)
            plan = [str(latest.text) if latest is not None else "The request"]
        if not (decision.needs_research or context.forces_research):
            plan = []
        return {"plan": plan, "refusal": None, "edit": None, "review": None}

    def after_triage(state: ScopeState, runtime: Runtime[DeepResearchContext]) -> str:
        context = runtime.context or DeepResearchContext()
        reviewing = context.settings.review_plan and context.web_search
        return "review" if state.get("plan") and reviewing else END

    def review(state: ScopeState) -> dict[str, Any]:
        plan = state["plan"]
        reply = interrupt(
            {
                "question": review_question(plan),
                "choices": [START_RESEARCH, ANSWER_NOW],
                "allow_other": True,
                "plan": plan,
            }
        )
        text = str(reply).strip() if reply is not None else ""
        if text.casefold() == START_RESEARCH.casefold():
            return {"review": "start"}
        if text.casefold() == ANSWER_NOW.casefold():
            return {"review": "answer", "plan": []}
        if not text:
            return {"review": "again"}
        return {"review": "edit", "edit": text}

    def after_review(state: ScopeState) -> str:
        outcome = state.get("review")
        if outcome == "edit":
            return "triage"
        if outcome == "again":
            return "review"
        return END

    scope_builder = StateGraph(
        ScopeState,
        context_schema=DeepResearchContext,
        input_schema=ScopeInput,
        output_schema=ScopeOutput,
    )
    scope_builder.add_node("triage", triage)
    scope_builder.add_node("review", review)
    scope_builder.add_edge(START, "triage")
    scope_builder.add_conditional_edges("triage", after_triage, ["review", END])
    scope_builder.add_conditional_edges(
        "review", after_review, ["triage", "review", END]
    )
    return scope_builder.compile(name="scope")
