"""Encode graph results as Responses objects and stream events.

Shapes follow OpenAI's OpenAPI document: ``Response``, ``OutputMessage``,
``FunctionToolCall`` and the ``ResponseStreamEvent`` union. Fields the schema
requires are always sent (``null`` where it allows null); optional fields
with non-null types are omitted rather than sent as ``null``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage

from langgraph_openai_serve.api.ids import new_id
from langgraph_openai_serve.api.messages import tool_call_arguments
from langgraph_openai_serve.api.responses.request import ResponseCreateRequest
from langgraph_openai_serve.api.runs import failure_message
from langgraph_openai_serve.api.sse import event_bytes
from langgraph_openai_serve.api.usage import response_usage
from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.runner import (
    PreparedRun,
    TextChunk,
    TextParity,
    stream_run,
)
from langgraph_openai_serve.graph.status import parse_status_event

__all__ = ["ResponseFrame", "collect_response", "stream_response"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class ResponseFrame:
    """The parts of a Response that do not depend on the graph's output.

    Attributes:
        request: The decoded request, echoed in the Response.
        response_id: ``resp_…``.
        created_at: Unix seconds.
        output: Output items so far, in ``output_index`` order.

    """

    request: ResponseCreateRequest
    response_id: str = field(default_factory=lambda: new_id("resp"))
    created_at: int = field(default_factory=lambda: int(time.time()))
    output: list[dict[str, Any]] = field(default_factory=list)

    def snapshot(
        self,
        status: str,
        *,
        usage: Any = None,
        error: dict[str, Any] | None = None,
        incomplete_details: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Return the ``Response`` object in ``status``."""
        request = self.request
        response: dict[str, Any] = {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": False,
            "error": error,
            "incomplete_details": incomplete_details,
            "instructions": request.instructions,
            "metadata": dict(request.metadata or {}),
            "model": request.model,
            "output": [dict(item) for item in self.output],
            "parallel_tool_calls": (
                True
                if request.parallel_tool_calls is None
                else request.parallel_tool_calls
            ),
            "store": False,
            "temperature": None,
            "text": {"format": {"type": "text"}},
            "tool_choice": _tool_choice(request),
            "tools": [
                tool.model_dump(exclude_unset=False) for tool in request.tools or ()
            ],
            "top_p": None,
            "truncation": "disabled",
        }
        if status == "completed":
            response["completed_at"] = int(time.time())
        if usage is not None:
            response["usage"] = response_usage(usage)
        if request.safety_identifier is not None:
            response["safety_identifier"] = request.safety_identifier
        if request.user is not None:
            response["user"] = request.user
        return response


def _tool_choice(request: ResponseCreateRequest) -> Any:
    choice = request.tool_choice
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        return choice
    return {"type": "function", "name": choice.name}


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def message_item(
    text: str, *, status: str, phase: str = "final_answer", item_id: str | None = None
) -> dict[str, Any]:
    """Return an assistant ``OutputMessage`` item with one ``output_text``."""
    return {
        "id": item_id or new_id("msg"),
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": [_text_part(text)],
        "phase": phase,
    }


def function_call_items(message: AIMessage) -> list[dict[str, Any]]:
    """Return ``function_call`` items for the final message's tool calls.

    Raises:
        GraphError: A tool call has no ID.

    """
    items = []
    for call in message.tool_calls:
        call_id = call.get("id")
        if not call_id:
            msg = "Final AIMessage tool calls must have an id."
            raise GraphError(msg)
        items.append(
            {
                "id": new_id("fc"),
                "type": "function_call",
                "status": "completed",
                "call_id": call_id,
                "name": call["name"],
                "arguments": tool_call_arguments(call["args"]),
            }
        )
    return items


def _failure(exc: BaseException) -> dict[str, Any]:
    return {"code": "server_error", "message": failure_message(exc)}


async def collect_response(run: PreparedRun, frame: ResponseFrame) -> dict[str, Any]:
    """Run the graph without streaming and return the completed ``Response``.

    Raises:
        Exception: Whatever the graph raised (the route turns it into a 500).

    """
    async for event in stream_run(run, stream=False):
        if isinstance(event, AIMessage):
            if event.text or not event.tool_calls:
                frame.output.append(message_item(event.text, status="completed"))
            frame.output.extend(function_call_items(event))
    return frame.snapshot("completed", usage=run.usage)


