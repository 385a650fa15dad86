"""The offline model's script for `server-tools`: selection and answer.

`offline_server_tools_model()` is an `OfflineChatModel` that tells the two
steps apart by the system prompt and plays each deterministically:
`select_responder` decides from the question which selected tools to call,
`answer_responder` summarises their results, citing search sources by
number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
)

from langgraph_openai_serve.graph.server_tools import tool_message_output
from lgos_demo_api.graphs.server_tools_prompts import SELECT_PROMPT
from lgos_demo_api.graphs.tool_calls import call_id
from lgos_demo_api.graphs.transcript import (
    latest_user_text,
    system_text,
    this_turn,
    tool_calls_by_id,
)
from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.search.citing import parse_sources
from lgos_demo_api.search.queries import keyword_query

__all__ = [
    "answer_responder",
    "no_tool_reply",
    "offline_server_tools_model",
    "select_responder",
]


_KNOWN_PACKAGES = (
    "langgraph-openai-serve",
    "langgraph",
    "langchain-core",
    "langchain-openai",
    "openai",
    "pydantic",
    "fastapi",
    "starlette",
    "httpx",
    "uvicorn",
    "chainlit",
    "bm25s",
    "markdown",
    "numpy",
)
_SEARCH_WORDS = ("search", "web", "latest", "news", "look up", "find")
_VERSION_WORDS = ("version", "installed", "package")
_TOPOLOGY_WORDS = ("topology", "mermaid", "nodes", "edges", "diagram")
_TOOL_HINTS: dict[str, tuple[str, str, str]] = {
    "lgos_package_version": (
        "lgos_package_version",
        "a package version",
        "“Which pydantic version is installed?”",
    ),
    "lgos_graph_topology": (
        "lgos_graph_topology",
        "a graph topology",
        "“Show the deep-research topology”",
    ),
    "web_search": ("Web search", "a search", "“Search: LangGraph streaming”"),
}
"""Per server tool: the demo UI's switch label, what to ask, an example."""


