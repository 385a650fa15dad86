"""The outcome of one Responses request, read from its terminal response.

:class:`TurnResult` is what streaming (:mod:`lgos_chainlit.turn_stream`) and
background polling (:mod:`lgos_chainlit.background_poll`) both return: built
from a finished response with :meth:`TurnResult.from_response`, or from an
SDK error with :meth:`TurnResult.from_api_error`.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import openai

from lgos_client.api_errors import api_error_code, error_text, format_api_error
from lgos_client.functions import FunctionCall
from lgos_client.interrupts import interrupt_calls, is_interrupt_call
from lgos_client.items import (
    AnswerText,
    answer_texts,
    message_phase,
    message_text,
    output_item_to_input,
    refusal_text,
)
from lgos_client.stream import FinishedStatus

__all__ = ["FinishedStatus", "TurnResult", "TurnStatus"]

TurnStatus = Literal["completed", "incomplete", "failed", "error"]

_RETRYABLE_CODES = frozenset({"run_busy"})


@dataclass(slots=True)
class TurnResult:
    """The outcome of one streamed Responses request.

    Attributes:
        status: ``completed``, ``incomplete`` or ``failed`` from the terminal
            event, or ``error`` when the request was rejected, the stream
            carried an ``error`` event, or it ended without a terminal event.
        output_items: the terminal response's ``output``, JSON-ready, in order.
        answer: the text of the final-answer messages (``phase`` is
            ``final_answer`` or absent); never commentary, never refusals.
        answer_parts: the same text per ``output_text`` part, with its
            ``url_citation`` annotations.
        refusal: the refusal text of the final-answer messages ('' if none).
        commentary: the text of each ``phase == "commentary"`` message.
        function_calls: the response's client ``function_call`` items, in
            order (``lgos_interrupt`` calls are not among them).
        interrupts: the response's ``lgos_interrupt`` calls, unchanged.
        response_id: the terminal response's ``id``.
        streamed: whether any answer text reached the text sink.
        error: a readable explanation when ``status`` is ``failed``/``error``.
        incomplete_reason: ``incomplete_details.reason`` of an incomplete answer.
        http_status: the HTTP status of a rejected request.
        error_code: the error's ``code`` (e.g. ``run_busy``), when known.
        connection_error: whether LGOS could not be reached (or timed out).

    """

    status: TurnStatus
    output_items: list[dict[str, Any]] = field(default_factory=list)
    answer: str = ""
    answer_parts: list[AnswerText] = field(default_factory=list)
    refusal: str = ""
    commentary: list[str] = field(default_factory=list)
    function_calls: list[FunctionCall] = field(default_factory=list)
    interrupts: list[dict[str, Any]] = field(default_factory=list)
    response_id: str | None = None
    streamed: bool = False
    error: str | None = None
    incomplete_reason: str | None = None
    http_status: int | None = None
    error_code: str | None = None
    connection_error: bool = False

    @classmethod
    def from_response(cls, response: Any, status: FinishedStatus) -> TurnResult:
        """Read a finished Response (the terminal event's, or the last poll's).

        Args:
            response: The SDK ``Response``: its ``id``, ``output``, ``error``
                and ``incomplete_details`` are read.
            status: How it ended.

        Returns:
            A result with the output items and everything read from them
            (answer, refusal, commentary, calls); a failed response's
            ``error`` says why.

        """
        result = cls(
            status=status,
            output_items=[output_item_to_input(item) for item in response.output],
            response_id=getattr(response, "id", None),
        )
        if status == "failed":
            error = getattr(response, "error", None)
            result.error = (
                error_text(
                    getattr(error, "message", None), getattr(error, "code", None)
                )
                or "The response failed."
            )
        details = getattr(response, "incomplete_details", None)
        result.incomplete_reason = getattr(details, "reason", None)
        result._read_output()
        return result

    @classmethod
    def from_api_error(cls, exc: openai.APIError) -> TurnResult:
        """Describe a rejected or unreachable request as an ``error`` result."""
        result = cls(status="error", error=format_api_error(exc))
        if isinstance(exc, openai.APIStatusError):
            result.http_status = exc.status_code
            result.error_code = api_error_code(exc)
        elif isinstance(exc, openai.APIConnectionError):
            # Timeouts are connection errors too.
            result.connection_error = True
        return result

    def _read_output(self) -> None:
        """Fill the answer, refusal, commentary and calls from the output items."""
        items = self.output_items
        for item in items:
            kind = item.get("type", "message")
            if kind == "message" and message_phase(item) == "commentary":
                self.commentary.append(message_text(item))
            elif kind == "function_call" and not is_interrupt_call(item):
                self.function_calls.append(FunctionCall.from_item(item))
        self.interrupts = interrupt_calls(items)
        self.answer_parts = answer_texts(items)
        self.answer = "".join(part.text for part in self.answer_parts)
        self.refusal = refusal_text(items)

    @property
    def replayable(self) -> bool:
        """Whether the output items belong in the ledger (LGOS produced them)."""
        return self.status in ("completed", "incomplete")

    @property
    def paused(self) -> bool:
        """Whether the run paused: a completed response with interrupt calls."""
        return self.status == "completed" and bool(self.interrupts)

    @property
    def retryable(self) -> bool:
        """Whether sending the same request again may work.

        True when LGOS was unreachable, answered 5xx, or another request
        held the run (``run_busy``).
        """
        if self.status != "error":
            return False
        return (
            self.connection_error
            or (self.http_status is not None and self.http_status >= 500)
            or self.error_code in _RETRYABLE_CODES
        )
