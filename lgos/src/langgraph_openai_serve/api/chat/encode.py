"""Encode graph results as Chat Completions objects and chunks.

Shapes follow OpenAI's OpenAPI document (``CreateChatCompletionResponse``,
``CreateChatCompletionStreamResponse``), with every key OpenAI sends (see
:mod:`~langgraph_openai_serve.api.chat.frame`): ``logprobs: null`` on each
choice, ``refusal`` and ``annotations`` on the message, ``usage`` on the
completion and on each chunk (``null`` but on the usage chunk).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator
from typing import Any

import orjson
from langchain_core.messages import AIMessage

from langgraph_openai_serve.api.answer import Answer, read_answer
from langgraph_openai_serve.api.chat.frame import ChatFrame
from langgraph_openai_serve.api.run_failures import (
    failure_code,
    failure_message,
    log_stream_failure,
)
from langgraph_openai_serve.api.sse import data_bytes
from langgraph_openai_serve.api.usage import chat_usage
from langgraph_openai_serve.errors import SERVER_ERROR, error_envelope
from langgraph_openai_serve.graph.execution import TextChunk, TextParity
from langgraph_openai_serve.graph.session import RunSession
from langgraph_openai_serve.metrics import count_error

__all__ = ["collect_chat_completion", "stream_chat_completion"]

logger = logging.getLogger(__name__)


_FINISH_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}


def _tool_calls(answer: Answer) -> list[dict[str, Any]]:
    return [
        {
            "id": call.call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
        }
        for call in answer.tool_calls
    ]


def _annotations(answer: Answer) -> list[dict[str, Any]]:
    return [
        {
            "type": "url_citation",
            "url_citation": {
                "url": citation.url,
                "title": citation.title,
                "start_index": citation.start_index,
                "end_index": citation.end_index,
            },
        }
        for citation in answer.citations
    ]


def _finish_reason(answer: Answer) -> str:
    if answer.incomplete_reason:
        return _FINISH_REASONS[answer.incomplete_reason]
    return "tool_calls" if answer.tool_calls else "stop"


async def collect_chat_completion(
    frame: ChatFrame, session: RunSession
) -> dict[str, Any]:
    """Run the graph without streaming and return the ``chat.completion``."""
    answer: Answer | None = None
    async with contextlib.aclosing(session.batches(stream=False)) as batches:
        async for batch in batches:
            for event in batch:
                if isinstance(event, AIMessage):
                    answer = read_answer(event)
    assert answer is not None
    calls = _tool_calls(answer)
    body: dict[str, Any] = {
        "role": "assistant",
        "content": answer.text or (None if calls or answer.refusal else ""),
        "refusal": answer.refusal,
        "annotations": _annotations(answer),
    }
    if calls:
        body["tool_calls"] = calls
    completion = frame.head("chat.completion")
    completion["choices"] = [
        {
            "index": 0,
            "message": body,
            "finish_reason": _finish_reason(answer),
            "logprobs": None,
        }
    ]
    usage = session.usage
    completion["usage"] = chat_usage(usage) if usage is not None else None
    completion["metadata"] = dict(frame.metadata or {})
    return completion


def _chunk(
    frame: ChatFrame, delta: dict[str, Any], finish_reason: str | None = None
) -> bytes:
    chunk = frame.head("chat.completion.chunk")
    chunk["choices"] = [
        {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
    ]
    chunk["usage"] = None
    return data_bytes(chunk)


_CONTENT_TAIL = b'},"finish_reason":null,"logprobs":null}],"usage":null}\n\n'


def _content_head(frame: ChatFrame) -> bytes:
    """Return the bytes of a text-delta chunk before its JSON-encoded text.

    ``_content_head(frame) + orjson.dumps(text) + _CONTENT_TAIL`` is byte for
    byte ``_chunk(frame, {"content": text})``.
    """
    head = orjson.dumps(frame.head("chat.completion.chunk"))
    return b'data: %s,"choices":[{"index":0,"delta":{"content":' % head[:-1]


async def stream_chat_completion(
    frame: ChatFrame, session: RunSession
) -> AsyncGenerator[bytes, None]:
    """Run the graph with streaming and yield framed ``chat.completion.chunk`` s.

    Sequence: a role chunk, one chunk per text delta, one chunk with all tool
    calls (if any), a final chunk with ``finish_reason``, the usage-only chunk
    when ``stream_options.include_usage`` was set, then ``data: [DONE]``. A
    failure after streaming started sends an error envelope as the last data.
    Custom stream events (status) are ignored.

    Each yielded chunk holds the chunks of one batch of run events (see
    :meth:`~langgraph_openai_serve.graph.session.RunSession.batches`), so a
    burst costs one write; the first text delta is yielded at once. The
    finishing chunks and ``[DONE]`` (or the error) come last, in one chunk,
    encoded once the run is released.
    """
    # Role only: a client builds text parts from content deltas, and a reply
    # that is only tool calls has none (the Vercel AI SDK drew an empty one).
    yield _chunk(frame, {"role": "assistant"})
    parity = TextParity()
    head = _content_head(frame)
    first = True
    out: list[bytes] = []  # chunks encoded but not yet yielded
    final = False
    try:
        async with contextlib.aclosing(session.batches(stream=True)) as batches:
            async for batch in batches:
                for event in batch:
                    if isinstance(event, TextChunk):
                        parity.add(event)
                        out.append(head + orjson.dumps(event.text) + _CONTENT_TAIL)
                        if first:  # the first text goes out at once
                            first = False
                            yield b"".join(out)
                            out.clear()
                    elif isinstance(event, AIMessage):
                        # The last chunks: sent with [DONE], below.
                        _answer_chunks(frame, out, event, parity)
                        final = True
                if out and not final:
                    yield b"".join(out)
                    out.clear()
    except Exception as exc:
        log_stream_failure(logger, exc, frame.model)
        count_error(failure_code(exc))
        out.append(
            data_bytes(
                error_envelope(
                    failure_message(exc), type=SERVER_ERROR, code=failure_code(exc)
                )
            )
        )
        yield b"".join(out)
        return
    if frame.include_usage and session.usage is not None:
        usage_chunk = frame.head("chat.completion.chunk")
        usage_chunk["choices"] = []
        usage_chunk["usage"] = chat_usage(session.usage)
        out.append(data_bytes(usage_chunk))
    out.append(data_bytes("[DONE]"))
    yield b"".join(out)


def _answer_chunks(
    frame: ChatFrame, out: list[bytes], message: AIMessage, parity: TextParity
) -> None:
    """Append the chunks closing the answer to ``out``.

    Raises:
        GraphError: Unusable answer, or streamed text differing from it.

    """
    answer = read_answer(message)
    if fallback := parity.finish(answer.text):
        out.append(_chunk(frame, {"content": fallback}))
    if answer.refusal:
        out.append(_chunk(frame, {"refusal": answer.refusal}))
    if calls := _tool_calls(answer):
        indexed = [dict(call, index=i) for i, call in enumerate(calls)]
        out.append(_chunk(frame, {"tool_calls": indexed}))
    # Annotations on the final delta are an LGOS extension: the published
    # chunk schema does not declare them.
    final: dict[str, Any] = {}
    if annotations := _annotations(answer):
        final["annotations"] = annotations
    out.append(_chunk(frame, final, _finish_reason(answer)))
