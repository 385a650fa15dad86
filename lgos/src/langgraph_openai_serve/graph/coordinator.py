"""Single-flight leases for interrupt runs.

A run coordinator hands out at most one lease per checkpoint key. Contention
is rejected at once (:class:`RunBusyError`), never queued, so two requests for
the same paused operation cannot both execute it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol, runtime_checkable

__all__ = ["InMemoryRunCoordinator", "RunBusyError", "RunCoordinator"]


class RunBusyError(RuntimeError):
    """Another holder owns the lease for this checkpoint key."""


@runtime_checkable
class RunCoordinator(Protocol):
    """What ``GraphRegistry.run_coordinator`` provides.

    ``lease(key)`` returns an async context manager that holds the lease for
    its block. Entering raises :class:`RunBusyError` when the key is leased;
    exiting releases the lease even when the exit is cancelled.
    """

    def lease(self, key: str) -> AbstractAsyncContextManager[None]:
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
    async def lease(self, key: str) -> AsyncIterator[None]:
        """Hold the lease for ``key``.

        Raises:
            RunBusyError: The key is already leased.

        """
        if key in self._held:
            raise RunBusyError(key)
        self._held.add(key)
        try:
            yield
        finally:
            self._held.discard(key)
