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
  not answer as unanswered.
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
there without rerunning triage. The offline stand-in for the model is
`lgos_demo_api.graphs.deep_research_offline`.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_stream_writer
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime
from langgraph.types import Send, interrupt
from pydantic import BaseModel, Field

from langgraph_openai_serve import (
    ClientSettings,
    GraphConfig,
    GraphFeature,
    GraphRequest,
    NamedFunctionToolChoice,
    status_event,
)
from lgos_demo_api.attachments import FileCache, resolve_file_inputs
from lgos_demo_api.files_client import FilesClient
from lgos_demo_api.models import answered_by, chat_model, uses_offline_model
from lgos_demo_api.search import backend_label, search_backend, web_search_tool
from lgos_demo_api.search.base import SearchResult
from lgos_demo_api.search.citing import format_sources, search_sources, with_citations
from lgos_demo_api.settings import DemoApiSettings

if TYPE_CHECKING:
    from langgraph_openai_serve.server import ServerResources

__all__ = [
    "ANSWER_NOW",
    "ANSWER_PROMPT",
    "FORCED_RESEARCH",
    "NEEDS_WEB_SEARCH",
    "REPORT_PROMPT",
    "RESEARCH_PROMPT",
    "REVISE_PLAN",
    "START_RESEARCH",
    "TRIAGE_PROMPT",
    "DeepResearchContext",
    "DeepResearchSettings",
    "DeepResearchState",
    "Finding",
    "TriageDecision",
    "build_deep_research_graph",
    "deep_research_context",
    "deep_research_graph_config",
    "review_question",
]

START_RESEARCH = "Start research"
"""The review answer that starts the researchers."""

ANSWER_NOW = "Answer now"
"""The review answer that skips the research and answers directly."""

TRIAGE_PROMPT = """\
You are the triage step of a deep-research assistant. Decide whether the \
user's latest request needs research on the web. Greetings, small talk, \
arithmetic and questions you can answer reliably without sources do not. \
Questions about recent developments, comparisons, and facts that need sources \
or several perspectives do.
When research is needed, propose 3 to 5 research questions that together \
answer the request. Each question is researched on its own, without the \
conversation: make it self-contained, naming every subject explicitly and \
stating the facts from the conversation it depends on, but no private details."""

FORCED_RESEARCH = (
    "Research is required for this request: set needs_research and propose a "
    "plan even if the request looks simple."
)

REVISE_PLAN = """\
Current plan:
{plan}
Revise the plan according to this request from the user: {edit}"""

RESEARCH_PROMPT = """\
You research one question on the web with the web_search tool. Call \
web_search with short keyword queries, several at once when they cover \
different angles. After each round of results, search again only if \
important parts of the question are still open, and work around failed \
searches with other queries; otherwise call no tool. Rounds of searches left: \
{rounds_left}."""

REPORT_PROMPT = """\
Write a research report that answers the user's request, using only the \
search results below; do not add facts from your own knowledge. Put the \
number of the source that supports a claim in square brackets right after it, \
like [3]. Cover every research question; when the results do not answer a \
question, say plainly that it remains unanswered. Write in Markdown.

Research questions and search results:

{findings}"""

ANSWER_PROMPT = """\
You are a helpful assistant. Answer the user's latest request directly and \
concisely. When one of your functions can answer it, call it; when function \
results arrive, answer with them."""

NEEDS_WEB_SEARCH = """\
This question needs research on the web, but web search is off for this \
request. Turn on Web search and ask again to start the research. The plan \
would research:

{plan}"""

_NO_RESULTS = "(no results)"
_DEFAULT_REFUSAL = "I can't help with that request."


class DeepResearchSettings(ClientSettings):
    """Public runtime settings of `deep-research` (sent with every request)."""

    review_plan: bool = Field(
        default=True,
        title="Review plan",
        description=(
            "Pause with the research plan before any research starts, so you can "
            "start it, answer directly instead, or edit the plan."
        ),
    )
    research_rounds: int = Field(
        default=2,
        ge=1,
        le=5,
        title="Research rounds",
        description=(
            "How many rounds of parallel web searches each researcher may run "
            "before the report is written."
        ),
    )


