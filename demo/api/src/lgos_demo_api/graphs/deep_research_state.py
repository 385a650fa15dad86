"""The `deep-research` graph's settings, runtime context and states.

The root graph's state is `DeepResearchState`; the two subgraphs have their
own input, output and working states (`Scope*`, `Researcher*`).
`deep_research_context` builds the runtime context from each request.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph import MessagesState
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field

from langgraph_openai_serve import (
    ClientSettings,
    GraphRequest,
    NamedFunctionToolChoice,
)
from lgos_demo_api.attachments import FileCache
from lgos_demo_api.files_client import files_tenant
from lgos_demo_api.graphs.tool_calls import function_tools

__all__ = [
    "DeepResearchContext",
    "DeepResearchSettings",
    "DeepResearchState",
    "Finding",
    "ResearcherInput",
    "ResearcherOutput",
    "ResearcherState",
    "ScopeInput",
    "ScopeOutput",
    "ScopeState",
    "TriageDecision",
    "deep_research_context",
]


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
        file_cache: The run's attachment downloads (a fresh cache per
            request, for the caller's tenant).

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
    choice = request.tool_choice
    return DeepResearchContext(
        settings=(
            settings
            if isinstance(settings, DeepResearchSettings)
            else DeepResearchSettings()
        ),
        web_search="web_search" in request.server_tools,
        tools=function_tools(request),
        tool_choice=choice if isinstance(choice, str) else None,
        function_choice=(
            choice.name if isinstance(choice, NamedFunctionToolChoice) else None
        ),
        parallel_tool_calls=request.parallel_tool_calls,
        file_cache=FileCache(tenant=files_tenant(request)),
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


class ScopeInput(TypedDict):
    """What the `scope` subgraph takes from the root: the conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


class ScopeOutput(TypedDict):
    """What `scope` hands back: the plan ([] for a direct answer) or a refusal."""

    plan: list[str]
    refusal: str | None


class ScopeState(ScopeInput, ScopeOutput):
    """The `scope` subgraph's state: a pending plan edit and the review's outcome."""

    edit: str | None
    review: Literal["start", "answer", "again", "edit"] | None


class ResearcherInput(TypedDict):
    """What one researcher gets (its `Send`): its question and its place."""

    index: int
    question: str


class ResearcherOutput(TypedDict):
    """What a researcher hands back: its searches and its `Finding`."""

    messages: Annotated[list[AnyMessage], add_messages]
    findings: Annotated[list[Finding], operator.add]


class ResearcherState(ResearcherInput, ResearcherOutput):
    """A researcher's state: its question, its searches so far, its finding."""
