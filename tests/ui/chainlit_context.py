"""Running UI code inside a Chainlit context, recording what the page is sent."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from chainlit.context import init_http_context
from chainlit.emitter import BaseChainlitEmitter
from chainlit.step import StepDict

T = TypeVar("T")


class PageRecorder(BaseChainlitEmitter):
    """Chainlit's stub emitter, keeping the last step dict the page got per ID."""

    def __init__(self, session: Any) -> None:
        super().__init__(session)
        self.shown: dict[str, dict[str, Any]] = {}

    async def send_step(self, step_dict: StepDict) -> None:
        self.shown[str(step_dict.get("id"))] = dict(step_dict)

    async def update_step(self, step_dict: StepDict) -> None:
        self.shown[str(step_dict.get("id"))] = dict(step_dict)

    async def delete_step(self, step_dict: StepDict) -> None:
        self.shown.pop(str(step_dict.get("id")), None)


async def in_chainlit(
    thread_id: str, work: Callable[[], Awaitable[T]]
) -> tuple[T, dict[str, dict[str, Any]]]:
    """Run ``work`` in a Chainlit context of ``thread_id`` (as a callback runs).

    The context lives in a task of its own, so it does not outlast ``work``;
    the session's upload folder is removed afterwards.

    Returns:
        What ``work`` returned, and each step as the page last got it.

    """
    page: list[PageRecorder] = []

    async def run() -> T:
        context = init_http_context(thread_id=thread_id)
        context.emitter = PageRecorder(context.session)
        page.append(context.emitter)
        try:
            return await work()
        finally:
            await context.session.delete()

    result = await asyncio.create_task(run())
    return result, page[0].shown
