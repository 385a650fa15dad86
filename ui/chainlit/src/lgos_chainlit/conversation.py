"""One chat turn over the Responses API, and the client-side input ledger.

LGOS keeps no conversation: the client keeps an *input ledger* (the user turns
plus every output item of each answer, unchanged, commentary included) and
sends the whole ledger as ``input`` on every request. :func:`run_turn` streams
one response and reports its output items; :class:`Conversation` owns the
ledger, runs the client function loop (a response with ``function_call``
items is answered with ``function_call_output`` items and a follow-up
request, until an answer has no calls) and decides what a turn leaves behind.

A response that ends with ``lgos_interrupt`` calls is a *pause*: the turn
waits in :attr:`Conversation.pending` (a
:class:`~lgos_chainlit.interrupts.PendingPause`) until :meth:`Conversation.resume`
sends the answers. Interrupt calls never enter the ledger; when the run
finishes, the paused responses' other items and the final answer are
appended, so later requests replay a valid conversation.

Progress goes to a :class:`TurnListener`: commentary messages, answer text
deltas, server tool items (searches, custom tools), each finished response,
each function call. Nothing here depends on Chainlit, so it is tested with a
fake HTTP transport.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel

from lgos_chainlit.files import Attachment, user_content
from lgos_chainlit.functions import FunctionCall, LocalFunction, execute_call
from lgos_chainlit.interrupts import (
    PendingPause,
    carried_items,
    interrupt_calls,
    is_interrupt_call,
)
from lgos_chainlit.rendering import (
    AnswerText,
    answer_texts,
    message_phase,
    refusal_text,
)

__all__ = [
    "MAX_FUNCTION_ROUNDS",
    "Conversation",
    "FunctionRunner",
    "TurnListener",
    "TurnResult",
    "build_request",
    "format_api_error",
    "output_item_to_input",
    "run_turn",
]

logger = logging.getLogger(__name__)

TurnStatus = Literal["completed", "incomplete", "failed", "error"]
TextSink = Callable[[str], Awaitable[None]]
FunctionRunner = Callable[[], Awaitable[tuple[str, bool]]]

MAX_FUNCTION_ROUNDS = 5
"""How many times one user turn may run function calls before the UI stops."""

SERVER_TOOL_ITEMS = frozenset(
    {"web_search_call", "custom_tool_call", "custom_tool_call_output"}
)
"""Output item types of tools the graph runs itself, shown as tool steps."""

_RETRYABLE_CODES = frozenset({"run_busy"})

BACKGROUND_RUNNING = frozenset({"queued", "in_progress"})
"""Statuses of a background Response that is still running."""

DEFAULT_POLL_INTERVAL = 1.0
CANCEL_TIMEOUT = 10.0

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


class TurnListener:
    """Receives the progress of a turn; every hook does nothing by default.

    The Chainlit app subclasses it to draw steps and messages; tests subclass
    it to record what happened.
    """

    async def on_commentary(self, item_id: str, text: str) -> None:
        """Show a commentary message that grew; ``text`` is all of it so far."""

    async def on_commentary_done(self, item_id: str, text: str) -> None:
        """Finish a commentary message; ``text`` is all of it."""

    async def on_text(self, text: str) -> None:
        """Show a delta of answer text (never commentary)."""

    async def on_server_tool(self, item: dict[str, Any], *, done: bool) -> None:
        """Show a tool the graph ran itself, as its output item arrives.

        ``item`` is a ``web_search_call`` (also reported when it starts,
        with ``done=False``), a ``custom_tool_call`` or a
        ``custom_tool_call_output`` (JSON-ready dicts).
        """

    async def on_response(self, result: TurnResult) -> None:
        """Show one finished (or failed) response; called once per request."""

    async def on_background(
        self, response_id: str, status: str, elapsed: float
    ) -> None:
        """Show a background Response's progress; called after every poll."""

    async def run_function(
        self, call: FunctionCall, run: FunctionRunner
    ) -> tuple[str, bool]:
        """Run one function call: ``await run()`` returns ``(output, ok)``.

        Override to show the call; return what ``run()`` returned.
        """
        return await run()

    async def on_calls_not_run(
        self, calls: Sequence[FunctionCall], reason: str
    ) -> None:
        """Report function calls of the last response that were not run."""


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
    return "".join(
        part["text"]
        for part in parts
        if isinstance(part, Mapping)
        and part.get("type") == "output_text"
        and isinstance(part.get("text"), str)
    )


