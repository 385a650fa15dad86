"""Encode graph results as Responses objects and stream events.

Shapes follow OpenAI's OpenAPI document: ``Response``, ``OutputMessage``,
``FunctionToolCall`` and the ``ResponseStreamEvent`` union. Fields the schema
requires are always sent (``null`` where it allows null); optional fields
with non-null types are omitted rather than sent as ``null``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import orjson
from langchain_core.messages import AIMessage

from langgraph_openai_serve.api.answer import Answer, Citation, ToolCallOut, read_answer
from langgraph_openai_serve.api.responses.request import ResponseCreateRequest
from langgraph_openai_serve.api.runs import failure_message
from langgraph_openai_serve.api.sse import FinalChunk, event_bytes
from langgraph_openai_serve.api.usage import response_usage
from langgraph_openai_serve.errors import SERVER_ERROR, GraphError
from langgraph_openai_serve.graph.interrupt import (
    INTERRUPT_FUNCTION_NAME,
    LangGraphInterruptBatch,
    interrupt_call_id,
)
from langgraph_openai_serve.graph.runner import (
    PreparedRun,
    TextChunk,
    TextParity,
    stream_run_batches,
)
from langgraph_openai_serve.graph.server_tools import (
    WEB_SEARCH,
    ServerToolCall,
    ServerToolResult,
)
from langgraph_openai_serve.graph.status import parse_status_event
from langgraph_openai_serve.ids import new_id

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
    nonce: str = ""
    """The Response nonce of an interrupt run (see ``graph.interrupt``)."""
    background: bool = False
    created_at: int = field(default_factory=lambda: int(time.time()))
    output: list[dict[str, Any]] = field(default_factory=list)

    def snapshot(
        self,
        status: str,
        *,
        usage: Any = None,
        error: dict[str, Any] | None = None,
        incomplete_reason: str | None = None,
    ) -> dict[str, Any]:
        """Return the ``Response`` object in ``status``."""
        request = self.request
        response: dict[str, Any] = {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": self.background,
            "error": error,
            "incomplete_details": (
                {"reason": incomplete_reason} if incomplete_reason else None
            ),
            "instructions": request.instructions,
            "metadata": dict(request.metadata or {}),
            "model": request.model,
            "output": [dict(item) for item in self.output],
            "parallel_tool_calls": (
                True
                if request.parallel_tool_calls is None
                else request.parallel_tool_calls
            ),
            "store": bool(self.background and request.store),
            "temperature": None,
            "text": {"format": {"type": "text"}},
            "tool_choice": _tool_choice(request),
            "tools": [tool.model_dump() for tool in request.tools or ()],
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
    # Echoed as sent: a mode string, or a named function or custom choice.
    choice = request.tool_choice
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        return choice
    return {"type": choice.type, "name": choice.name}


def _url_citation(citation: Citation) -> dict[str, Any]:
    return {
        "type": "url_citation",
        "url": citation.url,
        "title": citation.title,
        "start_index": citation.start_index,
        "end_index": citation.end_index,
    }


def _text_part(text: str, citations: tuple[Citation, ...] = ()) -> dict[str, Any]:
    return {
        "type": "output_text",
        "text": text,
        "annotations": [_url_citation(citation) for citation in citations],
        "logprobs": [],
    }


def _refusal_part(refusal: str) -> dict[str, Any]:
    return {"type": "refusal", "refusal": refusal}


def _message_item(status: str, phase: str) -> dict[str, Any]:
    return {
        "id": new_id("msg"),
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": [],
        "phase": phase,
    }


def _function_call_item(call: ToolCallOut) -> dict[str, Any]:
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


def _needs_message(answer: Answer) -> bool:
    return bool(answer.text or answer.refusal or not answer.tool_calls)


def _status(answer: Answer) -> str:
    return "incomplete" if answer.incomplete_reason else "completed"


def answer_items(answer: Answer) -> list[dict[str, Any]]:
    """Return the output items for a complete (non-streamed) answer."""
    items: list[dict[str, Any]] = []
    if _needs_message(answer):
        item = _message_item(_status(answer), "final_answer")
        if answer.text or not answer.refusal:
            item["content"].append(_text_part(answer.text, answer.citations))
        if answer.refusal:
            item["content"].append(_refusal_part(answer.refusal))
        items.append(item)
    items.extend(_function_call_item(call) for call in answer.tool_calls)
    return items


def interrupt_calls(batch: LangGraphInterruptBatch, nonce: str) -> list[ToolCallOut]:
    """Return one ``lgos_interrupt`` function call per pending interrupt.

    The arguments are the interrupt payload as JSON; the call ID binds the
    interrupt to this Response and the batch's checkpoint generation.

    Raises:
        GraphError: A payload is not JSON-serializable.

    """
    calls = []
    for interrupt in batch.interrupts:
        try:
            arguments = json.dumps(interrupt.value, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            msg = "Interrupt payloads must be JSON-serializable."
            raise GraphError(msg) from exc
        calls.append(
            ToolCallOut(
                interrupt_call_id(batch, nonce, interrupt.id),
                INTERRUPT_FUNCTION_NAME,
                arguments,
            )
        )
    return calls


async def collect_response(run: PreparedRun, frame: ResponseFrame) -> dict[str, Any]:
    """Run the graph without streaming and return the final ``Response``.

    Raises:
        Exception: Whatever the graph raised (the route turns it into a 500).

    """
    answer: Answer | None = None
    server_items = ServerToolItems(frame.output)
    async with contextlib.aclosing(stream_run_batches(run, stream=False)) as batches:
        async for batch in batches:
            for event in batch:
                if isinstance(event, ServerToolCall):
                    server_items.call(event)
                elif isinstance(event, ServerToolResult):
                    server_items.result(event)
                elif isinstance(event, LangGraphInterruptBatch):
                    calls = interrupt_calls(event, frame.nonce)
                    frame.output.extend(_function_call_item(call) for call in calls)
                    return frame.snapshot("completed", usage=run.usage)
                elif isinstance(event, AIMessage):
                    answer = read_answer(event)
                    frame.output.extend(answer_items(answer))
    assert answer is not None
    return frame.snapshot(
        _status(answer), usage=run.usage, incomplete_reason=answer.incomplete_reason
    )


_DELTA_HEAD = (
    b"event: response.output_text.delta\n"
    b'data: {"type":"response.output_text.delta","sequence_number":'
)


class _Message:
    """An assistant message item being streamed."""

    __slots__ = ("delta_tail", "index", "item", "text_parts")

    def __init__(self, index: int, item: dict[str, Any]) -> None:
        self.index = index
        self.item = item
        self.text_parts: list[str] | None = None
        self.delta_tail = b""
        """The bytes after ``delta`` in this text part's delta events."""


