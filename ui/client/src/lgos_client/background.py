"""Run one request in the background: create the Response, poll it to its end.

A request sent with ``background=True`` returns at once with a Response that
is ``queued`` or ``in_progress``; the client retrieves it
(``GET /v1/responses/{id}``) until its status is terminal (``completed``,
``incomplete``, ``failed`` or ``cancelled``), and cancels it
(``POST /v1/responses/{id}/cancel``) when the user stops the turn — the
OpenAI background-mode protocol, which LGOS serves for graphs with the
``background`` feature.

:func:`wait_background` does the polling; what each UI shows while it waits
(the Chainlit step, the Open WebUI status lines and their cadence) is its
``on_poll`` callback. :func:`cancel_background` is the best-effort cancel.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from openai import AsyncOpenAI

__all__ = [
    "BACKGROUND_RUNNING",
    "CANCEL_TIMEOUT",
    "DEFAULT_POLL_INTERVAL",
    "PollCallback",
    "cancel_background",
    "wait_background",
]

logger = logging.getLogger(__name__)

BACKGROUND_RUNNING = frozenset({"queued", "in_progress"})
"""Statuses of a background Response that is still running."""

DEFAULT_POLL_INTERVAL = 1.0
"""Seconds between two polls of a background Response."""

CANCEL_TIMEOUT = 10.0
"""Seconds a Stop waits for LGOS to cancel a background Response."""

PollCallback = Callable[[str, str, float], Awaitable[None]]
"""``on_poll(response_id, status, elapsed)``: called after every poll."""


async def cancel_background(
    client: AsyncOpenAI, response_id: str, *, limit: float = CANCEL_TIMEOUT
) -> None:
    """Cancel a background Response (best effort; the turn is gone anyway).

    The cancel request is shielded from a second cancellation of the caller
    (a Stop pressed twice still cancels the run on the server) and given up
    after ``limit`` seconds. Never raises for an SDK error or a timeout:
    they are logged; a cancellation of the caller still propagates.
    """
    request = asyncio.ensure_future(client.responses.cancel(response_id))
    try:
        await asyncio.wait_for(asyncio.shield(request), timeout=limit)
        logger.info("Cancelled background response %s", response_id)
    except TimeoutError:
        request.cancel()
        logger.warning("Cannot cancel background response %s: timed out", response_id)
    except Exception as exc:
        logger.warning("Cannot cancel background response %s: %s", response_id, exc)


async def wait_background(
    client: AsyncOpenAI,
    request: Mapping[str, Any],
    *,
    on_poll: PollCallback | None = None,
    poll_interval: float = DEFAULT_POLL_INTERVAL,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Any:
    """Create a background Response and poll it until it is no longer running.

    Args:
        client: The OpenAI client.
        request: ``responses.create`` keyword arguments; ``background=True``
            must be among them.
        on_poll: Called as ``on_poll(response_id, status, elapsed)`` once the
            Response is created (``elapsed`` 0.0) and after every retrieve,
            the last (terminal) one included; ``status`` is the Response's
            (``"queued"`` when the created one has none, ``""`` when a
            retrieved one has none); ``elapsed`` is seconds since creation.
        poll_interval: Seconds to sleep between two retrieves.
        sleep: Sleeps between polls (tests pass a fake).
        clock: Monotonic seconds (tests pass a fake).

    Returns:
        The last retrieved SDK ``Response``: its ``status`` is not in
        :data:`BACKGROUND_RUNNING` (any other status, even an unknown one,
        ends the polling; the caller reads it).

    Raises:
        openai.APIError: Creating or retrieving the Response failed (the
            Response, if created, keeps running).
        asyncio.CancelledError: The caller was cancelled; the Response was
            cancelled on the server first (:func:`cancel_background`).

    """
    response = await client.responses.create(**request)
    response_id = str(response.id)
    started = clock()
    try:
        if on_poll is not None:
            await on_poll(response_id, response.status or "queued", 0.0)
        while response.status in BACKGROUND_RUNNING:
            await sleep(poll_interval)
            response = await client.responses.retrieve(response_id)
            if on_poll is not None:
                await on_poll(response_id, response.status or "", clock() - started)
    except asyncio.CancelledError:
        await cancel_background(client, response_id)
        raise
    return response
