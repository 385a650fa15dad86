"""Run one request in the background and read its end as a :class:`TurnResult`.

The polling itself is :func:`lgos_client.background.wait_background` (shared
with the Open WebUI pipe). The listener hears every poll (``on_background``);
once the Response ends, its commentary and server tool items are reported as
if streamed (with :func:`~lgos_chainlit.turn_listener.report_finished_item`)
and the answer goes to the sink whole. A cancelled task (the user pressed
Stop) cancels the Response on the server.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

import logging
from typing import Any

import openai
from openai import AsyncOpenAI

from lgos_chainlit.turn_listener import AnswerSink, TurnListener, report_finished_item
from lgos_chainlit.turn_result import TurnResult
from lgos_client.background import DEFAULT_POLL_INTERVAL, wait_background
from lgos_client.items import message_phase

__all__ = ["poll_background"]

logger = logging.getLogger(__name__)


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
    created: list[str] = []

    async def on_poll(response_id: str, status: str, elapsed: float) -> None:
        if not created:
            created.append(response_id)
        await listener.on_background(response_id, status, elapsed)

    try:
        response = await wait_background(
            client, request, on_poll=on_poll, poll_interval=poll_interval
        )
    except openai.APIError as exc:
        response_id = created[0] if created else None
        logger.warning("Background response %s failed: %s", response_id, exc)
        result = TurnResult.from_api_error(exc)
        result.response_id = response_id
        return result
    response_id = created[0] if created else str(response.id)
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