def _terminal_error(response: Any) -> str:
    error = getattr(response, "error", None)
    message = getattr(error, "message", None)
    code = getattr(error, "code", None)
    if message and code:
        return f"{message} ({code})"
    return message or "The response failed."


def _read_output(result: TurnResult) -> None:
    """Fill the answer, refusal, commentary and calls from the output items."""
    items = result.output_items
    for item in items:
        kind = item.get("type", "message")
        if kind == "message" and message_phase(item) == "commentary":
            result.commentary.append(_message_text(item))
        elif kind == "function_call" and not is_interrupt_call(item):
            result.function_calls.append(FunctionCall.from_item(item))
    result.interrupts = interrupt_calls(items)
    result.answer_parts = answer_texts(items)
    result.answer = "".join(part.text for part in result.answer_parts)
    result.refusal = refusal_text(items)


def build_request(
    *,
    model: str,
    input: Sequence[Mapping[str, Any]],
    metadata: Mapping[str, str] | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    previous_response_id: str | None = None,
    background: bool = False,
) -> dict[str, Any]:
    """Build the keyword arguments of one streamed ``responses.create`` call.

    ``store`` is always false (LGOS keeps nothing; the client keeps the
    ledger); ``metadata`` and ``tools`` are sent when not empty, and
    ``previous_response_id`` only to resume a paused run.
    """
    request: dict[str, Any] = {
        "model": model,
        "input": [dict(item) for item in input],
        "stream": True,
        "store": False,
    }
    if metadata:
        request["metadata"] = dict(metadata)
    if tools:
        request["tools"] = [dict(tool) for tool in tools]
    if previous_response_id is not None:
        request["previous_response_id"] = previous_response_id
    if background:
        # Polled, never streamed (LGOS rejects stream with background).
        request["stream"] = False
        request["background"] = True
    return request


def _error_result(exc: openai.APIError) -> TurnResult:
    result = TurnResult(status="error", error=format_api_error(exc))
    if isinstance(exc, openai.APIStatusError):
        result.http_status = exc.status_code
        body = exc.body
        if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
            body = body["error"]
        code = body.get("code") if isinstance(body, Mapping) else None
        result.error_code = code if isinstance(code, str) else None
    elif isinstance(exc, openai.APIConnectionError):
        # Timeouts are connection errors too.
        result.connection_error = True
    return result


