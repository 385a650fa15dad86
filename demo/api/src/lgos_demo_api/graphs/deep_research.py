"""The `deep-research` graph: scope, review, parallel researchers, cited report.

Topology (`graph.get_graph(xray=True)`; dotted edges are chosen at run time)::

    __start__ --> scope:__start__ --> scope:triage
    scope:triage -.-> scope:review | scope:__end__
    scope:review -.-> scope:triage | scope:review | scope:__end__
    scope:__end__ -.-> researcher:__start__ (one Send per plan question)
    scope:__end__ -.-> answer --> __end__
    researcher:__start__ --> researcher:search
    researcher:search -.-> researcher:tools | researcher:__end__
    researcher:tools --> researcher:search
    researcher:__end__ --> report --> __end__

- `scope` (a compiled subgraph, added as a node): `triage` asks the model,
  through private structured output, whether the request needs research and
  for three to five self-contained research questions. `review` pauses with
  `interrupt()`; the answer starts the research (`Start research`), skips it
  (`Answer now`), edits the plan (any other text: `triage` revises it and
  asks again; the edit never enters the conversation) or asks again (blank).
- `researcher` (a compiled subgraph, one `Send` per plan question, all in
  parallel): works in a clean context, its question only. `search` asks the
  model for any number of parallel `web_search` calls (private, tagged
  `TAG_NOSTREAM`) and publishes one status event per query; LangGraph's
  prebuilt `ToolNode` runs them in `tools` (a failing search becomes an error
  result the model can work around). A researcher stops when the model asks
  for no search or its research rounds are used up, and returns its searches
  to the root graph's `messages`, where LGOS turns them into `web_search_call`
  items.
- `report` (streams) writes from the search results and the user's messages
  (attachments included) only, cites them with `[n]` markers that become
  `url_citation` annotations in code, and reports questions the results do
  not answer as unanswered. The markers are renumbered while they stream
  (`lgos_demo_api.search.renumber`), so the report cites `[1]`, `[2]`, ...
  in reading order with no gaps, whatever numbers the prompt gave.
- `answer` (streams) answers directly: it binds the client's functions and
  honours `tool_choice` and `parallel_tool_calls`. It also carries a triage
  refusal as native refusal content, and tells the user to turn on web search
  when a plan needs it but the request did not select `web_search`.

Attachments (`GraphFeature.FILE_INPUTS`) stay Files API IDs in the state;
`resolve_file_inputs` turns them into text only for the `triage`, `report`
and `answer` model calls, downloading each file once per run (the run's
`FileCache` is part of its context). Researchers never see them: they get
their question only.

Both subgraphs compile without a checkpointer and inherit the parent's, so a
paused review is stored under the scope's checkpoint namespace and resumed
there without rerunning triage.

This module wires the root graph and holds `report` and `answer`. The rest
lives beside it: `deep_research_prompts` (prompts and review wording),
`deep_research_state` (settings, context, states), `deep_research_scope` and
`deep_research_researcher` (the subgraphs), and `deep_research_offline` (the
offline stand-in for the model).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from langgraph_openai_serve import GraphConfig, GraphFeature, status_event
from lgos_demo_api.attachments import resolve_file_inputs
from lgos_demo_api.files_client import FilesClient
from lgos_demo_api.graphs.deep_research_offline import offline_research_model
from lgos_demo_api.graphs.deep_research_prompts import (
    ANSWER_PROMPT,
    NEEDS_WEB_SEARCH,
    REPORT_PROMPT,
    numbered,
)
from lgos_demo_api.graphs.deep_research_researcher import build_researcher_graph
from lgos_demo_api.graphs.deep_research_scope import build_scope_graph, conversation
from lgos_demo_api.graphs.deep_research_state import (
    DeepResearchContext,
    DeepResearchSettings,
    DeepResearchState,
    Finding,
    ResearcherInput,
    deep_research_context,
)
from lgos_demo_api.graphs.tool_calls import ask_with_functions
from lgos_demo_api.models import answered_by, chat_model, uses_offline_model
from lgos_demo_api.search import backend_label, search_backend, web_search_tool
from lgos_demo_api.search.base import SearchResult
from lgos_demo_api.search.citing import format_sources, search_sources, with_citations
from lgos_demo_api.search.renumber import MarkerRenumbering, RenumberedChatModel
from lgos_demo_api.settings import DemoApiSettings

if TYPE_CHECKING:
    from langgraph_openai_serve.server import ServerResources

__all__ = [
    "DeepResearchGraph",
    "build_deep_research_graph",
    "deep_research_graph_config",
]

_NO_RESULTS = "(no results)"

DeepResearchGraph = CompiledStateGraph[
    DeepResearchState, DeepResearchContext, DeepResearchState, DeepResearchState
]
"""The compiled `deep-research` graph type."""


def _user_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Return the client's instructions and the user's messages (report)."""
    return [m for m in messages if isinstance(m, HumanMessage | SystemMessage)]


