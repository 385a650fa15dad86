"""Send the requests of one chat turn, streamed or polled in the background.

:class:`TurnContext` is what every request of a user turn (its follow-ups
after function calls, its resume after a pause) shares: the client, the
model, who hears the progress, the functions the UI runs, and whether
requests run in the background. :meth:`TurnContext.send` sends one request
through :mod:`lgos_chainlit.turn_stream` or :mod:`lgos_chainlit.background_poll`;
:func:`run_turn` sends a single request for a ledger.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openai import AsyncOpenAI

from lgos_chainlit.background_poll import poll_background
from lgos_chainlit.responses_request import build_request
from lgos_chainlit.turn_listener import (
    AnswerSink,
    FunctionRunner,
    TextSink,
    TurnListener,
)
from lgos_chainlit.turn_result import TurnResult
from lgos_chainlit.turn_stream import stream_response
from lgos_client.background import DEFAULT_POLL_INTERVAL
from lgos_client.functions import ClientFunction, FunctionCall
from lgos_client.ledger import MAX_FUNCTION_ROUNDS

__all__ = ["TurnContext", "run_turn"]
"""How many times one user turn may run function calls before the UI stops."""


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What every request of one user turn shares.

    Attributes:
        client: The OpenAI client.
        model: The ``model`` of every request.
        listener: Hears the turn's progress (see
            :class:`~lgos_chainlit.turn_listener.TurnListener`).
        on_text: Also receives the answer text deltas (``None``: nobody).
        functions: The functions the UI runs when the graph calls them (its
            own and MCP tools alike, see
            :class:`~lgos_client.functions.ClientFunction`).
        max_function_rounds: The most rounds of function calls to run.
        background: Send every request with ``background=True`` and poll it
            instead of streaming.
        poll_interval: Seconds between polls of a background Response.

    """

    client: AsyncOpenAI
    model: str
    listener: TurnListener = field(default_factory=TurnListener)
    on_text: TextSink | None = None
    functions: Sequence[ClientFunction] = ()
    max_function_rounds: int = MAX_FUNCTION_ROUNDS
    background: bool = False
    poll_interval: float = DEFAULT_POLL_INTERVAL

    def request(
        self,
        input: Sequence[Mapping[str, Any]],
        *,
        metadata: Mapping[str, str] | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
        previous_response_id: str | None = None,
    ) -> dict[str, Any]:
        """Build one request of the turn (see :func:`build_request`)."""
        return build_request(
            model=self.model,
            input=input,
            metadata=metadata,
            tools=tools,
            previous_response_id=previous_response_id,
            background=self.background,
        )

    async def send(self, request: dict[str, Any]) -> TurnResult:
        """Send one request; stream it, or poll it when it runs in the background.

        API and connection errors do not raise: they come back as a result
        with ``status == "error"``. ``listener.on_response`` is *not* called
        here (the ledger calls it once it has settled the result).

        Raises:
            asyncio.CancelledError: The task was cancelled (a background
                Response is cancelled on the server first).

        """
        sink = AnswerSink(self.listener, self.on_text)
        if request.get("background"):
            return await poll_background(
                self.client,
                request,
                listener=self.listener,
                sink=sink,
                poll_interval=self.poll_interval,
            )
        return await stream_response(
            self.client, request, listener=self.listener, sink=sink
        )

    def runner(self, call: FunctionCall) -> FunctionRunner:
        """Return what runs ``call`` with the turn's functions, when awaited.

        Awaiting it returns ``(output, ok)`` and never raises for a bad call:
        a name the turn did not offer gives ``{"error": "unknown function
        '...'"}`` (ok False); the rest is the function's own ``execute``.
        """
        function = next((f for f in self.functions if f.name == call.name), None)

        async def run() -> tuple[str, bool]:
            if function is None:
                return _unknown(call.name), False
            return await function.execute(call)

        return run


def _unknown(name: str) -> str:
    return json.dumps(
        {"error": f"unknown function {name!r}"},
        ensure_ascii=False,
        separators=(",", ":"),
    )


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
    :meth:`~lgos_chainlit.ledger.Conversation.ask`).

    Returns:
        The response's result (see :class:`TurnResult`).

    """
    context = TurnContext(
        client,
        model,
        listener=listener or TurnListener(),
        on_text=on_text,
        background=background,
        poll_interval=poll_interval,
    )
    return await context.send(
        context.request(
            ledger,
            metadata=metadata,
            tools=tools,
            previous_response_id=previous_response_id,
        )
    )