async def run_turn(
    client: AsyncOpenAI,
    *,
    model: str,
    ledger: Sequence[Mapping[str, Any]],
    metadata: Mapping[str, str] | None = None,
    on_text: TextSink | None = None,
    listener: TurnListener | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    previous_response_id: str | None = None,
    background: bool = False,
    poll_interval: float = DEFAULT_POLL_INTERVAL,
) -> TurnResult:
    """Stream one response for ``ledger`` and collect its output items.

    Text deltas of answer messages go to ``on_text`` and
    ``listener.on_text`` as they arrive; commentary messages
    (``phase == "commentary"``) never do: they go to
    ``listener.on_commentary`` and are collected in
    :attr:`TurnResult.commentary`. Server tool items (``web_search_call``,
    ``custom_tool_call`` and their outputs) go to
    ``listener.on_server_tool``. ``tools`` are sent when given. To resume a
    paused run, ``ledger`` holds the ``function_call_output`` answers and
    ``previous_response_id`` the paused Response's ID. API and connection
    errors do not raise: they come back as a result with
    ``status == "error"``. ``listener.on_response`` is *not* called here (see
    :meth:`Conversation.ask`).
    """
    listener = listener or TurnListener()
    phases: dict[str, str | None] = {}
    commentary: dict[str, str] = {}
    result: TurnResult | None = None
    streamed = False

    async def sink(text: str) -> None:
        nonlocal streamed
        if not text:
            return
        streamed = True
        if on_text is not None:
            await on_text(text)
        await listener.on_text(text)

    request = build_request(
        model=model,
        input=ledger,
        metadata=metadata,
        tools=tools,
        previous_response_id=previous_response_id,
        background=background,
    )
    if background:
        return await _run_background(
            client, request, listener, sink, poll_interval=poll_interval
        )
    try:
        stream = await client.responses.create(**request)
        async with stream:
            async for event in stream:
                kind = getattr(event, "type", None)
                if kind == "response.output_item.added":
                    item = event.item
                    item_type = getattr(item, "type", None)
                    if item_type == "message":
                        phases[item.id] = getattr(item, "phase", None)
                    elif item_type == "web_search_call":
                        await listener.on_server_tool(
                            output_item_to_input(item), done=False
                        )
                elif kind == "response.output_text.delta":
                    if phases.get(event.item_id) == "commentary":
                        text = commentary.get(event.item_id, "") + event.delta
                        commentary[event.item_id] = text
                        await listener.on_commentary(event.item_id, text)
                    else:
                        await sink(event.delta)
                elif kind == "response.output_item.done":
                    item = event.item
                    item_type = getattr(item, "type", None)
                    if item_type == "message" and phases.get(item.id) == "commentary":
                        done = _message_text(output_item_to_input(item))
                        await listener.on_commentary_done(item.id, done)
                    elif item_type in SERVER_TOOL_ITEMS:
                        await listener.on_server_tool(
                            output_item_to_input(item), done=True
                        )
                elif kind in _TERMINAL_EVENTS:
                    response = event.response
                    result = TurnResult(
                        status=_TERMINAL_EVENTS[kind],  # type: ignore[arg-type]
                        output_items=[output_item_to_input(i) for i in response.output],
                        response_id=getattr(response, "id", None),
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
                        error_code=code if isinstance(code, str) else None,
                    )
                    break
    except openai.APIError as exc:
        if isinstance(exc, openai.APIConnectionError) and client.is_closed():
            # The UI closed its own client (the chat ended): not LGOS's fault.
            logger.info("Responses stream for model %r closed by the UI", model)
        else:
            logger.warning("Responses request for model %r failed: %s", model, exc)
        return _error_result(exc)

    if result is None:
        return TurnResult(
            status="error",
            error="The answer stream ended before the response finished.",
            streamed=streamed,
            connection_error=True,
        )

    _read_output(result)
    if not streamed and result.answer:
        # No deltas were seen (e.g. an intermediary buffered the stream):
        # show the final answer from the terminal response instead.
        await sink(result.answer)
    result.streamed = streamed
    return result


async def _cancel(client: AsyncOpenAI, response_id: str) -> None:
    """Cancel a background Response (best effort; the turn is gone anyway)."""
    try:
        await asyncio.wait_for(
            client.responses.cancel(response_id), timeout=CANCEL_TIMEOUT
        )
        logger.info("Cancelled background response %s", response_id)
    except (openai.OpenAIError, TimeoutError) as exc:
        logger.warning("Cannot cancel background response %s: %s", response_id, exc)