def _findings_prompt(
    findings: Sequence[Finding], messages: Sequence[BaseMessage]
) -> tuple[str, list[SearchResult]]:
    """List each question with its sources, numbering every source once."""
    results: dict[str, list[ToolMessage]] = {}
    for message in messages:
        if isinstance(message, ToolMessage):
            results.setdefault(message.tool_call_id, []).append(message)
    sources: list[SearchResult] = []
    numbers: dict[str, int] = {}
    blocks: list[str] = []
    for finding in sorted(findings, key=lambda f: f["index"]):
        found = search_sources(
            m for call_id in finding["call_ids"] for m in results.get(call_id, [])
        )
        lines = [f"Question {finding['index'] + 1}: {finding['question']}"]
        for source in found:
            if source.url not in numbers:
                sources.append(source)
                numbers[source.url] = len(sources)
            lines.append(format_sources([source], start=numbers[source.url]))
        if not found:
            lines.append(_NO_RESULTS)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks), sources


def build_deep_research_graph(
    model: BaseChatModel,
    search: BaseTool,
    *,
    checkpointer: BaseCheckpointSaver | None = None,
    files: FilesClient | None = None,
) -> DeepResearchGraph:
    """Compile the `deep-research` graph.

    Args:
        model: The chat model of every step. Private steps (triage, the
            researchers' search choices) are tagged `TAG_NOSTREAM`; only
            `report` and `answer` stream.
        search: The `web_search` tool.
        checkpointer: The parent's checkpointer (the subgraphs have none and
            inherit it). LGOS needs one for the plan review.
        files: The Files API client `triage`, `report` and `answer` read
            attachments through; None turns attachments into notes.

    Returns:
        The compiled graph, named `deep-research`.

    """
    scope = build_scope_graph(model, files)
    researcher = build_researcher_graph(model, search)

    def after_scope(
        state: DeepResearchState, runtime: Runtime[DeepResearchContext]
    ) -> list[Send] | Literal["answer"]:
        context = runtime.context or DeepResearchContext()
        plan = state.get("plan") or []
        if not plan or not context.web_search or state.get("refusal"):
            return "answer"
        noun = "researcher" if len(plan) == 1 else "researchers"
        get_stream_writer()(status_event(f"Starting {len(plan)} {noun}"))
        return [
            Send("researcher", ResearcherInput(index=index, question=question))
            for index, question in enumerate(plan)
        ]

    async def report(
        state: DeepResearchState, runtime: Runtime[DeepResearchContext]
    ) -> dict[str, Any]:
        context = runtime.context or DeepResearchContext()
        findings_text, sources = _findings_prompt(
            state.get("findings", []), state["messages"]
        )
        noun = "source" if len(sources) == 1 else "sources"
        get_stream_writer()(
            status_event(f"Writing the report from {len(sources)} {noun}")
        )
        prompt = await resolve_file_inputs(
            [
                SystemMessage(REPORT_PROMPT.format(findings=findings_text)),
                *_user_messages(state["messages"]),
            ],
            files,
            cache=context.file_cache,
        )
        # Markers are renumbered 1..n in first-citation order as the report
        # streams; the sources are reordered to match before citing.
        renumbering = MarkerRenumbering(len(sources))
        writer = RenumberedChatModel(inner=model, renumbering=renumbering)
        reply = await writer.ainvoke(prompt)
        return {"messages": [with_citations(reply, renumbering.reorder(sources))]}

    async def answer(
        state: DeepResearchState, runtime: Runtime[DeepResearchContext]
    ) -> dict[str, Any]:
        context = runtime.context or DeepResearchContext()
        if refusal := state.get("refusal"):
            return {
                "messages": [
                    AIMessage(content=[{"type": "refusal", "refusal": refusal}])
                ]
            }
        if plan := state.get("plan"):
            # Reached with a plan only when the request did not select web search.
            text = NEEDS_WEB_SEARCH.format(plan=numbered(plan))
            return {"messages": [AIMessage(content=text)]}
        messages = await resolve_file_inputs(
            [SystemMessage(ANSWER_PROMPT), *conversation(state["messages"])],
            files,
            cache=context.file_cache,
        )
        reply = await ask_with_functions(
            model,
            messages,
            tools=context.tools,
            tool_choice=context.function_choice or context.tool_choice,
            parallel_tool_calls=context.parallel_tool_calls,
        )
        return {"messages": [reply]}

    builder = StateGraph(DeepResearchState, context_schema=DeepResearchContext)
    builder.add_node("scope", scope)
    builder.add_node("researcher", researcher)
    builder.add_node("report", report)
    builder.add_node("answer", answer)
    builder.add_edge(START, "scope")
    builder.add_conditional_edges("scope", after_scope, ["researcher", "answer"])
    builder.add_edge("researcher", "report")
    builder.add_edge("report", END)
    builder.add_edge("answer", END)
    return builder.compile(checkpointer=checkpointer, name="deep-research")