def _tool_names(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    return [
        tool["function"]["name"] if "function" in tool else str(tool.get("name"))
        for tool in tools
    ]


def _search_queries(question: str) -> list[str]:
    """`search: a, b` searches each listed query; otherwise the keywords."""
    match = re.search(r"search(?: for)?\s*:\s*(.+)$", question, re.IGNORECASE)
    if match:
        queries = [q.strip() for q in match.group(1).split(",") if q.strip()]
        if queries:
            return queries
    keywords = keyword_query(question)
    return [keywords or question.strip() or "LGOS"]


def _listed(words: Sequence[str], last: str) -> str:
    """Join words as `a`, `a or b`, `a, b or c` (`last` is the conjunction)."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def no_tool_reply(selected: Sequence[str]) -> str:
    """Say why no tool ran, naming the switches of the demo UI's chat settings.

    Args:
        selected: The names of the server tools the request selected.

    Returns:
        With none selected: which switches to turn on and what to ask. With
        some selected: what to ask each of them for (with an example), and
        which switches are still off.

    """
    on = [name for name in _TOOL_HINTS if name in selected]
    off = [name for name in _TOOL_HINTS if name not in on]
    if not on:
        labels = _listed([_TOOL_HINTS[n][0] for n in off], "or")
        asks = _listed([_TOOL_HINTS[n][1] for n in off], "or")
        return (
            "This is the offline demo model. No tool ran: none is selected. Turn "
            f"on {labels} in the chat settings (a request selects them in its "
            f"tools), then ask for {asks}."
        )
    labels = _listed([_TOOL_HINTS[n][0] for n in on], "and")
    asks = _listed([f"{_TOOL_HINTS[n][1]} ({_TOOL_HINTS[n][2]})" for n in on], "or")
    reply = (
        "This is the offline demo model. No tool ran for this message. With "
        f"{labels} on, ask for {asks}."
    )
    if off:
        rest = _listed([_TOOL_HINTS[n][0] for n in off], "and")
        verb, pronoun = ("is", "it") if len(off) == 1 else ("are", "them")
        reply += f" {rest} {verb} off: turn {pronoun} on in the chat settings."
    return reply


def _packages_in(question: str) -> str:
    lowered = question.lower().replace(" ", "-")
    found = [name for name in _KNOWN_PACKAGES if name in lowered]
    # "langgraph-openai-serve" contains "langgraph" and "openai": keep the longest.
    found = [n for n in found if not any(n != o and n in o for o in found)]
    return ", ".join(found) or "langgraph-openai-serve"


def select_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Play the private tool selection, deterministically.

    From the latest user message: `lgos_package_version` when it mentions a
    version, installed package or package (with the known package names it
    names, else `langgraph-openai-serve`); `lgos_graph_topology` when it
    mentions a topology, Mermaid, nodes, edges or a diagram (with
    `deep-research` when named, else `server-tools`); `web_search` when it
    asks to search or find something (`search: a, b` runs one search per
    listed query, in parallel; otherwise one search for its keywords).
    `tool_choice="required"` with no match calls the first selected tool; a
    named custom tool is always called.
    """
    offered = _tool_names(tools)
    question = latest_user_text(messages)
    lowered = question.lower()
    turn = str(len(messages))
    wanted: list[str] = []
    if "lgos_package_version" in offered and any(w in lowered for w in _VERSION_WORDS):
        wanted.append("lgos_package_version")
    if "lgos_graph_topology" in offered and any(w in lowered for w in _TOPOLOGY_WORDS):
        wanted.append("lgos_graph_topology")
    if "web_search" in offered and any(w in lowered for w in _SEARCH_WORDS):
        wanted.append("web_search")
    if isinstance(tool_choice, dict) and tool_choice.get("name") in offered:
        wanted = [str(tool_choice["name"])]
    elif tool_choice in ("required", "any", True) and not wanted and offered:
        wanted = [offered[0]]
    calls: list[dict[str, Any]] = []
    for name in wanted:
        if name == "lgos_package_version":
            value = _packages_in(question)
            calls.append(
                {
                    "name": name,
                    "args": {"__arg1": value},
                    "id": call_id(turn, name, sep="|"),
                }
            )
        elif name == "lgos_graph_topology":
            value = "deep-research" if "deep-research" in lowered else "server-tools"
            calls.append(
                {
                    "name": name,
                    "args": {"__arg1": value},
                    "id": call_id(turn, name, sep="|"),
                }
            )
        else:
            for index, query in enumerate(_search_queries(question)):
                calls.append(
                    {
                        "name": name,
                        "args": {"query": query},
                        "id": call_id(turn, name, index, query, sep="|"),
                    }
                )
    return AIMessage(content="", tool_calls=calls)


def answer_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Play the answer, deterministically, from this turn's tool results.

    One sentence per custom tool result, one per search (its numbered sources
    as `<title> [n]`, or its failure), or — without any tool result — a hint
    at the switches to turn on and what to ask (`no_tool_reply`; the answer
    step binds the selected tools, so `tools` names them).
    """
    system = system_text(messages)
    numbers = {url: n for n, (_, url) in parse_sources(system).items()}
    turn = this_turn([m for m in messages if not isinstance(m, SystemMessage)])
    calls = tool_calls_by_id(turn)
    sentences: list[str] = []
    for message in turn:
        if not isinstance(message, ToolMessage):
            continue
        call = calls.get(message.tool_call_id)
        name = message.name or (call["name"] if call else "tool")
        output = " ".join(tool_message_output(message).split())
        if name == "web_search":
            query = call["args"].get("query", "") if call else ""
            if message.status == "error":
                sentences.append(f"The search for {query!r} failed ({output}).")
                continue
            artifact = message.artifact if isinstance(message.artifact, dict) else {}
            cited = [
                f"{source['title']} [{numbers[source['url']]}]"
                for source in artifact.get("sources") or []
                if source.get("url") in numbers
            ][:3]
            if cited:
                sentences.append(
                    f"Searching for {query!r} found " + "; ".join(cited) + "."
                )
            else:
                sentences.append(f"Searching for {query!r} found nothing.")
        elif name == "lgos_graph_topology":
            lines = output.count("-->") + output.count("-.->")
            sentences.append(f"{name} returned a Mermaid chart with {lines} edges.")
        else:
            sentences.append(f"{name} says: {output}.")
    if not sentences:
        return no_tool_reply(_tool_names(tools))
    return "This is the offline demo model. " + " ".join(sentences)


def offline_server_tools_model(chunk_delay: float = 0.0) -> OfflineChatModel:
    """Build the offline model playing both steps (selection and answer)."""

    def responder(
        messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
    ) -> AIMessage | str:
        system = next(
            (str(m.text) for m in messages if isinstance(m, SystemMessage)), ""
        )
        if system.startswith(SELECT_PROMPT[:40]):
            return select_responder(messages, tools, tool_choice)
        return answer_responder(messages, tools, tool_choice)

    return OfflineChatModel(chunk_delay=chunk_delay, responder=responder)
