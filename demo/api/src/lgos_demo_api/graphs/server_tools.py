"""The `server-tools` graph: tools the graph runs itself, reported natively.

A client selects tools per request with OpenAI's own declarations —
`{"type": "custom", "name": "lgos_package_version"}`,
`{"type": "custom", "name": "lgos_graph_topology"}`, `{"type": "web_search"}`
— and gets the calls, their results and the answer in one Response
(`custom_tool_call` + `custom_tool_call_output`, `web_search_call`).

Topology (an explicit `StateGraph`)::

    START -> select -> (tools ->) answer -> END

- `select` is private: it binds only the tools the request selected, once,
  with the request's `tool_choice` and `parallel_tool_calls`, and asks the
  model (tagged `TAG_NOSTREAM`) which to call.
- `tools` is LangGraph's prebuilt `ToolNode` (`handle_tool_errors=True`): it
  runs the calls, in parallel when there are several; a failing search becomes
  an error result (a `failed` `web_search_call`).
- `answer` streams the reply and cites the search results it used: sources
  are numbered in its prompt, and `[n]` markers become `url_citation`
  annotations computed in code.

The custom tools are LangChain `@custom_tool`s with free-form string input.
The prompts are in `server_tools_prompts`; the offline stand-in for the
model, `server_tools_offline`, decides from the question which selected
tools to call and summarises their results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.tools import BaseTool
from langchain_openai import custom_tool
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from langgraph_openai_serve import (
    ClientSettings,
    GraphConfig,
    GraphRequest,
    NamedCustomToolChoice,
)
from lgos_demo_api.graphs.server_tools_offline import offline_server_tools_model
from lgos_demo_api.graphs.server_tools_prompts import ANSWER_PROMPT, SELECT_PROMPT
from lgos_demo_api.graphs.tool_calls import with_tool_calls
from lgos_demo_api.graphs.transcript import is_replayed_web_search, this_turn
from lgos_demo_api.models import answered_by, chat_model, uses_offline_model
from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.search import (
    backend_label,
    search_backend,
    web_search_tool,
)
from lgos_demo_api.search.citing import format_sources, search_sources, with_citations
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "CUSTOM_TOOLS",
    "SERVER_TOOLS",
    "ServerToolsContext",
    "build_server_tools_graph",
    "graph_topology",
    "lgos_graph_topology",
    "lgos_package_version",
    "package_versions",
    "server_tools_context",
    "server_tools_graph_config",
]

_NO_SOURCES = "(none)"
_MAX_PACKAGES = 10
_PACKAGE_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")


def package_versions(text: str) -> str:
    """Report the installed version of each named distribution.

    Args:
        text: Package names separated by commas or whitespace (at most 10).

    Returns:
        One line per name: `name==1.2.3`, `name is not installed`, or
        `'name' is not a valid package name`.

    """
    names = [name for name in re.split(r"[,\s]+", text.strip()) if name]
    if not names:
        return "No package name given."
    lines = []
    for name in names[:_MAX_PACKAGES]:
        if not _PACKAGE_NAME.match(name):
            lines.append(f"{name!r} is not a valid package name")
            continue
        try:
            lines.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            lines.append(f"{name} is not installed")
    if len(names) > _MAX_PACKAGES:
        lines.append(f"(only the first {_MAX_PACKAGES} names were looked up)")
    return "\n".join(lines)


@custom_tool
def lgos_package_version(packages: str) -> str:
    """Return the installed version of Python packages on the LGOS server.

    Input: one or more distribution names separated by commas, for example
    `pydantic, langgraph`. Output: one line per package, `name==version` or
    `name is not installed`.
    """
    return package_versions(packages)


def graph_topology(model: str) -> str:
    """Draw a demo graph's LangGraph topology as Mermaid.

    Args:
        model: `server-tools` or `deep-research` (surrounding whitespace and
            quotes are ignored).

    Returns:
        `graph.get_graph(xray=True).draw_mermaid()` for that graph (built
        around the offline model; the model does not change the topology),
        or a note naming the models it knows.

    """
    from lgos_demo_api.graphs.deep_research import build_deep_research_graph
    from lgos_demo_api.search.corpus import Corpus, OfflineSearchBackend

    name = model.strip().strip("'\"`").strip()
    tool = web_search_tool(OfflineSearchBackend("http://corpus.invalid", Corpus([])))
    builders = {
        "server-tools": lambda: build_server_tools_graph(OfflineChatModel(), tool),
        "deep-research": lambda: build_deep_research_graph(OfflineChatModel(), tool),
    }
    build = builders.get(name)
    if build is None:
        known = ", ".join(builders)
        return f"Unknown model {name!r}. Topologies are available for: {known}."
    return build().get_graph(xray=True).draw_mermaid()


@custom_tool
def lgos_graph_topology(model: str) -> str:
    """Return the LangGraph topology of an LGOS demo model as a Mermaid chart.

    Input: the model name, `server-tools` or `deep-research`. Output: the
    Mermaid source of the graph with its subgraphs expanded.
    """
    return graph_topology(model)


CUSTOM_TOOLS: dict[str, BaseTool] = {
    "lgos_package_version": lgos_package_version,
    "lgos_graph_topology": lgos_graph_topology,
}
"""The graph's custom server tools, by public name."""

SERVER_TOOLS = frozenset({*CUSTOM_TOOLS, "web_search"})
"""Every server tool the graph allowlists."""