class _ResponseStream:
    """Numbered Responses stream events for one response."""

    def __init__(self, frame: ResponseFrame) -> None:
        self.frame = frame
        self.sequence = 0

    def emit(self, type_: str, **fields: Any) -> bytes:
        event = {"type": type_, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return event_bytes(event)

    def open_message(self, phase: str) -> tuple[_Message, bytes]:
        item = _message_item("in_progress", phase)
        message = _Message(len(self.frame.output), item)
        self.frame.output.append(item)
        added = self.emit(
            "response.output_item.added", output_index=message.index, item=dict(item)
        )
        return message, added

    def _part_fields(self, message: _Message) -> dict[str, Any]:
        return {
            "item_id": message.item["id"],
            "output_index": message.index,
            "content_index": len(message.item["content"]),
        }

    def open_text(self, message: _Message) -> bytes:
        message.text_parts = []
        fields = self._part_fields(message)
        # Everything of a delta event but its sequence number and text is
        # fixed for the part: encoded once, byte for byte what ``emit`` writes.
        message.delta_tail = b',"logprobs":[],"item_id":%s,%s\n\n' % (
            orjson.dumps(fields["item_id"]),
            orjson.dumps(
                {
                    "output_index": fields["output_index"],
                    "content_index": fields["content_index"],
                }
            )[1:],
        )
        return self.emit("response.content_part.added", part=_text_part(""), **fields)

    def text_delta(self, message: _Message, text: str) -> bytes:
        """``response.output_text.delta``: ``emit``'s bytes, built from parts."""
        assert message.text_parts is not None
        message.text_parts.append(text)
        sequence = self.sequence
        self.sequence += 1
        return b'%s%d,"delta":%s%s' % (
            _DELTA_HEAD,
            sequence,
            orjson.dumps(text),
            message.delta_tail,
        )

    def close_text(
        self, message: _Message, citations: tuple[Citation, ...] = ()
    ) -> list[bytes]:
        assert message.text_parts is not None
        text = "".join(message.text_parts)
        fields = self._part_fields(message)
        frames = [
            self.emit(
                "response.output_text.annotation.added",
                annotation_index=index,
                annotation=_url_citation(citation),
                **fields,
            )
            for index, citation in enumerate(citations)
        ]
        part = _text_part(text, citations)
        frames.append(
            self.emit("response.output_text.done", text=text, logprobs=[], **fields)
        )
        frames.append(self.emit("response.content_part.done", part=part, **fields))
        message.item["content"].append(part)
        message.text_parts = None
        return frames

    def refusal(self, message: _Message, refusal: str) -> list[bytes]:
        fields = self._part_fields(message)
        part = _refusal_part(refusal)
        frames = [
            self.emit("response.content_part.added", part=_refusal_part(""), **fields),
            self.emit("response.refusal.delta", delta=refusal, **fields),
            self.emit("response.refusal.done", refusal=refusal, **fields),
            self.emit("response.content_part.done", part=part, **fields),
        ]
        message.item["content"].append(part)
        return frames

    def close_message(self, message: _Message, status: str) -> bytes:
        message.item["status"] = status
        return self.emit(
            "response.output_item.done",
            output_index=message.index,
            item=dict(message.item),
        )

    def function_call(self, call: ToolCallOut) -> list[bytes]:
        item = _function_call_item(call)
        index = len(self.frame.output)
        self.frame.output.append(item)
        return [
            self.emit(
                "response.output_item.added",
                output_index=index,
                item=dict(item, status="in_progress", arguments=""),
            ),
            self.emit(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=item["arguments"],
            ),
            self.emit(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=index,
                name=item["name"],
                arguments=item["arguments"],
            ),
            self.emit("response.output_item.done", output_index=index, item=dict(item)),
        ]

    def server_call(self, items: ServerToolItems, call: ServerToolCall) -> list[bytes]:
        index = items.call(call)
        item = self.frame.output[index]
        fields = {"item_id": item["id"], "output_index": index}
        if call.name == WEB_SEARCH:
            return [
                self.emit(
                    "response.output_item.added", output_index=index, item=dict(item)
                ),
                self.emit("response.web_search_call.in_progress", **fields),
                self.emit("response.web_search_call.searching", **fields),
            ]
        return [
            self.emit(
                "response.output_item.added",
                output_index=index,
                item=dict(item, input="", status="in_progress"),
            ),
            self.emit(
                "response.custom_tool_call_input.delta", delta=call.input, **fields
            ),
            self.emit(
                "response.custom_tool_call_input.done", input=call.input, **fields
            ),
            self.emit("response.output_item.done", output_index=index, item=dict(item)),
        ]

    def server_result(
        self, items: ServerToolItems, result: ServerToolResult
    ) -> list[bytes]:
        index = items.result(result)
        item = dict(self.frame.output[index])
        frames = []
        if result.name == WEB_SEARCH:
            if not result.failed:
                frames.append(
                    self.emit(
                        "response.web_search_call.completed",
                        item_id=item["id"],
                        output_index=index,
                    )
                )
        else:
            frames.append(
                self.emit("response.output_item.added", output_index=index, item=item)
            )
        frames.append(
            self.emit("response.output_item.done", output_index=index, item=item)
        )
        return frames

    def commentary(self, description: str) -> list[bytes]:
        note, added = self.open_message("commentary")
        return [
            added,
            self.open_text(note),
            self.text_delta(note, description),
            *self.close_text(note),
            self.close_message(note, "completed"),
        ]


async def stream_response(
    run: PreparedRun, frame: ResponseFrame
) -> AsyncGenerator[bytes, None]:
    """Run the graph with streaming and yield the framed Responses events.

    Lifecycle: ``response.created``, ``response.in_progress``; for the answer
    ``response.output_item.added``, ``response.content_part.added``,
    ``response.output_text.delta``…, ``response.output_text.annotation.added``
    per citation, ``response.output_text.done``,
    ``response.content_part.done`` (refusals: ``response.refusal.delta`` and
    ``.done``), ``response.output_item.done``; function calls; then
    ``response.completed``, ``response.incomplete``, or ``response.failed``
    keeping partial output (unfinished items marked ``incomplete``).

    Status updates (``status_event()``) become completed
    ``phase="commentary"`` messages; other custom data stays private.

    Each yielded chunk holds the events of one batch of run events (see
    :func:`~langgraph_openai_serve.graph.runner.stream_run_batches`), so a
    burst costs one write; the first text delta is yielded at once. The
    terminal events come last, as one
    :class:`~langgraph_openai_serve.api.sse.FinalChunk`.
    """
    stream = _ResponseStream(frame)
    yield stream.emit(
        "response.created", response=frame.snapshot("in_progress")
    ) + stream.emit("response.in_progress", response=frame.snapshot("in_progress"))
    parity = TextParity()
    answer_message: _Message | None = None
    server_items = ServerToolItems(frame.output)
    out: list[bytes] = []  # events encoded but not yet yielded
    final = False
    try:
        async with contextlib.aclosing(stream_run_batches(run, stream=True)) as batches:
            async for batch in batches:
                for event in batch:
                    if isinstance(event, TextChunk):
                        parity.add(event.text)
                        if answer_message is None:
                            answer_message, added = stream.open_message("final_answer")
                            out.append(added)
                            out.append(stream.open_text(answer_message))
                            out.append(stream.text_delta(answer_message, event.text))
                            yield b"".join(out)  # the first text goes out at once
                            out.clear()
                        else:
                            out.append(stream.text_delta(answer_message, event.text))
                    elif isinstance(event, ServerToolCall):
                        out.extend(stream.server_call(server_items, event))
                    elif isinstance(event, ServerToolResult):
                        out.extend(stream.server_result(server_items, event))
                    elif isinstance(event, AIMessage):
                        # Only reading the answer can fail: the message stays
                        # open for the failure events then.
                        _answer_events(stream, out, event, parity, answer_message, run)
                        answer_message = None
                        final = True
                    elif isinstance(event, LangGraphInterruptBatch):
                        # Closed before the interrupt calls (which can fail).
                        message, answer_message = answer_message, None
                        _pause_events(stream, out, event, message, run)
                        final = True
                    elif (status := parse_status_event(event["data"])) is not None:
                        out.extend(stream.commentary(status))
                if final:  # the result comes alone, in the last batch
                    yield FinalChunk(b"".join(out))
                    return
                if out:
                    yield b"".join(out)
                    out.clear()
    except Exception as exc:
        logger.exception("Streaming graph run failed (model %s)", frame.request.model)
        for item in frame.output:
            if item["type"] == "web_search_call" and item["status"] == "in_progress":
                item["status"] = "failed"
        if answer_message is not None:
            if answer_message.text_parts is not None:
                out.extend(stream.close_text(answer_message))
            out.append(stream.close_message(answer_message, "incomplete"))
        error = {"code": SERVER_ERROR, "message": failure_message(exc)}
        out.append(
            stream.emit(
                "response.failed",
                response=frame.snapshot("failed", usage=run.usage, error=error),
            )
        )
        yield FinalChunk(b"".join(out))


def _answer_events(
    stream: _ResponseStream,
    out: list[bytes],
    message: AIMessage,
    parity: TextParity,
    answer_message: _Message | None,
    run: PreparedRun,
) -> None:
    """Append the events closing the answer and the Response to ``out``.

    Raises:
        GraphError: Unusable answer, or streamed text differing from it.

    """
    answer = read_answer(message)
    fallback = parity.finish(answer.text)
    if answer_message is None and _needs_message(answer):
        answer_message, added = stream.open_message("final_answer")
        out.append(added)
    if answer_message is not None:
        if answer_message.text_parts is None and (answer.text or not answer.refusal):
            out.append(stream.open_text(answer_message))
        if fallback:
            out.append(stream.text_delta(answer_message, fallback))
        if answer_message.text_parts is not None:
            out.extend(stream.close_text(answer_message, answer.citations))
        if answer.refusal:
            out.extend(stream.refusal(answer_message, answer.refusal))
        out.append(stream.close_message(answer_message, _status(answer)))
    for call in answer.tool_calls:
        out.extend(stream.function_call(call))
    status = _status(answer)
    out.append(
        stream.emit(
            f"response.{status}",
            response=stream.frame.snapshot(
                status, usage=run.usage, incomplete_reason=answer.incomplete_reason
            ),
        )
    )


def _pause_events(
    stream: _ResponseStream,
    out: list[bytes],
    batch: LangGraphInterruptBatch,
    answer_message: _Message | None,
    run: PreparedRun,
) -> None:
    """Append the events of a paused run: text streamed so far stays as it was.

    Raises:
        GraphError: An interrupt payload is not JSON-serializable.

    """
    if answer_message is not None:
        if answer_message.text_parts is not None:
            out.extend(stream.close_text(answer_message))
        out.append(stream.close_message(answer_message, "completed"))
    for call in interrupt_calls(batch, stream.frame.nonce):
        out.extend(stream.function_call(call))
    out.append(
        stream.emit(
            "response.completed",
            response=stream.frame.snapshot("completed", usage=run.usage),
        )
    )
