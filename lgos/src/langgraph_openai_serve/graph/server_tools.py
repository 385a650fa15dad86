"""Server-tool activity read from a run's root-graph ``updates``.

When a request selects server tools, the runner also consumes LangGraph's
root ``updates``: an ``AIMessage`` tool call of a selected tool is a public
call, and the ``ToolMessage`` answering it is its result. Calls of tools the
request did not select, nested (subgraph) updates and other state stay
private.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from langgraph_openai_serve.errors import GraphError

__all__ = [
    "WEB_SEARCH",
    "ServerToolCall",
    "ServerToolResult",
    "ServerToolTracker",
    "WebSource",
    "custom_tool_input",
    "tool_message_output",
]

WEB_SEARCH = "web_search"
"""The built-in server tool name (Responses ``{"type": "web_search"}``)."""


@dataclass(frozen=True, slots=True)
class WebSource:
    """A web page a search returned: its exact URL and title."""

    url: str
    title: str


@dataclass(frozen=True, slots=True)
class ServerToolCall:
    """A selected server tool was called.

    Attributes:
        call_id: The tool call ID (unique within the run).
        name: The tool name (``web_search`` or a registered custom tool).
        input: Free-form input of a custom tool; the query of a search.

    """

    call_id: str
    name: str
    input: str


@dataclass(frozen=True, slots=True)
class ServerToolResult:
    """The result of a public server tool call.

    Attributes:
        call_id: The call it answers.
        name: The tool name.
        output: The tool's text output.
        failed: Whether the tool reported an error.
        sources: For ``web_search``: the pages returned (kept private on the
            wire; graphs cite them).

    """

    call_id: str
    name: str
    output: str
    failed: bool = False
    sources: tuple[WebSource, ...] = ()


def custom_tool_input(args: Mapping[str, Any]) -> str:
    """Return the free-form input of a custom tool call.

    LangChain passes a custom tool's string input as its single argument
    (``{"__arg1": "..."}`` or one named string field); anything else is
    rendered as JSON.
    """
    if len(args) == 1:
        (value,) = args.values()
        if isinstance(value, str):
            return value
    return json.dumps(dict(args), ensure_ascii=False, separators=(",", ":"))


def tool_message_output(message: ToolMessage) -> str:
    """Return a ToolMessage's output text (custom-tool output blocks included)."""
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            value = block.get("output", block.get("text"))
            if isinstance(value, str):
                parts.append(value)
    return "".join(parts)


def _sources(message: ToolMessage) -> tuple[WebSource, ...]:
    artifact = message.artifact
    items = artifact.get("sources") if isinstance(artifact, Mapping) else artifact
    if not isinstance(items, Sequence) or isinstance(items, str):
        return ()
    sources = []
    for item in items:
        url = (
            item.get("url") if isinstance(item, Mapping) else getattr(item, "url", None)
        )
        if isinstance(url, str) and url:
            title = (
                item.get("title")
                if isinstance(item, Mapping)
                else getattr(item, "title", None)
            )
            sources.append(WebSource(url, str(title or url)))
    return tuple(sources)


def _messages(update: Any) -> Iterator[BaseMessage]:
    if not isinstance(update, Mapping):
        return
    value = update.get("messages")
    if isinstance(value, BaseMessage):
        yield value
    elif isinstance(value, Sequence) and not isinstance(value, str):
        yield from (m for m in value if isinstance(m, BaseMessage))


class ServerToolTracker:
    """Turn root ``updates`` into public server-tool events, checking the rules.

    Rules (from the LGOS server-tool contract): each public call ID is emitted
    once; a selected call must have a result before the run completes.
    """

    def __init__(self, selected: Sequence[str]) -> None:
        self._selected = frozenset(selected)
        self._calls: dict[str, ServerToolCall] = {}
        self._answered: set[str] = set()

    def events(
        self, update: Mapping[str, Any]
    ) -> Iterator[ServerToolCall | ServerToolResult]:
        """Yield the public events of one root ``updates`` part's data.

        Raises:
            GraphError: A call ID repeats.

        """
        for node_update in update.values():
            for message in _messages(node_update):
                if isinstance(message, AIMessage):
                    yield from self._calls_of(message)
                elif isinstance(message, ToolMessage):
                    call = self._calls.get(message.tool_call_id)
                    if call is None or call.call_id in self._answered:
                        continue
                    self._answered.add(call.call_id)
                    yield ServerToolResult(
                        call_id=call.call_id,
                        name=call.name,
                        output=tool_message_output(message),
                        failed=message.status == "error",
                        sources=_sources(message) if call.name == WEB_SEARCH else (),
                    )

    def _calls_of(self, message: AIMessage) -> Iterator[ServerToolCall]:
        for tool_call in message.tool_calls:
            if tool_call["name"] not in self._selected:
                continue
            call_id = tool_call.get("id")
            if not call_id:
                msg = "Server tool calls must have an id."
                raise GraphError(msg)
            if call_id in self._calls:
                msg = f"The graph emitted the server tool call ID {call_id!r} twice."
                raise GraphError(msg)
            args = tool_call["args"]
            if tool_call["name"] == WEB_SEARCH:
                query = args.get("query")
                text = query if isinstance(query, str) else custom_tool_input(args)
            else:
                text = custom_tool_input(args)
            call = ServerToolCall(call_id, tool_call["name"], text)
            self._calls[call_id] = call
            yield call

    def check_complete(self) -> None:
        """Raise when a public call never got its result.

        Raises:
            GraphError: A selected call has no result.

        """
        if missing := set(self._calls) - self._answered:
            names = ", ".join(sorted(self._calls[c].name for c in missing))
            msg = f"Server tool calls finished without a result: {names}."
            raise GraphError(msg)
