"""Consume one streamed Responses request: decode its events, report progress.

Text deltas of answer messages go to the answer sink
(:class:`~lgos_chainlit.turn_listener.AnswerSink`) as they arrive;
commentary messages (``phase == "commentary"``) never do: they go to
``listener.on_commentary`` as they grow. Finished commentary and server
tool items are reported with
:func:`~lgos_chainlit.turn_listener.report_finished_item`, and the terminal
event becomes the :class:`~lgos_chainlit.turn_result.TurnResult`.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import openai
from openai import AsyncOpenAI

from lgos_chainlit.turn_listener import AnswerSink, TurnListener, report_finished_item
from lgos_chainlit.turn_result import FinishedStatus, TurnResult, output_item_to_input
from lgos_client.api_errors import error_text

__all__ = ["stream_response"]

logger = logging.getLogger(__name__)

_TERMINAL_EVENTS: dict[str, FinishedStatus] = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}


@dataclass(slots=True)
class _Decoder:
    """The state of one stream: each message's phase, each commentary's text."""

    listener: TurnListener
    sink: AnswerSink
    phases: dict[str, str | None] = field(default_factory=dict)
    commentary: dict[str, str] = field(default_factory=dict)

    async def feed(self, event: Any) -> TurnResult | None:
        """Handle one event; return the result once the stream has ended."""
        kind = getattr(event, "type", None)
        if kind == "response.output_item.added":
            item = event.item
            item_type = getattr(item, "type", None)
            if item_type == "message":
                self.phases[item.id] = getattr(item, "phase", None)
            elif item_type == "web_search_call":
                await self.listener.on_server_tool(
                    output_item_to_input(item), done=False
                )
        elif kind == "response.output_text.delta":
            if self.phases.get(event.item_id) == "commentary":
                text = self.commentary.get(event.item_id, "") + event.delta
                self.commentary[event.item_id] = text
                await self.listener.on_commentary(event.item_id, text)
            else:
                await self.sink(event.delta)
        elif kind == "response.output_item.done":
            item = event.item
            await report_finished_item(
                self.listener,
                output_item_to_input(item),
                phase=self.phases.get(getattr(item, "id", None) or ""),
            )
        elif kind in _TERMINAL_EVENTS:
            return TurnResult.from_response(event.response, _TERMINAL_EVENTS[kind])
        elif kind == "error":
            code = getattr(event, "code", None)
            return TurnResult(
                status="error",
                error=error_text(
                    getattr(event, "message", None) or "Stream error.", code
                ),
                error_code=code if isinstance(code, str) else None,
            )
        return None


async def stream_response(
    client: AsyncOpenAI,
    request: dict[str, Any],
    *,
    listener: TurnListener,
    sink: AnswerSink,
) -> TurnResult:
    """Send a streamed request and decode it until its terminal event.

    Args:
        client: The OpenAI client.
        request: ``responses.create`` keyword arguments with ``stream=True``
            (see :func:`~lgos_chainlit.responses_request.build_request`).
        listener: Hears commentary and server tools as they arrive.
        sink: Receives the answer text deltas (and the whole answer when no
            delta came).

    Returns:
        The terminal response's result. API and connection errors, an
        ``error`` event and a stream cut off before its terminal event do
        not raise: they come back with ``status == "error"``.

    """
    decoder = _Decoder(listener, sink)
    result: TurnResult | None = None
    try:
        stream = await client.responses.create(**request)
        async with stream:
            async for event in stream:
                result = await decoder.feed(event)
                if result is not None:
                    break
    except openai.APIError as exc:
        model = request.get("model")
        if isinstance(exc, openai.APIConnectionError) and client.is_closed():
            # The UI closed its own client (the chat ended): not LGOS's fault.
            logger.info("Responses stream for model %r closed by the UI", model)
        else:
            logger.warning("Responses request for model %r failed: %s", model, exc)
        return TurnResult.from_api_error(exc)

    if result is None:
        return TurnResult(
            status="error",
            error="The answer stream ended before the response finished.",
            streamed=sink.streamed,
            connection_error=True,
        )
    # No deltas may have been seen (e.g. an intermediary buffered the
    # stream): then the final answer is shown from the terminal response.
    return await sink.finish(result)
