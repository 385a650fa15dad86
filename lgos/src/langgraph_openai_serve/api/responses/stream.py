"""Encode a run as a Responses event stream (``stream: true``).

Events follow OpenAI's ``ResponseStreamEvent`` union, numbered by
``sequence_number``; see :func:`stream_response` for their order.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator
from typing import Any

import orjson
from langchain_core.messages import AIMessage

from langgraph_openai_serve.api.answer import Citation, ToolCallOut, read_answer
from langgraph_openai_serve.api.responses.frame import ResponseFrame
from langgraph_openai_serve.api.responses.interrupts import interrupt_calls
from langgraph_openai_serve.api.responses.items import (
    ServerToolItems,
    answer_status,
    function_call_item,
    message_item,
    needs_message,
    refusal_part,
    text_part,
    url_citation,
)
from langgraph_openai_serve.api.runs import failure_message
from langgraph_openai_serve.api.sse import event_bytes
from langgraph_openai_serve.errors import SERVER_ERROR
from langgraph_openai_serve.graph.execution import TextChunk, TextParity
from langgraph_openai_serve.graph.interrupt import LangGraphInterruptBatch
from langgraph_openai_serve.graph.server_tools import (
    WEB_SEARCH,
    ServerToolCall,
    ServerToolResult,
)
from langgraph_openai_serve.graph.session import RunSession
from langgraph_openai_serve.graph.status import parse_status_event

__all__ = ["stream_response"]

logger = logging.getLogger(__name__)


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
        item = message_item("in_progress", phase)
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
        return self.emit("response.content_part.added", part=text_part(""), **fields)

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
                annotation=url_citation(citation),
                **fields,
            )
            for index, citation in enumerate(citations)
        ]
        part = text_part(text, citations)
        frames.append(
            self.emit("response.output_text.done", text=text, logprobs=[], **fields)
        )
        frames.append(self.emit("response.content_part.done", part=part, **fields))
        message.item["content"].append(part)
        message.text_parts = None
        return frames

    def refusal(self, message: _Message, refusal: str) -> list[bytes]:
        fields = self._part_fields(message)
        part = refusal_part(refusal)
        frames = [
            self.emit("response.content_part.added", part=refusal_part(""), **fields),
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
        item = function_call_item(call)
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
    frame: ResponseFrame, session: RunSession
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
    :meth:`~langgraph_openai_serve.graph.session.RunSession.batches`), so a
    burst costs one write; the first text delta is yielded at once. The
    terminal events come last, in one chunk, encoded after the run was
    released (the session hands out the result, or the failure, only then),
    so a client acting on them finds the run free.
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
        async with contextlib.aclosing(session.batches(stream=True)) as batches:
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
                        _answer_events(
                            stream, out, event, parity, answer_message, session
                        )
                        answer_message = None
                        final = True
                    elif isinstance(event, LangGraphInterruptBatch):
                        # Closed before the interrupt calls (which can fail).
                        message, answer_message = answer_message, None
                        _pause_events(stream, out, event, message, session)
                        final = True
                    elif (status := parse_status_event(event["data"])) is not None:
                        out.extend(stream.commentary(status))
                if final:  # the result comes alone, in the last batch
                    yield b"".join(out)
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
                response=frame.snapshot("failed", usage=session.usage, error=error),
            )
        )
        yield b"".join(out)


def _answer_events(
    stream: _ResponseStream,
    out: list[bytes],
    message: AIMessage,
    parity: TextParity,
    answer_message: _Message | None,
    session: RunSession,
) -> None:
    """Append the events closing the answer and the Response to ``out``.

    Raises:
        GraphError: Unusable answer, or streamed text differing from it.

    """
    answer = read_answer(message)
    fallback = parity.finish(answer.text)
    if answer_message is None and needs_message(answer):
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
        out.append(stream.close_message(answer_message, answer_status(answer)))
    for call in answer.tool_calls:
        out.extend(stream.function_call(call))
    status = answer_status(answer)
    out.append(
        stream.emit(
            f"response.{status}",
            response=stream.frame.snapshot(
                status, usage=session.usage, incomplete_reason=answer.incomplete_reason
            ),
        )
    )


def _pause_events(
    stream: _ResponseStream,
    out: list[bytes],
    batch: LangGraphInterruptBatch,
    answer_message: _Message | None,
    session: RunSession,
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
            response=stream.frame.snapshot("completed", usage=session.usage),
        )
    )
