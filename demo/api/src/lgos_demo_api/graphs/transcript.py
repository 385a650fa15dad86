"""Reading a conversation: what the demo graphs and their offline scripts look up.

The graphs and the offline stand-ins for a model all read the same few
things from a list of LangChain messages: the latest user message (with or
without its attachments) and what came after it, the system prompt, the tool
calls by ID, the tool results that end the conversation, and
`web_search_call` items replayed from earlier turns.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)

from lgos_demo_api.attachments import own_text

__all__ = [
    "is_replayed_web_search",
    "latest_human",
    "latest_typed_text",
    "latest_user_text",
    "system_text",
    "this_turn",
    "tool_calls_by_id",
    "trailing_tool_results",
]


def latest_human(messages: Sequence[BaseMessage]) -> HumanMessage | None:
    """Return the latest user message, or None when there is none."""
    return next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)


def latest_user_text(messages: Sequence[BaseMessage]) -> str:
    """Return the latest user message's text (attachments included), or ""."""
    human = latest_human(messages)
    return str(human.text) if human is not None else ""


def latest_typed_text(messages: Sequence[BaseMessage]) -> str:
    """Return what the user typed last: no attachments, whitespace folded, or ""."""
    human = latest_human(messages)
    return " ".join(own_text(human).split()) if human is not None else ""


def system_text(messages: Sequence[BaseMessage]) -> str:
    """Return the text of every system message, one per line."""
    return "\n".join(str(m.text) for m in messages if isinstance(m, SystemMessage))


def this_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Return the messages after the latest user message (all without one)."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return list(messages[index + 1 :])
    return list(messages)


def tool_calls_by_id(messages: Sequence[BaseMessage]) -> dict[str, ToolCall]:
    """Return every tool call the AI messages made, by its ID."""
    return {
        call["id"]: call
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["id"] is not None
    }


def trailing_tool_results(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """Return the tool results that end the conversation, in order."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.insert(0, message)
    return results


def is_replayed_web_search(message: BaseMessage) -> bool:
    """Tell whether a message only holds `web_search_call` items of an earlier turn.

    LGOS hands a client's replayed `web_search_call` items to the graph as an
    `AIMessage` whose content lists them; a model cannot replay those.
    """
    return (
        isinstance(message, AIMessage)
        and not message.tool_calls
        and isinstance(message.content, list)
        and bool(message.content)
        and all(
            isinstance(b, dict) and b.get("type") == "web_search_call"
            for b in message.content
        )
    )