@dataclass(frozen=True, slots=True)
class ServerToolsContext:
    """The `server-tools` graph's runtime context, built from the request.

    Attributes:
        selected: The server tools the request selected, in request order.
        tool_choice: `None`, `"auto"`, `"none"`, `"required"`, or
            `{"type": "custom", "name": ...}` for a named custom tool.
        parallel_tool_calls: `False` limits the model to one call.

    """

    selected: tuple[str, ...] = ()
    tool_choice: str | dict[str, str] | None = None
    parallel_tool_calls: bool | None = None


def server_tools_context(
    request: GraphRequest, settings: ClientSettings | None = None
) -> ServerToolsContext:
    """Build the runtime context from a request (`GraphConfig.context_factory`).

    A named function choice names a client function, which this graph never
    calls, so it counts as `"none"`.
    """
    choice = request.tool_choice
    if isinstance(choice, NamedCustomToolChoice):
        tool_choice: str | dict[str, str] | None = {
            "type": "custom",
            "name": choice.name,
        }
    elif isinstance(choice, str) or choice is None:
        tool_choice = choice
    else:
        tool_choice = "none"
    return ServerToolsContext(
        tuple(request.server_tools), tool_choice, request.parallel_tool_calls
    )


ServerToolsGraph = CompiledStateGraph[
    MessagesState, ServerToolsContext, MessagesState, MessagesState
]


def _model_history(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Drop replayed `web_search_call` items: history the model cannot replay."""
    return [m for m in messages if not is_replayed_web_search(m)]


def build_server_tools_graph(
    model: BaseChatModel, search: BaseTool
) -> ServerToolsGraph:
    """Compile the `server-tools` graph.

    Args:
        model: The chat model for both the private selection and the answer.
        search: The `web_search` tool (see `lgos_demo_api.search`).

    Returns:
        The compiled graph, named `server-tools`, without a checkpointer.

    """
    tools: dict[str, BaseTool] = {**CUSTOM_TOOLS, "web_search": search}

    async def select(
        state: MessagesState, runtime: Runtime[ServerToolsContext]
    ) -> dict[str, Any]:
        context = runtime.context or ServerToolsContext()
        chosen = [tools[name] for name in context.selected if name in tools]
        if not chosen or context.tool_choice == "none":
            return {}
        options: dict[str, Any] = {}
        if context.tool_choice is not None:
            options["tool_choice"] = context.tool_choice
        if context.parallel_tool_calls is not None:
            options["parallel_tool_calls"] = context.parallel_tool_calls
        bound = model.bind_tools(chosen, **options)
        reply = await bound.ainvoke(
            [SystemMessage(SELECT_PROMPT), *_model_history(state["messages"])],
            config={"tags": [TAG_NOSTREAM]},
        )
        assert isinstance(reply, AIMessage)
        allowed = {tool.name for tool in chosen}
        calls = [call for call in reply.tool_calls if call["name"] in allowed]
        if context.parallel_tool_calls is False:
            calls = calls[:1]
        if not calls:
            return {}
        return {"messages": [with_tool_calls(reply, calls)]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1] if state["messages"] else None
        pending = isinstance(last, AIMessage) and bool(last.tool_calls)
        return "tools" if pending else "answer"

    async def answer(
        state: MessagesState, runtime: Runtime[ServerToolsContext]
    ) -> dict[str, Any]:
        context = runtime.context or ServerToolsContext()
        sources = search_sources(this_turn(state["messages"]))
        prompt = ANSWER_PROMPT.format(
            sources=format_sources(sources) if sources else _NO_SOURCES
        )
        chosen = [tools[name] for name in context.selected if name in tools]
        # The selected tools stay declared (never called) so a provider
        # accepts the calls and results in the history.
        writer = model.bind_tools(chosen, tool_choice="none") if chosen else model
        reply = await writer.ainvoke(
            [SystemMessage(prompt), *_model_history(state["messages"])]
        )
        assert isinstance(reply, AIMessage)
        reply = with_tool_calls(reply, [])
        return {"messages": [with_citations(reply, sources)]}

    builder = StateGraph(MessagesState, context_schema=ServerToolsContext)
    builder.add_node("select", select)
    builder.add_node("tools", ToolNode(list(tools.values()), handle_tool_errors=True))
    builder.add_node("answer", answer)
    builder.add_edge(START, "select")
    builder.add_conditional_edges("select", route, ["tools", "answer"])
    builder.add_edge("tools", "answer")
    builder.add_edge("answer", END)
    return builder.compile(name="server-tools")


def server_tools_graph_config(
    settings: DemoApiSettings,
    *,
    model: BaseChatModel | None = None,
    search: BaseTool | None = None,
) -> GraphConfig:
    """Register the `server-tools` graph.

    Args:
        settings: The demo settings: the model (`chat_model`, or the scripted
            offline model) and the web search backend.
        model: A chat model to use instead of the one the settings select.
        search: A `web_search` tool to use instead of the configured backend.

    Returns:
        A `GraphConfig` allowlisting `lgos_package_version`,
        `lgos_graph_topology` and `web_search`.

    """
    if model is None:
        model = (
            offline_server_tools_model(settings.offline_chunk_delay)
            if uses_offline_model(settings)
            else chat_model(settings)
        )
    if search is None:
        search = web_search_tool(
            search_backend(settings), max_results=settings.web_search_max_results
        )
    return GraphConfig(
        graph=build_server_tools_graph(model, search),
        description=(
            "Runs tools on the server and reports them as OpenAI items. Turn "
            "them on in the chat settings (a request selects them in its "
            "tools): lgos_package_version (installed package versions), "
            "lgos_graph_topology (a demo graph as Mermaid) and Web search "
            f"(over {backend_label(settings)}, with cited results). "
            f"{answered_by(settings)}"
        ),
        server_tools=SERVER_TOOLS,
        context_factory=server_tools_context,
    )
