"""One chat turn over the Responses API, and the client-side input ledger.

LGOS keeps no conversation: the client keeps an *input ledger* (the user turns
plus every output item of each answer, unchanged) and sends the whole ledger
as ``input`` on every request. :func:`run_turn` streams one answer and reports
its output items; :class:`Conversation` owns the ledger and decides what a
turn leaves behind. Nothing here depends on Chainlit, so it is tested with a
fake HTTP transport.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel

__all__ = [
    "Conversation",
    "TurnResult",
    "format_api_error",
    "output_item_to_input",
    "run_turn",
]

logger = logging.getLogger(__name__)

TurnStatus = Literal["completed", "incomplete", "failed", "error"]
TextSink = Callable[[str], Awaitable[None]]

_TERMINAL_EVENTS = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}


@dataclass(slots=True)
class TurnResult:
    """The outcome of one streamed Responses request.

    Attributes:
        status: ``completed``, ``incomplete`` or ``failed`` from the terminal
            event, or ``error`` when the request was rejected, the stream
            carried an ``error`` event, or it ended without a terminal event.
        output_items: the terminal response's ``output``, JSON-ready, in order.
        answer: the text of the final-answer messages (``phase`` is
            ``final_answer`` or absent).
        commentary: the text of each ``phase == "commentary"`` message.
        streamed: whether any answer text reached the text sink.
        error: a readable explanation when ``status`` is ``failed``/``error``.
        incomplete_reason: ``incomplete_details.reason`` of an incomplete answer.

    """

    status: TurnStatus
    output_items: list[dict[str, Any]] = field(default_factory=list)
    answer: str = ""
    commentary: list[str] = field(default_factory=list)
    streamed: bool = False
    error: str | None = None
    incomplete_reason: str | None = None

    @property
    def replayable(self) -> bool:
        """Whether the output items belong in the ledger (LGOS produced them)."""
        return self.status in ("completed", "incomplete")


def format_api_error(exc: openai.OpenAIError) -> str:
    """Explain an OpenAI SDK error in one line for the chat transcript.

    ``APIStatusError`` bodies are the OpenAI error envelope; the SDK already
    unwraps it to ``{"message", "type", "param", "code"}``.
    """
    if isinstance(exc, openai.APIStatusError):
        body = exc.body
        if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
            body = body["error"]
        message = None
        details: list[str] = []
        if isinstance(body, Mapping):
            message = body.get("message")
            for key in ("code", "param"):
                if body.get(key):
                    details.append(f"{key}: {body[key]}")
        if not isinstance(message, str) or not message:
            message = exc.response.reason_phrase or exc.message
        suffix = f" ({', '.join(details)})" if details else ""
        return f"HTTP {exc.status_code}: {message}{suffix}"
    if isinstance(exc, openai.APITimeoutError):
        return "The request to LGOS timed out."
    if isinstance(exc, openai.APIConnectionError):
        url = exc.request.url if exc.request is not None else "LGOS"
        return f"Cannot reach LGOS at {url}: {exc.message}"
    if isinstance(exc, openai.APIError):
        return exc.message
    return str(exc) or type(exc).__name__


def output_item_to_input(item: object) -> dict[str, Any]:
    """Turn one ``response.output`` item into a ledger entry, unchanged."""
    if isinstance(item, Mapping):
        return dict(item)
    if isinstance(item, BaseModel):
        return item.model_dump(mode="json", exclude_none=True)
    raise TypeError(f"cannot replay output item {item!r}")


def _message_text(item: Mapping[str, Any]) -> str:
    parts = item.get("content")
    if not isinstance(parts, list):
        return ""
    texts = []
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        if part.get("type") == "output_text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
            texts.append(part["refusal"])
    return "".join(texts)


def _terminal_error(response: Any) -> str:
    error = getattr(response, "error", None)
    message = getattr(error, "message", None)
    code = getattr(error, "code", None)
    if message and code:
        return f"{message} ({code})"
    return message or "The response failed."


async def run_turn(
    client: AsyncOpenAI,
    *,
    model: str,
    ledger: list[dict[str, Any]],
    metadata: Mapping[str, str] | None = None,
    on_text: TextSink | None = None,
) -> TurnResult:
    """Stream one answer for ``ledger`` and collect its output items.

    Text deltas of answer messages go to ``on_text`` as they arrive;
    commentary messages (``phase == "commentary"``) are not streamed there but
    collected in :attr:`TurnResult.commentary`. API and connection errors do
    not raise: they come back as a result with ``status == "error"``.
    """
    phases: dict[str, str | None] = {}
    result: TurnResult | None = None
    streamed = False

    async def sink(text: str) -> None:
        nonlocal streamed
        if text and on_text is not None:
            streamed = True
            await on_text(text)

    try:
        stream = await client.responses.create(
            model=model,
            input=ledger,  # type: ignore[arg-type]  # plain JSON items
            stream=True,
            store=False,
            metadata=dict(metadata) if metadata else openai.omit,
        )
        async with stream:
            async for event in stream:
                kind = getattr(event, "type", None)
                if kind == "response.output_item.added":
                    item = event.item
                    if getattr(item, "type", None) == "message":
                        phases[item.id] = getattr(item, "phase", None)
                elif kind == "response.output_text.delta":
                    if phases.get(event.item_id) != "commentary":
                        await sink(event.delta)
                elif kind in _TERMINAL_EVENTS:
                    response = event.response
                    result = TurnResult(
                        status=_TERMINAL_EVENTS[kind],  # type: ignore[arg-type]
                        output_items=[output_item_to_input(i) for i in response.output],
                    )
                    if kind == "response.failed":
                        result.error = _terminal_error(response)
                    details = getattr(response, "incomplete_details", None)
                    result.incomplete_reason = getattr(details, "reason", None)
                    break
                elif kind == "error":
                    code = getattr(event, "code", None)
                    message = getattr(event, "message", None) or "Stream error."
                    result = TurnResult(
                        status="error",
                        error=f"{message} ({code})" if code else message,
                    )
                    break
    except openai.APIError as exc:
        logger.warning("Responses request for model %r failed: %s", model, exc)
        return TurnResult(status="error", error=format_api_error(exc))

    if result is None:
        return TurnResult(
            status="error",
            error="The answer stream ended before the response finished.",
            streamed=streamed,
        )

    for item in result.output_items:
        if item.get("type") != "message":
            continue
        text = _message_text(item)
        if item.get("phase") == "commentary":
            result.commentary.append(text)
        else:
            result.answer += text
    if not streamed and result.answer:
        # No deltas were seen (e.g. an intermediary buffered the stream):
        # show the final answer from the terminal response instead.
        await sink(result.answer)
    result.streamed = streamed
    return result


@dataclass(slots=True)
class Conversation:
    """The client-side input ledger of one chat.

    Each turn appends ``{"role": "user", "content": text}``; a completed or
    incomplete answer appends every output item unchanged. A turn that was
    rejected, failed or cancelled is removed again, so one bad message (say,
    over a size limit) cannot poison every later request.
    """

    model: str
    items: list[dict[str, Any]] = field(default_factory=list)

    async def ask(
        self,
        client: AsyncOpenAI,
        text: str,
        *,
        metadata: Mapping[str, str] | None = None,
        on_text: TextSink | None = None,
    ) -> TurnResult:
        """Send ``text`` as the next user turn and stream the answer."""
        mark = len(self.items)
        self.items.append({"role": "user", "content": text})
        try:
            result = await run_turn(
                client,
                model=self.model,
                ledger=list(self.items),
                metadata=metadata,
                on_text=on_text,
            )
        except BaseException:
            # Cancelled (the user pressed stop) or a bug: forget the turn.
            del self.items[mark:]
            raise
        if result.replayable:
            self.items.extend(result.output_items)
        else:
            del self.items[mark:]
        return result