@dataclass(frozen=True, slots=True)
class DeepResearchContext:
    """The graph's runtime context: the request's settings and tool choices.

    Each request (the answer to a review included) builds its own context, so
    web search, tools and settings always come from the request being run.

    Attributes:
        settings: The validated runtime settings.
        web_search: Whether the request selected `web_search`.
        tools: The client's functions as OpenAI (Chat Completions format) tool
            dicts, for `bind_tools`.
        tool_choice: `None`, `"auto"`, `"none"` or `"required"`.
        function_choice: The client function a named `tool_choice` forces.
        parallel_tool_calls: `False` limits an answer to one function call.
        file_cache: The run's attachment downloads (a fresh cache per request).

    """

    settings: DeepResearchSettings = field(default_factory=DeepResearchSettings)
    web_search: bool = False
    tools: tuple[dict[str, Any], ...] = ()
    tool_choice: Literal["auto", "none", "required"] | None = None
    function_choice: str | None = None
    parallel_tool_calls: bool | None = None
    file_cache: FileCache = field(default_factory=FileCache, compare=False, repr=False)

    @property
    def answers_directly(self) -> bool:
        """`tool_choice` is `"none"` or names a function: skip triage."""
        return self.tool_choice == "none" or self.function_choice is not None

    @property
    def forces_research(self) -> bool:
        """`"required"` with only `web_search` selected: research anything."""
        return self.tool_choice == "required" and self.web_search and not self.tools


def deep_research_context(
    request: GraphRequest, settings: ClientSettings | None
) -> DeepResearchContext:
    """Build the runtime context from a request (`GraphConfig.context_factory`)."""
    tools = []
    for tool in request.tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description or "",
            "parameters": dict(tool.parameters or {"type": "object", "properties": {}}),
        }
        if tool.strict is not None:
            function["strict"] = tool.strict
        tools.append({"type": "function", "function": function})
    choice = request.tool_choice
    return DeepResearchContext(
        settings=(
            settings
            if isinstance(settings, DeepResearchSettings)
            else DeepResearchSettings()
        ),
        web_search="web_search" in request.server_tools,
        tools=tuple(tools),
        tool_choice=choice if isinstance(choice, str) else None,
        function_choice=(
            choice.name if isinstance(choice, NamedFunctionToolChoice) else None
        ),
        parallel_tool_calls=request.parallel_tool_calls,
    )


class TriageDecision(BaseModel):
    """The triage step's private structured output."""

    needs_research: bool = Field(
        description="Whether answering the request needs research on the web."
    )
    questions: list[str] = Field(
        description=(
            "3 to 5 self-contained research questions when research is needed, "
            "else an empty list."
        )
    )


class Finding(TypedDict):
    """What one researcher reports back: its question and its searches."""

    index: int
    question: str
    call_ids: list[str]


class DeepResearchState(MessagesState):
    """The root graph's state.

    Attributes:
        plan: The research questions ([] when the request gets a direct
            answer).
        refusal: The triage model's refusal, if it refused.
        findings: One `Finding` per finished researcher.

    """

    plan: list[str]
    refusal: str | None
    findings: Annotated[list[Finding], operator.add]