def deep_research_graph_config(
    settings: DemoApiSettings,
    resources: ServerResources,
    *,
    model: BaseChatModel | None = None,
    search: BaseTool | None = None,
    files: FilesClient | None = None,
) -> GraphConfig:
    """Register `deep-research` with the server's checkpointer.

    Args:
        settings: The demo settings: the model (the scripted offline model
            without an API key) and the web search backend.
        resources: The server's resources; the graph is compiled with their
            checkpointer so plan reviews survive across requests and
            processes.
        model: A chat model to use instead of the one the settings select.
        search: A `web_search` tool to use instead of the configured backend.
        files: A Files API client to use instead of one built from the
            settings (`files_base_url`, `files_api_key`).

    Returns:
        A `GraphConfig` with `GraphFeature.INTERRUPTS`, `BACKGROUND` and
        `FILE_INPUTS`, `web_search` as its only server tool,
        `DeepResearchSettings` and `deep_research_context`.

    """
    if model is None and uses_offline_model(settings):
        model = offline_research_model(
            chunk_delay=settings.offline_chunk_delay,
            answer_delay=settings.offline_answer_delay,
        )
    elif model is None:
        model = chat_model(settings)
    if search is None:
        search = web_search_tool(
            search_backend(settings), max_results=settings.web_search_max_results
        )
    return GraphConfig(
        graph=build_deep_research_graph(
            model,
            search,
            checkpointer=resources.checkpointer,
            files=files or FilesClient.from_settings(settings),
        ),
        description=(
            "Deep research: simple requests get a direct answer; questions that "
            "need the web get a research plan to review (Start research, Answer "
            "now, or an edit), then parallel researchers search and a report "
            "cites the results. Select web search to let it research; searches "
            f"use {backend_label(settings)}. {answered_by(settings)}"
        ),
        # Research takes minutes: clients may run any request in the background.
        features=frozenset(
            {
                GraphFeature.INTERRUPTS,
                GraphFeature.BACKGROUND,
                GraphFeature.FILE_INPUTS,
            }
        ),
        server_tools=frozenset({"web_search"}),
        client_settings=DeepResearchSettings,
        context_factory=deep_research_context,
    )
