"""The numbered event writer of a streamed Response.

:class:`ResponseEvents` frames ``ResponseStreamEvent`` s (OpenAI's union) for
one Response: item and content-part lifecycles, text and refusal deltas,
citations, function calls, server-tool calls, and commentary messages.
The text delta, the most frequent event, is assembled from precomputed bytes.
"""

from __future__ import annotations

from typing import Any

import orjson

from langgraph_openai_serve.api.answer import Citation, ToolCallOut
from langgraph_openai_serve.api.responses.frame import ResponseFrame
from langgraph_openai_serve.api.responses.items import (
    ServerToolItems,
    function_call_item,
    message_item,
    refusal_part,
    text_part,
    url_citation,
)
from langgraph_openai_serve.api.sse import event_bytes
from langgraph_openai_serve.graph.server_tools import (
    WEB_SEARCH,
    ServerToolCall,
    ServerToolResult,
)

__all__ = ["ResponseEvents", "StreamedMessage"]


_DELTA_HEAD = (
    b"event: response.output_text.delta\n"
    b'data: {"type":"response.output_text.delta","sequence_number":'
)


class StreamedMessage:
    """An assistant message item being streamed."""

    __slots__ = ("delta_tail", "index", "item", "text_parts")

    def __init__(self, index: int, item: dict[str, Any]) -> None:
        self.index = index
        self.item = item
        self.text_parts: list[str] | None = None
        self.delta_tail = b""
        """The bytes after ``delta`` in this text part's delta events."""


class ResponseEvents:
    """Writes one Response's stream events, numbered by ``sequence_number``.

    Each method returns the framed SSE bytes of the events it writes and
    keeps the Response frame's output items in step with them.
    """

    def __init__(self, frame: ResponseFrame) -> None:
        self.frame = frame
        self.sequence = 0

    def emit(self, type_: str, **fields: Any) -> bytes:
        """Frame one event of ``type_`` with the next sequence number."""
        event = {"type": type_, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return event_bytes(event)

    def open_message(self, phase: str) -> tuple[StreamedMessage, bytes]:
        """Add an in-progress message item in ``phase``; return it and its event."""
        item = message_item("in_progress", phase)
        message = StreamedMessage(len(self.frame.output), item)
        self.frame.output.append(item)
        added = self.emit(
            "response.output_item.added", output_index=message.index, item=dict(item)
        )
        return message, added

    def _part_fields(self, message: StreamedMessage) -> dict[str, Any]:
        return {
            "item_id": message.item["id"],
            "output_index": message.index,
            "content_index": len(message.item["content"]),
        }

    def open_text(self, message: StreamedMessage) -> bytes:
        """Open an ``output_text`` part (``response.content_part.added``)."""
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

    def text_delta(self, message: StreamedMessage, text: str) -> bytes:
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
        self, message: StreamedMessage, citations: tuple[Citation, ...] = ()
    ) -> list[bytes]:
        """Close the text part: its citations, then the text and part done events."""
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

    def refusal(self, message: StreamedMessage, refusal: str) -> list[bytes]:
        """Write a whole refusal part: added, one delta, done, part done."""
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

    def close_message(self, message: StreamedMessage, status: str) -> bytes:
        """Finish the message item in ``status`` (``response.output_item.done``)."""
        message.item["status"] = status
        return self.emit(
            "response.output_item.done",
            output_index=message.index,
            item=dict(message.item),
        )

    def function_call(self, call: ToolCallOut) -> list[bytes]:
        """Write a whole ``function_call`` item: added, arguments, done."""
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
        """Write a server-tool call: a search in progress, or a whole custom call."""
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
        """Write a server-tool result: the search completed, or the output item."""
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
        """Write a completed ``phase="commentary"`` message holding ``description``."""
        note, added = self.open_message("commentary")
        return [
            added,
            self.open_text(note),
            self.text_delta(note, description),
            *self.close_text(note),
            self.close_message(note, "completed"),
        ]