class _ScopeInput(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


class _ScopeOutput(TypedDict):
    plan: list[str]
    refusal: str | None


class _ScopeState(_ScopeInput, _ScopeOutput):
    edit: str | None
    review: Literal["start", "answer", "again", "edit"] | None


class _ResearcherInput(TypedDict):
    index: int
    question: str


class _ResearcherOutput(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    findings: Annotated[list[Finding], operator.add]


class _ResearcherState(_ResearcherInput, _ResearcherOutput):
    pass


DeepResearchGraph = CompiledStateGraph[
    DeepResearchState, DeepResearchContext, DeepResearchState, DeepResearchState
]
"""The compiled `deep-research` graph type."""


def numbered(questions: Sequence[str]) -> str:
    """Return the questions numbered, one per line: `1. ...`."""
    return "\n".join(f"{n}. {q}" for n, q in enumerate(questions, start=1))


def review_question(plan: Sequence[str]) -> str:
    """Return the question the plan review asks, listing the plan."""
    return (
        f"I plan to research these questions:\n\n{numbered(plan)}\n\n"
        f"Reply {START_RESEARCH} to begin, {ANSWER_NOW} to get a direct answer "
        "without research, or describe how to change the plan."
    )


def _is_search_history(message: BaseMessage) -> bool:
    """Tell whether a message is a replayed search or one of this run's."""
    if isinstance(message, ToolMessage):
        return message.name == "web_search"
    if not isinstance(message, AIMessage):
        return False
    if message.tool_calls:
        return all(call["name"] == "web_search" for call in message.tool_calls)
    content = message.content
    return (
        isinstance(content, list)
        and bool(content)
        and all(
            isinstance(b, dict) and b.get("type") == "web_search_call" for b in content
        )
    )


def conversation(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Return the conversation without web-search activity (triage, answer)."""
    return [m for m in messages if not _is_search_history(m)]


def _user_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Return the client's instructions and the user's messages (report)."""
    return [m for m in messages if isinstance(m, HumanMessage | SystemMessage)]


def _refusal_text(message: Any) -> str | None:
    if not isinstance(message, AIMessage):
        return None
    if isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, dict) and block.get("type") == "refusal":
                return str(block.get("refusal") or "").strip() or _DEFAULT_REFUSAL
    refusal = message.additional_kwargs.get("refusal")
    return str(refusal) if refusal else None


def _call_id(*parts: object) -> str:
    return "call_" + hashlib.sha256(repr(parts).encode()).hexdigest()[:24]


def _ensure_ids(reply: AIMessage, *parts: object) -> AIMessage:
    """Give tool calls without an ID one (LGOS needs an ID per public call)."""
    if all(call.get("id") for call in reply.tool_calls):
        return reply
    calls = [
        {**call, "id": call.get("id") or _call_id(*parts, index)}
        for index, call in enumerate(reply.tool_calls)
    ]
    return reply.model_copy(update={"tool_calls": calls})


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
    private: RunnableConfig = {"tags": [TAG_NOSTREAM]}
    triage_model = model.with_structured_output(TriageDecision, include_raw=True)

    # ----------------------------------------------------------------- scope
    async def triage(
        state: _ScopeState, runtime: Runtime[DeepResearchContext]
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
            latest = next(
                (m for m in reversed(messages) if isinstance(m, HumanMessage)), None
            )
            plan = [str(latest.text) if latest is not None else "The request"]
        if not (decision.needs_research or context.forces_research):
            plan = []
        return {"plan": plan, "refusal": None, "edit": None, "review": None}

    def after_triage(state: _ScopeState, runtime: Runtime[DeepResearchContext]) -> str:
        context = runtime.context or DeepResearchContext()
        reviewing = context.settings.review_plan and context.web_search
        return "review" if state.get("plan") and reviewing else END

    def review(state: _ScopeState) -> dict[str, Any]:
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

    def after_review(state: _ScopeState) -> str:
        outcome = state.get("review")
        if outcome == "edit":
            return "triage"
        if outcome == "again":
            return "review"
        return END

    scope_builder = StateGraph(
        _ScopeState,
        context_schema=DeepResearchContext,
        input_schema=_ScopeInput,
        output_schema=_ScopeOutput,
    )
    scope_builder.add_node("triage", triage)
    scope_builder.add_node("review", review)
    scope_builder.add_edge(START, "triage")
    scope_builder.add_conditional_edges("triage", after_triage, ["review", END])
    scope_builder.add_conditional_edges(
        "review", after_review, ["triage", "review", END]
    )
    scope = scope_builder.compile(name="scope")

    # ------------------------------------------------------------ researcher
    async def search_step(
        state: _ResearcherState, runtime: Runtime[DeepResearchContext]
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
        if calls != reply.tool_calls:
            reply = reply.model_copy(
                update={"tool_calls": calls, "invalid_tool_calls": []}
            )
        reply = _ensure_ids(reply, state["question"], rounds)
        write = get_stream_writer()
        for call in reply.tool_calls:
            query = str(call["args"].get("query", "")).strip()
            write(status_event(f"Searching the web: {query}"))
        return {"messages": [reply]}

    def after_search(state: _ResearcherState) -> str:
        messages = state.get("messages", [])
        last = messages[-1] if messages else None
        if state.get("findings") or not isinstance(last, AIMessage):
            return END
        return "tools" if last.tool_calls else END

    researcher_builder = StateGraph(
        _ResearcherState,
        context_schema=DeepResearchContext,
        input_schema=_ResearcherInput,
        output_schema=_ResearcherOutput,
    )
    researcher_builder.add_node("search", search_step)
    researcher_builder.add_node("tools", ToolNode([search], handle_tool_errors=True))
    researcher_builder.add_edge(START, "search")
    researcher_builder.add_conditional_edges("search", after_search, ["tools", END])
    researcher_builder.add_edge("tools", "search")
    researcher = researcher_builder.compile(name="researcher")

    # ------------------------------------------------------------------ root
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
            Send("researcher", _ResearcherInput(index=index, question=question))
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
        reply = await model.ainvoke(prompt)
        return {"messages": [with_citations(reply, sources)]}

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
        if context.tools:
            options: dict[str, Any] = {}
            if context.parallel_tool_calls is not None:
                options["parallel_tool_calls"] = context.parallel_tool_calls
            choice = context.function_choice or context.tool_choice
            writer = model.bind_tools(
                list(context.tools), tool_choice=choice, **options
            )
            reply = await writer.ainvoke(messages)
        else:
            reply = await model.ainvoke(messages)
        assert isinstance(reply, AIMessage)
        calls = list(reply.tool_calls)
        if context.tool_choice == "none" or not context.tools:
            calls = []
        elif context.parallel_tool_calls is False:
            calls = calls[:1]
        if calls != reply.tool_calls:
            reply = reply.model_copy(
                update={"tool_calls": calls, "invalid_tool_calls": []}
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
        from lgos_demo_api.graphs.deep_research_offline import offline_research_model

        model = offline_research_model(chunk_delay=settings.offline_chunk_delay)
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
