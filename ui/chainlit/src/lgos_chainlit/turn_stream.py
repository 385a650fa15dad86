"""Consume one streamed Responses request: decode its events, report progress.

The events are decoded by :class:`lgos_client.stream.StreamDecoder` (shared
with the Open WebUI pipe); this module shows the updates.

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
from lgos_chainlit.turn_result import TurnResult
from lgos_client.api_errors import error_text
from lgos_client.stream import (
    AnswerDelta,
    CommentaryDelta,
    ItemAdded,
    ItemDone,
    StreamDecoder,
    StreamEnd,
    StreamError,
)

__all__ = ["stream_response"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class _Decoder:
    """Show one stream's updates (decoded by :class:`StreamDecoder`)."""

    listener: TurnListener
    sink: AnswerSink
    decoder: StreamDecoder = field(default_factory=StreamDecoder)

    async def feed(self, event: Any) -> TurnResult | None:
        """Handle one event; return the result once the stream has ended."""
        update = self.decoder.feed(event)
        if isinstance(update, ItemAdded):
            if update.item.get("type") == "web_search_call":
                await self.listener.on_server_tool(update.item, done=False)
        elif isinstance(update, CommentaryDelta):
            await self.listener.on_commentary(update.item_id, update.text)
        elif isinstance(update, AnswerDelta):
            if not update.refusal:  # a refusal is shown from the result
                await self.sink(update.text)
        elif isinstance(update, ItemDone):
            await report_finished_item(self.listener, update.item, phase=update.phase)
        elif isinstance(update, StreamEnd):
            return TurnResult.from_response(update.response, update.status)
        elif isinstance(update, StreamError):
            return TurnResult(
                status="error",
                error=error_text(update.message or "Stream error.", update.code),
                error_code=update.code,
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
