"""Helpers for the tests of paused runs (``lgos_interrupt``).

:func:`calls_of` picks a Response's ``lgos_interrupt`` calls and
:func:`answers` builds the resume input answering them;
:class:`LosableCoordinator` keeps each lease it grants, so a test can mark
one lost as a dead session would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator, Lease


def calls_of(response: Any) -> list[Any]:
    return [
        i
        for i in response.output
        if i.type == "function_call" and i.name == "lgos_interrupt"
    ]


def answers(calls: list[Any], *values: str) -> list[dict[str, str]]:
    return [
        {"type": "function_call_output", "call_id": c.call_id, "output": v}
        for c, v in zip(calls, values, strict=True)
    ]


class LosableCoordinator(InMemoryRunCoordinator):
    """In-process leases that a test can mark lost, as a dead session would."""

    def __init__(self) -> None:
        super().__init__()
        self.leases: list[Lease] = []

    @asynccontextmanager
    async def lease(self, key: str) -> AsyncIterator[Lease]:
        async with super().lease(key) as held:
            self.leases.append(held)
            yield held
