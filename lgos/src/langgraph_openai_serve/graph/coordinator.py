"""Single-flight leases for interrupt runs.

A run coordinator hands out at most one lease per checkpoint key. Contention
is rejected at once (:class:`RunBusyError`), never queued, so two requests for
the same paused operation cannot both execute it. A lease can end without
being released (its database session dies): the :class:`Lease` says so, and
the run holding it stops without writing anything more.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "InMemoryRunCoordinator",
    "Lease",
    "LeaseLostError",
    "LeasesExhaustedError",
    "RunBusyError",
    "RunCoordinator",
]


class RunBusyError(RuntimeError):
    """Another holder owns the lease for this checkpoint key."""


class LeasesExhaustedError(RuntimeError):
    """Every lease this process may hold at once is taken; try again shortly."""


class LeaseLostError(RuntimeError):
    """The run's lease ended while the run held it; its outcome is unknown.

    Raised by the runner when the coordinator reports the lease lost (for
    :class:`~langgraph_openai_serve.integrations.postgres.PostgresRunCoordinator`,
    its PostgreSQL session ended). The run was stopped and wrote nothing more,
    but what it did before is unknown, and another process may now hold the
    lease: retry the same request.
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(
            message
            or "The run lost its lease (the coordination session ended) and was "
            "stopped; its outcome is unknown. Retry the same request."
        )


@dataclass(slots=True)
class Lease:
    """A held lease.

    Attributes:
        key: The leased checkpoint key.
        lost: Set when the lease ended without being released; the holder
            must stop and write nothing more under the key.
        confirm: Checks, now, that the lease still holds (and sets ``lost``
            when it does not); None when it cannot end by itself. The runner
            calls it right before each checkpoint write and the deletion of
            a finished run's thread, so a lease lost between two periodic
            checks does not let the run write.
        tasks: The unfinished tasks doing the leased work (:meth:`cover`);
            a coordinator whose lease was lost reports the holder stopped
            only once they have all ended.

    """

    key: str
    lost: asyncio.Event = field(default_factory=asyncio.Event)
    confirm: Callable[[], Awaitable[bool]] | None = None
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    async def holds(self) -> bool:
        """Return whether the lease holds now (asking :attr:`confirm`)."""
        if self.lost.is_set():
            return False
        return self.confirm is None or await self.confirm()

    def cover(self, task: asyncio.Task[Any]) -> None:
        """Count ``task`` as leased work until it ends (the runner's graph task).

        A run cancelled after its lease was lost may take a moment to stop;
        the lease's holder is not reported stopped before its tasks are.
        """
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


@runtime_checkable
class RunCoordinator(Protocol):
    """What ``GraphRegistry.run_coordinator`` provides.

    ``lease(key)`` returns an async context manager that holds the lease for
    its block and yields a :class:`Lease` (or None, for a coordinator whose
    leases cannot be lost). Entering raises :class:`RunBusyError` when the
    key is leased; exiting releases the lease even when the exit is cancelled.
    """

    def lease(self, key: str) -> AbstractAsyncContextManager[Lease | None]:
        """Hold the lease for ``key`` (a fixed-length checkpoint key)."""
        ...


class InMemoryRunCoordinator:
    """Leases within one process, for tests and single-process development.

    It cannot serialize requests across workers or hosts; use
    ``integrations.postgres.PostgresRunCoordinator`` there.
    """

    def __init__(self) -> None:
        self._held: set[str] = set()

    @property
    def held(self) -> frozenset[str]:
        """Keys leased right now."""
        return frozenset(self._held)

    @asynccontextmanager
    async def lease(self, key: str) -> AsyncIterator[Lease]:
        """Hold the lease for ``key`` (an in-process lease is never lost).

        Raises:
            RunBusyError: The key is already leased.

        """
        if key in self._held:
            raise RunBusyError(key)
        self._held.add(key)
        try:
            yield Lease(key)
        finally:
            self._held.discard(key)