class _Events:
    """Numbered Responses stream events for one response."""

    __slots__ = ("sequence",)

    def __init__(self) -> None:
        self.sequence = 0

    def __call__(self, type_: str, **fields: Any) -> bytes:
        event = {"type": type_, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return event_bytes(event)


class _OpenMessage:
    """An assistant message whose text is still streaming."""

    __slots__ = ("index", "item", "parts")

    def __init__(self, index: int, item: dict[str, Any]) -> None:
        self.index = index
        self.item = item
        self.parts: list[str] = []


async def stream_response(
    run: PreparedRun, frame: ResponseFrame
) -> AsyncIterator[bytes]:
    """Run the graph with streaming and yield the framed Responses events.

    Lifecycle: ``response.created``, ``response.in_progress``; per message
    ``response.output_item.added``, ``response.content_part.added``,
    ``response.output_text.delta``…, ``response.output_text.done``,
    ``response.content_part.done``, ``response.output_item.done``; then
    ``response.completed``, or ``response.failed`` keeping partial output
    (unfinished items marked ``incomplete``).

    Status updates (``status_event()``) become completed
    ``phase="commentary"`` messages; other custom data stays private.
    """
    emit = _Events()
    yield emit("response.created", response=frame.snapshot("in_progress"))
    yield emit("response.in_progress", response=frame.snapshot("in_progress"))
    parity = TextParity()
    answer: _OpenMessage | None = None

    def open_message(phase: str) -> tuple[_OpenMessage, list[bytes]]:
        item = message_item("", status="in_progress", phase=phase)
        item["content"] = []
        opened = _OpenMessage(len(frame.output), item)
        frame.output.append(item)
        added = dict(item, content=[])
        return opened, [
            emit("response.output_item.added", output_index=opened.index, item=added),
            emit(
                "response.content_part.added",
                item_id=item["id"],
                output_index=opened.index,
                content_index=0,
                part=_text_part(""),
            ),
        ]

    def delta(opened: _OpenMessage, text: str) -> bytes:
        opened.parts.append(text)
        return emit(
            "response.output_text.delta",
            item_id=opened.item["id"],
            output_index=opened.index,
            content_index=0,
            delta=text,
            logprobs=[],
        )

    def close_message(opened: _OpenMessage, status: str = "completed") -> list[bytes]:
        text = "".join(opened.parts)
        part = _text_part(text)
        opened.item["content"] = [part]
        opened.item["status"] = status
        return [
            emit(
                "response.output_text.done",
                item_id=opened.item["id"],
                output_index=opened.index,
                content_index=0,
                text=text,
                logprobs=[],
            ),
            emit(
                "response.content_part.done",
                item_id=opened.item["id"],
                output_index=opened.index,
                content_index=0,
                part=part,
            ),
            emit(
                "response.output_item.done",
                output_index=opened.index,
                item=dict(opened.item),
            ),
        ]

    try:
        async for event in stream_run(run, stream=True):
            if isinstance(event, TextChunk):
                if answer is None:
                    answer, frames = open_message("final_answer")
                    for chunk in frames:
                        yield chunk
                parity.add(event.text)
                yield delta(answer, event.text)
            elif isinstance(event, AIMessage):
                fallback = parity.finish(event.text)
                if fallback or (answer is None and not event.tool_calls):
                    if answer is None:
                        answer, frames = open_message("final_answer")
                        for chunk in frames:
                            yield chunk
                    if fallback:
                        yield delta(answer, fallback)
                if answer is not None:
                    for chunk in close_message(answer):
                        yield chunk
                    answer = None
                for item in function_call_items(event):
                    for chunk in _function_call_events(emit, frame, item):
                        yield chunk
            elif (status := parse_status_event(event["data"])) is not None:
                note, frames = open_message("commentary")
                for chunk in frames:
                    yield chunk
                yield delta(note, status)
                for chunk in close_message(note):
                    yield chunk
    except Exception as exc:
        logger.exception("Streaming graph run failed (model %s)", frame.request.model)
        if answer is not None:
            for chunk in close_message(answer, status="incomplete"):
                yield chunk
        yield emit(
            "response.failed",
            response=frame.snapshot("failed", usage=run.usage, error=_failure(exc)),
        )
        return
    yield emit(
        "response.completed", response=frame.snapshot("completed", usage=run.usage)
    )


def _function_call_events(
    emit: _Events, frame: ResponseFrame, item: dict[str, Any]
) -> list[bytes]:
    index = len(frame.output)
    frame.output.append(item)
    added = dict(item, status="in_progress", arguments="")
    return [
        emit("response.output_item.added", output_index=index, item=added),
        emit(
            "response.function_call_arguments.delta",
            item_id=item["id"],
            output_index=index,
            delta=item["arguments"],
        ),
        emit(
            "response.function_call_arguments.done",
            item_id=item["id"],
            output_index=index,
            name=item["name"],
            arguments=item["arguments"],
        ),
        emit("response.output_item.done", output_index=index, item=dict(item)),
    ]