async def _run_background(
    client: AsyncOpenAI,
    request: dict[str, Any],
    listener: TurnListener,
    sink: TextSink,
    *,
    poll_interval: float,
) -> TurnResult:
    """Create a background Response and poll it until it ends.

    The listener hears every poll (``on_background``); once the Response
    ends, its commentary and server tool items are reported as if streamed
    and the answer goes to ``sink`` whole. A cancelled task (the user
    pressed Stop) cancels the Response on the server, then re-raises.
    """
    started = time.monotonic()
    response_id: str | None = None
    try:
        response = await client.responses.create(**request)
        polled = str(response.id)
        response_id = polled
        await listener.on_background(polled, response.status or "queued", 0.0)
        while response.status in BACKGROUND_RUNNING:
            await asyncio.sleep(poll_interval)
            response = await client.responses.retrieve(polled)
            await listener.on_background(
                polled, response.status or "", time.monotonic() - started
            )
    except asyncio.CancelledError:
        if response_id is not None:
            await _cancel(client, response_id)
        raise
    except openai.APIError as exc:
        logger.warning("Background response %s failed: %s", response_id, exc)
        result = _error_result(exc)
        result.response_id = response_id
        return result
    status = response.status
    output = [output_item_to_input(item) for item in response.output]
    if status == "cancelled":
        return TurnResult(
            status="error",
            error="The background response was cancelled.",
            response_id=response_id,
            error_code="cancelled",
        )
    if status not in ("completed", "incomplete", "failed"):
        return TurnResult(
            status="error",
            error=f"The background response ended as {status!r}.",
            response_id=response_id,
        )
    result = TurnResult(
        status=status,  # type: ignore[arg-type]
        output_items=output,
        response_id=response_id,
    )
    if status == "failed":
        result.error = _terminal_error(response)
    details = getattr(response, "incomplete_details", None)
    result.incomplete_reason = getattr(details, "reason", None)
    for item in output:
        kind = item.get("type", "message")
        if kind == "message" and message_phase(item) == "commentary":
            await listener.on_commentary_done(str(item.get("id")), _message_text(item))
        elif kind in SERVER_TOOL_ITEMS:
            await listener.on_server_tool(item, done=True)
    _read_output(result)
    if result.answer:
        await sink(result.answer)
    result.streamed = bool(result.answer)
    return result


def _not_run_output(reason: str) -> str:
    return json.dumps({"error": f"not run: {reason}"}, separators=(",", ":"))


_STATE_VERSION = 1


