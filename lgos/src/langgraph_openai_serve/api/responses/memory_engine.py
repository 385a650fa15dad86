"""The in-process background engine: jobs run as tasks of this process.

For development and tests (``lgos serve`` uses it when no Hatchet engine is
configured): runs and their outcomes live in memory and are lost on restart.
Re-exported from :mod:`langgraph_openai_serve.background`.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from anyio import CancelScope, Event, create_task_group, move_on_after
from anyio.abc import TaskGroup

from langgraph_openai_serve.api.responses.jobs import (
    TERMINAL_STATUSES,
    BackgroundJob,
    BackgroundRun,
    execute_background_job,
)
from langgraph_openai_serve.graph.registry import GraphRegistry

__all__ = ["CANCEL_WAIT_SECONDS", "InMemoryBackgroundBackend"]

CANCEL_WAIT_SECONDS = 10.0
"""How long :meth:`InMemoryBackgroundBackend.cancel` waits for a run to stop."""


@dataclass
class InMemoryBackgroundBackend:
    """Runs jobs as tasks of this process, for development and tests.

    Enter :meth:`lifespan` in the application's lifespan; runs and their
    outcomes live in memory and are lost on restart.

    Args:
        registry: The graphs the jobs run.

    """

    registry: GraphRegistry
    _runs: dict[str, BackgroundRun] = field(default_factory=dict)
    _keys: dict[str, str] = field(default_factory=dict)
    _scopes: dict[str, CancelScope] = field(default_factory=dict)
    _stopped: dict[str, Event] = field(default_factory=dict)
    _tasks: TaskGroup | None = None

    @asynccontextmanager
    async def lifespan(self, _app: object = None) -> AsyncIterator[None]:
        """Own the execution tasks for one ASGI application lifespan."""
        async with create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                self._tasks = None
                tasks.cancel_scope.cancel()

    async def submit(self, job: BackgroundJob) -> BackgroundRun:
        """Start one task, or return the run holding the job's key.

        Raises:
            RuntimeError: The lifespan is not running.

        """
        if self._tasks is None:
            msg = "The in-memory background backend lifespan is not running."
            raise RuntimeError(msg)
        if (existing := self._keys.get(job.idempotency_key)) is not None:
            return self._runs[existing]
        run = BackgroundRun(id=str(uuid.uuid4()), job=job)
        self._runs[run.id] = run
        self._keys[job.idempotency_key] = run.id
        self._scopes[run.id] = CancelScope()
        self._stopped[run.id] = Event()
        self._tasks.start_soon(self._execute, run)
        return run

    async def get(self, run_id: str) -> BackgroundRun | None:
        """Read one run."""
        return self._runs.get(run_id)

    async def cancel(self, run_id: str) -> None:
        """Cancel a queued or running run; a finished run keeps its outcome.

        Returns once the run has stopped and released what it held (an
        interrupt run's lease), so the caller may resume its pause at once;
        it waits at most :data:`CANCEL_WAIT_SECONDS`.
        """
        run = self._runs.get(run_id)
        if run is None or run.status in TERMINAL_STATUSES:
            return
        run.status = "cancelled"
        if (scope := self._scopes.get(run_id)) is not None:
            scope.cancel()
        if (stopped := self._stopped.get(run_id)) is not None:
            with move_on_after(CANCEL_WAIT_SECONDS):
                await stopped.wait()

    async def _execute(self, run: BackgroundRun) -> None:
        scope = self._scopes[run.id]
        try:
            with scope:
                if run.status == "cancelled":
                    return
                run.status = "in_progress"
                response = await execute_background_job(run.job, run.id, self.registry)
                run.response = response
                run.status = response["status"]
            self._scopes.pop(run.id, None)
            if scope.cancelled_caught or run.status == "cancelled":
                run.status = "cancelled"
                run.response = None
        finally:
            self._stopped.pop(run.id).set()
