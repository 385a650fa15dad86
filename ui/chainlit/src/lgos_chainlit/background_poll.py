"""Run one request in the background: create the Response, poll it to its end.

The listener hears every poll (``on_background``); once the Response ends,
its commentary and server tool items are reported as if streamed (with
:func:`~lgos_chainlit.turn_listener.report_finished_item`) and the answer goes
to the sink whole. A cancelled task (the user pressed Stop) cancels the
Response on the server.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import openai
from openai import AsyncOpenAI

from lgos_chainlit.rendering import message_phase
from lgos_chainlit.turn_listener import AnswerSink, TurnListener, report_finished_item
from lgos_chainlit.turn_result import TurnResult

__all__ = [
    "BACKGROUND_RUNNING",
    "CANCEL_TIMEOUT",
    "DEFAULT_POLL_INTERVAL",
    "cancel_background",
    "poll_background",
]

logger = logging.getLogger(__name__)

BACKGROUND_RUNNING = frozenset({"queued", "in_progress"})
"""Statuses of a background Response that is still running."""

DEFAULT_POLL_INTERVAL = 1.0
"""Seconds between two polls of a background Response."""

CANCEL_TIMEOUT = 10.0
"""Seconds a Stop waits for LGOS to cancel a background Response."""


async def cancel_background(client: AsyncOpenAI, response_id: str) -> None:
    """Cancel a background Response (best effort; the turn is gone anyway).

    Never raises for an SDK error or a timeout: they are logged.
    """
    try:
        await asyncio.wait_for(
            client.responses.cancel(response_id), timeout=CANCEL_TIMEOUT
        )
        logger.info("Cancelled background response %s", response_id)
    except (openai.OpenAIError, TimeoutError) as exc:
        logger.warning("Cannot cancel background response %s: %s", response_id, exc)


async def poll_background(
    client: AsyncOpenAI,
    request: dict[str, Any],
    *,
    listener: TurnListener,
    sink: AnswerSink,
    poll_interval: float = DEFAULT_POLL_INTERVAL,
) -> TurnResult:
    """Create a background Response and poll it until it ends.

    Args:
        client: The OpenAI client.
        request: ``responses.create`` keyword arguments with
            ``background=True`` (see
            :func:`~lgos_chainlit.responses_request.build_request`).
        listener: Hears every poll, then the finished items.
        sink: Receives the answer, whole, once the Response has ended.
        poll_interval: Seconds between polls.

    Returns:
        The ended Response's result; an API error, a cancelled Response or
        an unknown final status comes back with ``status == "error"``.

    Raises:
        asyncio.CancelledError: The task was cancelled; the Response was
            cancelled on the server first.

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
            await cancel_background(client, response_id)
        raise
    except openai.APIError as exc:
        logger.warning("Background response %s failed: %s", response_id, exc)
        result = TurnResult.from_api_error(exc)
        result.response_id = response_id
        return result
    status = response.status
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
    result = TurnResult.from_response(response, status)
    result.response_id = response_id  # the ID created and polled
    for item in result.output_items:
        await report_finished_item(listener, item, phase=message_phase(item))
    return await sink.finish(result)
