"""The client-side input ledger of one chat: its turns, function loop and pauses.

LGOS keeps no conversation: the client keeps an *input ledger* (the user turns
plus every output item of each answer, unchanged, commentary included) and
sends the whole ledger as ``input`` on every request. :class:`Conversation`
owns the ledger, runs the client function loop (a response with
``function_call`` items is answered with ``function_call_output`` items and a
follow-up request, until an answer has no calls) and decides what a turn
leaves behind; each request goes out through
:class:`~lgos_chainlit.turn.TurnContext`.

A response that ends with ``lgos_interrupt`` calls is a *pause*: the turn
waits in :attr:`Conversation.pending` (a
:class:`~lgos_client.interrupts.PendingPause`) until :meth:`Conversation.resume`
sends the answers. Interrupt calls never enter the ledger; when the run
finishes, the paused responses' other items and the final answer are
appended, so later requests replay a valid conversation.

Nothing here depends on Chainlit, so it is tested with a fake HTTP transport.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openai import AsyncOpenAI

from lgos_chainlit.attachments import Attachment, user_content
from lgos_chainlit.turn import TurnContext
from lgos_chainlit.turn_listener import TextSink, TurnListener
from lgos_chainlit.turn_result import TurnResult
from lgos_client.background import DEFAULT_POLL_INTERVAL
from lgos_client.functions import ClientFunction, FunctionCall
from lgos_client.interrupts import PendingPause, carried_items
from lgos_client.ledger import (
    MAX_FUNCTION_ROUNDS,
    call_output_item,
    calls_not_run_reason,
)

__all__ = ["Conversation"]

_STATE_VERSION = 1


def _not_run_output(reason: str) -> str:
    return json.dumps({"error": f"not run: {reason}"}, separators=(",", ":"))


@dataclass(slots=True)
class Conversation:
    """The client-side input ledger of one chat, its function loop and pauses.

    Each turn appends ``{"role": "user", "content": text}``; a completed or
    incomplete response appends every output item unchanged. When a
    completed response calls the client's functions, each call is run and a
    ``function_call_output`` item appended, and the ledger is sent again, up
    to :data:`~lgos_client.ledger.MAX_FUNCTION_ROUNDS` times.

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
        functions: Sequence[ClientFunction] = (),
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
            listener: Receives the turn's progress (see
                :class:`~lgos_chainlit.turn_listener.TurnListener`).
            functions: The functions offered (as ``tools``) and run by the UI:
                its own and MCP tools alike.
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
        turn = TurnContext(
            client,
            self.model,
            listener=listener or TurnListener(),
            on_text=on_text,
            functions=functions,
            max_function_rounds=max_function_rounds,
            background=background,
            poll_interval=poll_interval,
        )
        return await self._run(
            turn, mark=mark, metadata=dict(metadata or {}), tools=tools
        )

    async def resume(
        self,
        client: AsyncOpenAI,
        *,
        on_text: TextSink | None = None,
        listener: TurnListener | None = None,
        functions: Sequence[ClientFunction] = (),
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
        turn = TurnContext(
            client,
            self.model,
            listener=listener or TurnListener(),
            on_text=on_text,
            functions=functions,
            max_function_rounds=max_function_rounds,
            background=background,
            poll_interval=poll_interval,
        )
        return await self._run(
            turn,
            mark=pause.mark,
            metadata=pause.metadata,
            tools=pause.tools,
            resuming=pause,
        )

    def abandon(self) -> None:
        """Forget a pending pause and its turn (the user gave up on it)."""
        if self.pending is not None:
            del self.items[self.pending.mark :]
            self.pending = None

    async def _run(
        self,
        turn: TurnContext,
        *,
        mark: int,
        metadata: dict[str, str],
        tools: list[dict[str, Any]],
        resuming: PendingPause | None = None,
    ) -> TurnResult:
        """Send the turn's requests until it ends, pauses or fails.

        ``mark`` is the ledger length before the turn's user message;
        ``metadata`` and ``tools`` go with every request (and into a pause).
        """
        listener = turn.listener
        carried = list(resuming.carried) if resuming is not None else []
        rounds = 0
        try:
            while True:
                if resuming is not None:
                    request = turn.request(
                        resuming.resume_input(),
                        metadata=resuming.metadata,
                        tools=resuming.tools,
                        previous_response_id=resuming.response_id,
                    )
                else:
                    request = turn.request(
                        list(self.items), metadata=metadata, tools=tools
                    )
                result = await turn.send(request)
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
                reason = calls_not_run_reason(
                    result.status, rounds, turn.max_function_rounds
                )
                if reason is None:
                    for call in calls:
                        output, _ = await listener.run_function(call, turn.runner(call))
                        self.items.append(call_output_item(call.call_id, output))
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
                    call_output_item(call.call_id, _not_run_output(reason))
                )

    def to_json(self) -> dict[str, Any]:
        """Return the ledger and the pending pause as a JSON-ready dict.

        Returns:
            ``{"version", "model", "items", "pending"}``; ``pending`` is
            ``None`` or :meth:`PendingPause.to_json`'s output.

        """
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
