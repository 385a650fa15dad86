"""Calling the Open WebUI pipe as Open WebUI does, and recording what it emits.

:class:`Events` records the pipe's ``__event_emitter__`` events and answers
its ``__event_call__`` dialogs from a script (:func:`answered` shapes a
dialog's answers); :func:`run` sends one chat turn and returns the text the
pipe streamed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any


class Events:
    """Records what the pipe emits; answers ``__event_call__`` from a script."""

    def __init__(self, replies: list[Any] | None = None) -> None:
        self.events: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.replies = list(replies or [])

    async def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    async def call(self, event: dict[str, Any]) -> Any:
        self.calls.append(event)
        return self.replies.pop(0)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e["data"] for e in self.events if e["type"] == kind]


async def run(
    pipe: Any,
    model: str,
    messages: list[dict[str, Any]],
    events: Events,
    *,
    valves: dict[str, Any] | None = None,
    chat_id: str | None = "chat-1",
) -> str:
    await pipe.discover()
    body = {"model": f"lgos.{model}", "messages": messages, "stream": True}
    user = {"valves": pipe.UserValves(**(valves or {}))}
    gen: AsyncIterator[str] = pipe.pipe(
        body,
        __user__=user,
        __event_emitter__=events.emit,
        __event_call__=events.call,
        __chat_id__=chat_id,
    )
    return "".join([part async for part in gen])


def answered(*answers: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": "answered",
        "answers": {f"q{i}": a for i, a in enumerate(answers)},
    }
