"""Encode a run as a Responses event stream (``stream: true``).

Events follow OpenAI's ``ResponseStreamEvent`` union, numbered by
``sequence_number``; see :func:`stream_response` for their order.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator

from langchain_core.messages import AIMessage

from langgraph_openai_serve.api.answer import read_answer
from langgraph_openai_serve.api.responses.frame import ResponseFrame
from langgraph_openai_serve.api.responses.interrupts import interrupt_calls
from langgraph_openai_serve.api.responses.items import (
    ServerToolItems,
    answer_status,
    needs_message,
)
from langgraph_openai_serve.api.responses.stream_events import (
    ResponseEvents,
    StreamedMessage,
)
from langgraph_openai_serve.api.run_failures import failure_message, log_stream_failure
from langgraph_openai_serve.errors import SERVER_ERROR
from langgraph_openai_serve.graph.execution import TextChunk, TextParity
from langgraph_openai_serve.graph.interrupt import LangGraphInterruptBatch
from langgraph_openai_serve.graph.server_tools import (
    ServerToolCall,
    ServerToolResult,
)
from langgraph_openai_serve.graph.session import RunSession
from langgraph_openai_serve.graph.status import parse_status_event
from langgraph_openai_serve.metrics import count_error

__all__ = ["stream_response"]

logger = logging.getLogger(__name__)


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
    stream = ResponseEvents(frame)
    yield stream.emit(
        "response.created", response=frame.snapshot("in_progress")
    ) + stream.emit("response.in_progress", response=frame.snapshot("in_progress"))
    parity = TextParity()
    answer_message: StreamedMessage | None = None
    server_items = ServerToolItems(frame.output)
    out: list[bytes] = []  # events encoded but not yet yielded
    final = False
    try:
        async with contextlib.aclosing(session.batches(stream=True)) as batches:
            async for batch in batches:
                for event in batch:
                    if isinstance(event, TextChunk):
                        parity.add(event)
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
        log_stream_failure(logger, exc, frame.request.model)
        for item in frame.output:
            if item["type"] == "web_search_call" and item["status"] == "in_progress":
                item["status"] = "failed"
        if answer_message is not None:
            if answer_message.text_parts is not None:
                out.extend(stream.close_text(answer_message))
            out.append(stream.close_message(answer_message, "incomplete"))
        error = {"code": SERVER_ERROR, "message": failure_message(exc)}
        count_error(SERVER_ERROR)
        out.append(
            stream.emit(
                "response.failed",
                response=frame.snapshot("failed", usage=session.usage, error=error),
            )
        )
        yield b"".join(out)


def _answer_events(
    stream: ResponseEvents,
    out: list[bytes],
    message: AIMessage,
    parity: TextParity,
    answer_message: StreamedMessage | None,
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
    stream: ResponseEvents,
    out: list[bytes],
    batch: LangGraphInterruptBatch,
    answer_message: StreamedMessage | None,
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
