"""Read the answer ``AIMessage`` into the parts both APIs encode.

The final ``AIMessage`` is canonical: its text, refusal, citations, tool calls
and completion state are read once here; the Responses and Chat encoders only
change their shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage

from langgraph_openai_serve.api.messages import tool_call_arguments
from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.citations import citation_slice

__all__ = ["Answer", "Citation", "ToolCallOut", "read_answer"]

# LangChain's standard citation block and OpenAI's native annotation.
_CITATION_TYPES = frozenset({"citation", "url_citation"})
_INCOMPLETE_FINISH = {"length": "max_output_tokens", "content_filter": "content_filter"}
_INCOMPLETE_REASONS = frozenset({"max_output_tokens", "content_filter"})


@dataclass(frozen=True, slots=True)
class Citation:
    """A ``url_citation`` over the final text; ``end_index`` is inclusive."""

    url: str
    title: str
    start_index: int
    end_index: int


@dataclass(frozen=True, slots=True)
class ToolCallOut:
    """A tool call of the answer; ``complete`` is False for truncated arguments."""

    call_id: str
    name: str
    arguments: str
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Answer:
    """What the graph answered.

    Attributes:
        text: The assistant text (``AIMessage.text``).
        refusal: Refusal explanation, or None.
        citations: URL citations with absolute, inclusive spans over ``text``.
        tool_calls: Client tool calls, in order.
        incomplete_reason: ``"max_output_tokens"`` or ``"content_filter"`` when
            the model stopped early, else None.

    """

    text: str
    refusal: str | None
    citations: tuple[Citation, ...]
    tool_calls: tuple[ToolCallOut, ...]
    incomplete_reason: str | None


def _citations(message: AIMessage, text: str) -> tuple[Citation, ...]:
    if isinstance(message.content, str):
        return ()
    citations: list[Citation] = []
    offset = 0
    for block in message.content:
        if isinstance(block, str):
            offset += len(block)
            continue
        if block.get("type") != "text" or not isinstance(block.get("text"), str):
            continue
        block_text: str = block["text"]
        for annotation in block.get("annotations") or ():
            if not isinstance(annotation, dict):
                continue
            if annotation.get("type") not in _CITATION_TYPES:
                continue
            citations.append(_citation(annotation, block_text, offset, text))
        offset += len(block_text)
    return tuple(citations)


def _citation(
    annotation: dict[str, Any], block: str, offset: int, text: str
) -> Citation:
    url = annotation.get("url")
    start, end = annotation.get("start_index"), annotation.get("end_index")
    if not isinstance(url, str) or not url:
        msg = "A citation needs a url."
        raise GraphError(msg)
    if not isinstance(start, int) or not isinstance(end, int):
        msg = f"The citation of {url} needs integer start_index and end_index."
        raise GraphError(msg)
    span = citation_slice(start, end, block)
    cited = annotation.get("cited_text")
    if cited is not None and block[span] != cited:
        msg = f"The citation of {url} does not cover its cited_text {cited!r}."
        raise GraphError(msg)
    absolute = Citation(
        url=url,
        title=str(annotation.get("title") or url),
        start_index=offset + start,
        end_index=offset + end,
    )
    citation_slice(absolute.start_index, absolute.end_index, text)
    return absolute


def _refusal(message: AIMessage) -> str | None:
    parts: list[str] = []
    if not isinstance(message.content, str):
        for block in message.content:
            if (
                isinstance(block, dict)
                and block.get("type") == "refusal"
                and isinstance(refusal := block.get("refusal"), str)
            ):
                parts.append(refusal)
    if not parts and isinstance(
        refusal := message.additional_kwargs.get("refusal"), str
    ):
        parts.append(refusal)
    return "".join(parts) or None


def _incomplete_reason(message: AIMessage) -> str | None:
    metadata = message.response_metadata
    details = metadata.get("incomplete_details")
    if isinstance(details, dict) and details.get("reason") in _INCOMPLETE_REASONS:
        return details["reason"]
    return _INCOMPLETE_FINISH.get(metadata.get("finish_reason"))  # type: ignore[arg-type]


def _tool_calls(message: AIMessage) -> tuple[ToolCallOut, ...]:
    calls: list[ToolCallOut] = []
    for call in message.tool_calls:
        if not call.get("id"):
            msg = "Final AIMessage tool calls must have an id."
            raise GraphError(msg)
        calls.append(
            ToolCallOut(call["id"], call["name"], tool_call_arguments(call["args"]))  # type: ignore[arg-type]
        )
    for invalid in message.invalid_tool_calls:
        call_id, name = invalid.get("id"), invalid.get("name")
        if not call_id or not name:
            continue
        raw = invalid.get("args")
        arguments = raw if isinstance(raw, str) else json.dumps(raw)
        calls.append(ToolCallOut(call_id, name, arguments, complete=False))
    return tuple(calls)


def read_answer(message: AIMessage) -> Answer:
    """Read text, refusal, citations, tool calls and completion state.

    Raises:
        GraphError: A tool call without an ID, or a citation without a URL,
            with a span outside its text block, or whose ``cited_text``
            differs from the span.

    """
    text = message.text
    return Answer(
        text=text,
        refusal=_refusal(message),
        citations=_citations(message, text),
        tool_calls=_tool_calls(message),
        incomplete_reason=_incomplete_reason(message),
    )
