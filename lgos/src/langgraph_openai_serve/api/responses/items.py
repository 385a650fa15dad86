"""Responses output items and content parts, shared by JSON and SSE encoding.

Shapes follow OpenAI's ``OutputMessage``, ``FunctionToolCall``,
``WebSearchToolCall``, ``CustomToolCall`` and ``CustomToolCallOutput``.
"""

from __future__ import annotations

from typing import Any

from langgraph_openai_serve.api.answer import Answer, Citation, ToolCallOut
from langgraph_openai_serve.graph.server_tools import (
    WEB_SEARCH,
    ServerToolCall,
    ServerToolResult,
)
from langgraph_openai_serve.ids import new_id

__all__ = [
    "ServerToolItems",
    "answer_items",
    "answer_status",
    "function_call_item",
    "message_item",
    "needs_message",
    "refusal_part",
    "text_part",
    "url_citation",
]


def url_citation(citation: Citation) -> dict[str, Any]:
    """Return a ``url_citation`` annotation (inclusive-exclusive indices)."""
    return {
        "type": "url_citation",
        "url": citation.url,
        "title": citation.title,
        "start_index": citation.start_index,
        "end_index": citation.end_index,
    }


def text_part(text: str, citations: tuple[Citation, ...] = ()) -> dict[str, Any]:
    """Return an ``output_text`` content part with its citations."""
    return {
        "type": "output_text",
        "text": text,
        "annotations": [url_citation(citation) for citation in citations],
        "logprobs": [],
    }


def refusal_part(refusal: str) -> dict[str, Any]:
    """Return a ``refusal`` content part."""
    return {"type": "refusal", "refusal": refusal}


def message_item(status: str, phase: str) -> dict[str, Any]:
    """Return an empty assistant ``message`` item in ``phase`` (final or commentary)."""
    return {
        "id": new_id("msg"),
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": [],
        "phase": phase,
    }


def function_call_item(call: ToolCallOut) -> dict[str, Any]:
    """Return a ``function_call`` item; ``incomplete`` if its arguments were cut off."""
    return {
        "id": new_id("fc"),
        "type": "function_call",
        "status": "completed" if call.complete else "incomplete",
        "call_id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
    }


def _server_call_item(call: ServerToolCall) -> dict[str, Any]:
    if call.name == WEB_SEARCH:
        return {
            "id": new_id("ws"),
            "type": "web_search_call",
            "status": "in_progress",
            "action": {"type": "search", "query": call.input, "queries": [call.input]},
        }
    return {
        "id": new_id("ctc"),
        "type": "custom_tool_call",
        "status": "completed",
        "call_id": call.call_id,
        "name": call.name,
        "input": call.input,
    }


def _custom_output_item(result: ServerToolResult) -> dict[str, Any]:
    return {
        "id": new_id("ctco"),
        "type": "custom_tool_call_output",
        "status": "completed",
        "call_id": result.call_id,
        "output": result.output,
    }


class ServerToolItems:
    """Output items of server-tool activity, shared by JSON and SSE encoding.

    A custom call becomes a ``custom_tool_call`` item and its result a
    ``custom_tool_call_output`` item; a search becomes one ``web_search_call``
    item completed (or failed) by its result. Backend payloads stay private.
    """

    def __init__(self, output: list[dict[str, Any]]) -> None:
        self._output = output
        self._searches: dict[str, int] = {}

    def call(self, call: ServerToolCall) -> int:
        """Append the call's item; return its output index."""
        index = len(self._output)
        self._output.append(_server_call_item(call))
        if call.name == WEB_SEARCH:
            self._searches[call.call_id] = index
        return index

    def result(self, result: ServerToolResult) -> int:
        """Record a result: complete the search item, or append the output item.

        Returns:
            The output index of the item that changed or was added.

        """
        if result.name == WEB_SEARCH:
            index = self._searches[result.call_id]
            self._output[index]["status"] = "failed" if result.failed else "completed"
            return index
        self._output.append(_custom_output_item(result))
        return len(self._output) - 1


def needs_message(answer: Answer) -> bool:
    """Whether the answer has a message item (text, a refusal, or no calls)."""
    return bool(answer.text or answer.refusal or not answer.tool_calls)


def answer_status(answer: Answer) -> str:
    """``incomplete`` when the model stopped early, else ``completed``."""
    return "incomplete" if answer.incomplete_reason else "completed"


def answer_items(answer: Answer) -> list[dict[str, Any]]:
    """Return the output items for a complete (non-streamed) answer."""
    items: list[dict[str, Any]] = []
    if needs_message(answer):
        item = message_item(answer_status(answer), "final_answer")
        if answer.text or not answer.refusal:
            item["content"].append(text_part(answer.text, answer.citations))
        if answer.refusal:
            item["content"].append(refusal_part(answer.refusal))
        items.append(item)
    items.extend(function_call_item(call) for call in answer.tool_calls)
    return items