@dataclass(slots=True)
class Conversation:
    """The client-side input ledger of one chat, its function loop and pauses.

    Each turn appends ``{"role": "user", "content": text}``; a completed or
    incomplete response appends every output item unchanged. When a
    completed response calls the client's functions, each call is run and a
    ``function_call_output`` item appended, and the ledger is sent again, up
    to :data:`MAX_FUNCTION_ROUNDS` times.

    Calls that are deliberately not run (from an incomplete response, or past
    the round limit) still need an output to be replayable: complete calls
    get ``{"error": "not run: <reason>"}``; truncated calls (``status:
    "incomplete"``, whose arguments may not even be JSON) are removed.

    A response with ``lgos_interrupt`` calls pauses the turn:
    :attr:`pending` records the paused Response ID, the calls, the request's
    metadata and tools, and the paused items to keep; the ledger holds the
    turn's user message (and any earlier function round) meanwhile.
    :meth:`resume` answers it; a run that pauses again stays pending. When
    the run finishes, the paused items and the answer are appended; the
    interrupt calls never are.

    A turn whose request was rejected, failed or was cancelled is removed
    again, whole, so one bad message (say, over a size limit) cannot poison
    every later request. A resume that failed only because LGOS could not be
    reached, or was busy, keeps its pause so it can be sent again.
    """

    model: str
    items: list[dict[str, Any]] = field(default_factory=list)
    pending: PendingPause | None = None

    async def ask(
        self,
        client: AsyncOpenAI,
        text: str,
        *,
        metadata: Mapping[str, str] | None = None,
        on_text: TextSink | None = None,
        listener: TurnListener | None = None,
        functions: Sequence[LocalFunction] = (),
        server_tools: Sequence[Mapping[str, Any]] = (),
        max_function_rounds: int = MAX_FUNCTION_ROUNDS,
        attachments: Sequence[Attachment] = (),
        background: bool = False,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
    ) -> TurnResult:
        """Send ``text`` as the next user turn; answer function calls until done.

        Args:
            client: The OpenAI client.
            text: The user's message.
            metadata: Sent with every request of the turn.
            on_text: Receives answer text deltas.
            listener: Receives the turn's progress (see :class:`TurnListener`).
            functions: The functions offered (as ``tools``) and run locally.
            server_tools: Server tool selectors sent in ``tools`` too, such as
                ``{"type": "web_search"}``.
            max_function_rounds: The most rounds of function calls to run.
            attachments: Uploaded files, sent as ``input_file`` parts after
                an ``input_text`` part (the ledger keeps only their IDs).
            background: Send every request of the turn with
                ``background=True`` and poll it instead of streaming.
            poll_interval: Seconds between polls of a background Response.

        Returns:
            The result of the turn's last response; when it :attr:`~TurnResult.paused`,
            :attr:`pending` holds the pause.

        Raises:
            RuntimeError: A pause is pending; answer it with :meth:`resume`.

        """
        if self.pending is not None:
            raise RuntimeError("a paused run is waiting for answers")
        tools = [function.tool() for function in functions]
        tools.extend(dict(tool) for tool in server_tools)
        mark = len(self.items)
        self.items.append({"role": "user", "content": user_content(text, attachments)})
        return await self._run(
            client,
            mark=mark,
            metadata=dict(metadata or {}),
            tools=tools,
            on_text=on_text,
            listener=listener or TurnListener(),
            functions=functions,
            max_function_rounds=max_function_rounds,
            background=background,
            poll_interval=poll_interval,
        )

    async def resume(
        self,
        client: AsyncOpenAI,
        *,
        on_text: TextSink | None = None,
        listener: TurnListener | None = None,
        functions: Sequence[LocalFunction] = (),
        max_function_rounds: int = MAX_FUNCTION_ROUNDS,
        background: bool = False,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
    ) -> TurnResult:
        """Send the answers of :attr:`pending` in one resume request.

        The request repeats the paused request's metadata and tools. After
        it, the run may finish (the ledger gains the paused items and the
        answer, and client function calls continue as in :meth:`ask`), pause
        again, or fail (see the class docstring).

        Raises:
            RuntimeError: Nothing is pending.
            ValueError: A call of the pause has no answer yet.

        """
        pause = self.pending
        if pause is None:
            raise RuntimeError("no paused run to resume")
        pause.resume_input()  # every call answered, or ValueError
        return await self._run(
            client,
            mark=pause.mark,
            metadata=pause.metadata,
            tools=pause.tools,
            on_text=on_text,
            listener=listener or TurnListener(),
            functions=functions,
            max_function_rounds=max_function_rounds,
            resuming=pause,
            background=background,
            poll_interval=poll_interval,
        )

    def abandon(self) -> None:
        """Forget a pending pause and its turn (the user gave up on it)."""
        if self.pending is not None:
            del self.items[self.pending.mark :]
            self.pending = None

    async def _run(
        self,
        client: AsyncOpenAI,
        *,
        mark: int,
        metadata: dict[str, str],
        tools: list[dict[str, Any]],
        on_text: TextSink | None,
        listener: TurnListener,
        functions: Sequence[LocalFunction],
        max_function_rounds: int,
        resuming: PendingPause | None = None,
        background: bool = False,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
    ) -> TurnResult:
        by_name = {function.name: function for function in functions}
        carried = list(resuming.carried) if resuming is not None else []
        rounds = 0
        try:
            while True:
                if resuming is not None:
                    result = await run_turn(
                        client,
                        model=self.model,
                        ledger=resuming.resume_input(),
                        metadata=resuming.metadata,
                        on_text=on_text,
                        listener=listener,
                        tools=resuming.tools,
                        previous_response_id=resuming.response_id,
                        background=background,
                        poll_interval=poll_interval,
                    )
                else:
                    result = await run_turn(
                        client,
                        model=self.model,
                        ledger=list(self.items),
                        metadata=metadata,
                        on_text=on_text,
                        listener=listener,
                        tools=tools,
                        background=background,
                        poll_interval=poll_interval,
                    )
                if resuming is not None and not result.paused and result.retryable:
                    # The same resume can be sent again: keep the pause.
                    await listener.on_response(result)
                    return result
                resuming = None
                self.pending = None
                if not result.replayable:
                    del self.items[mark:]
                    await listener.on_response(result)
                    return result
                if result.paused:
                    carried.extend(carried_items(result.output_items))
                    if result.response_id is None:  # pragma: no cover - defensive
                        raise RuntimeError("a paused response without an id")
                    self.pending = PendingPause(
                        response_id=result.response_id,
                        calls=result.interrupts,
                        metadata=dict(metadata),
                        tools=[dict(tool) for tool in tools],
                        mark=mark,
                        carried=carried,
                    )
                    await listener.on_response(result)
                    return result
                self.items.extend(carried)
                carried = []
                self.items.extend(result.output_items)
                await listener.on_response(result)
                calls = result.function_calls
                if not calls:
                    return result
                if result.status != "completed":
                    reason = "the response was incomplete"
                elif rounds >= max_function_rounds:
                    reason = (
                        f"the UI stops after {max_function_rounds} rounds of "
                        "function calls"
                    )
                else:
                    for call in calls:
                        output, _ = await listener.run_function(
                            call, _runner(call, by_name)
                        )
                        self.items.append(
                            {
                                "type": "function_call_output",
                                "call_id": call.call_id,
                                "output": output,
                            }
                        )
                    rounds += 1
                    continue
                self._settle(calls, reason)
                await listener.on_calls_not_run(calls, reason)
                return result
        except BaseException:
            # Cancelled (the user pressed stop) or a bug: forget the turn.
            # A cancelled resume also ends the run on the server.
            del self.items[mark:]
            self.pending = None
            raise

    def _settle(self, calls: Sequence[FunctionCall], reason: str) -> None:
        """Make calls that were not run replayable (see the class docstring)."""
        truncated = {call.call_id for call in calls if not call.complete}
        if truncated:
            self.items[:] = [
                item
                for item in self.items
                if not (
                    item.get("type") == "function_call"
                    and item.get("call_id") in truncated
                )
            ]
        for call in calls:
            if call.complete:
                self.items.append(
                    {
                        "type": "function_call_output",
                        "call_id": call.call_id,
                        "output": _not_run_output(reason),
                    }
                )

    def to_json(self) -> dict[str, Any]:
        """Return the ledger and the pending pause as a JSON-ready dict."""
        return {
            "version": _STATE_VERSION,
            "model": self.model,
            "items": [dict(item) for item in self.items],
            "pending": self.pending.to_json() if self.pending else None,
        }

    @classmethod
    def from_json(cls, data: object, *, model: str) -> Conversation:
        """Restore :meth:`to_json`'s output; an empty conversation if unusable.

        A saved conversation of another model is not restored (the ledger
        would be replayed to the wrong graph).
        """
        if (
            not isinstance(data, Mapping)
            or data.get("version") != _STATE_VERSION
            or data.get("model") != model
        ):
            return cls(model=model)
        raw_items = data.get("items")
        items = (
            [dict(item) for item in raw_items if isinstance(item, Mapping)]
            if isinstance(raw_items, list)
            else []
        )
        pending = PendingPause.from_json(data.get("pending"))
        if pending is not None and not 0 <= pending.mark < len(items):
            pending = None
        return cls(model=model, items=items, pending=pending)


def _runner(
    call: FunctionCall, functions: Mapping[str, LocalFunction]
) -> FunctionRunner:
    async def run() -> tuple[str, bool]:
        return execute_call(call, functions)

    return run
