"""Background Responses on Hatchet (extra ``hatchet``).

Usage, in both the API process and the worker::

    from hatchet_sdk import Hatchet
    from langgraph_openai_serve.integrations.hatchet import (
        HatchetBackgroundBackend,
        create_hatchet_task,
    )

    hatchet = Hatchet()
    task = create_hatchet_task(hatchet)
    backend = HatchetBackgroundBackend(task, hatchet.runs)   # API process
    worker = hatchet.worker("lgos", workflows=[task], lifespan=registry_lifespan)

The worker's lifespan yields the :class:`GraphRegistry` (with its run
coordinator) that the task executes. The core package never imports this
module.
"""

from __future__ import annotations

import os
import uuid
from datetime import timedelta
from typing import Any

try:
    from hatchet_sdk import Context, Hatchet, TTLBasedIdempotencyConfig
    from hatchet_sdk.clients.rest.models.v1_task_status import V1TaskStatus
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[hatchet] for the Hatchet adapter."
    raise ImportError(msg) from exc
from pydantic import BaseModel

from langgraph_openai_serve.background import (
    BackgroundJob,
    BackgroundRun,
    execute_background_job,
)
from langgraph_openai_serve.graph.registry import GraphRegistry

__all__ = [
    "TASK_NAME",
    "BackgroundTaskInput",
    "HatchetBackgroundBackend",
    "create_hatchet_task",
    "hatchet_client",
    "run_worker",
]

TASK_NAME = "lgos-background-response"
SCHEDULE_TIMEOUT = timedelta(minutes=30)
EXECUTION_TIMEOUT = timedelta(hours=1)
IDEMPOTENCY_TTL = timedelta(hours=24)

_STATUSES = {
    V1TaskStatus.QUEUED: "queued",
    V1TaskStatus.RUNNING: "in_progress",
    V1TaskStatus.CANCELLED: "cancelled",
    V1TaskStatus.FAILED: "failed",
}


class BackgroundTaskInput(BaseModel):
    """The Hatchet task input: one :class:`BackgroundJob` as JSON."""

    job: dict[str, Any]
    idempotency_key: str


def hatchet_client() -> Hatchet:
    """Return a Hatchet client from the ``HATCHET_CLIENT_*`` environment.

    With ``HATCHET_CLIENT_EMBEDDED_BINARY_PATH`` set, the SDK's embedded mode
    starts the engine sidecar (on ``HATCHET_CLIENT_EMBEDDED_DATABASE_URL``).
    """
    if os.environ.get("HATCHET_CLIENT_EMBEDDED_BINARY_PATH"):
        return Hatchet.from_embedded()
    return Hatchet()


def create_hatchet_task(
    hatchet: Hatchet,
    *,
    name: str = TASK_NAME,
    schedule_timeout: timedelta = SCHEDULE_TIMEOUT,
    execution_timeout: timedelta = EXECUTION_TIMEOUT,
) -> Any:
    """Register the background-Response task on ``hatchet``.

    The task has no retries (a graph run is not idempotent), a 30-minute
    schedule timeout and a one-hour execution timeout by default, and a
    24-hour Hatchet idempotency key: the job's scoped ``Idempotency-Key``
    digest. It runs :func:`execute_background_job` with the registry that the
    worker's lifespan yields (``ctx.lifespan``).

    Returns:
        The Hatchet standalone task.

    """

    @hatchet.task(
        name=name,
        input_validator=BackgroundTaskInput,
        schedule_timeout=schedule_timeout,
        execution_timeout=execution_timeout,
        retries=0,
        idempotency=TTLBasedIdempotencyConfig(
            key_expression="input.idempotency_key", ttl=IDEMPOTENCY_TTL
        ),
    )
    async def run_background_response(
        task_input: BackgroundTaskInput, ctx: Context
    ) -> dict[str, Any]:
        registry = ctx.lifespan
        if not isinstance(registry, GraphRegistry):
            msg = "The Hatchet worker lifespan must yield the GraphRegistry."
            raise TypeError(msg)
        job = BackgroundJob(**task_input.job)
        return await execute_background_job(job, ctx.workflow_run_id, registry)

    return run_background_response


def _task_output(output: Any, name: str) -> dict[str, Any] | None:
    """Return the Response JSON in a run's output (bare, or keyed by task name)."""
    if not isinstance(output, dict) or not output:
        return None
    if output.get("object") == "response":
        return output
    inner = output.get(name)
    if isinstance(inner, dict) and inner.get("object") == "response":
        return inner
    return None


class HatchetBackgroundBackend:
    """A :class:`~langgraph_openai_serve.background.BackgroundBackend` on Hatchet.

    Submits, reads and cancels runs of the task made by
    :func:`create_hatchet_task`; Hatchet stores the job (the run's input) and
    the final Response (its output) for its data-retention period.

    Args:
        task: The task from :func:`create_hatchet_task`.
        runs: ``hatchet.runs``, Hatchet's runs client.

    """

    def __init__(self, task: Any, runs: Any) -> None:
        self._task = task
        self._runs = runs

    async def submit(self, job: BackgroundJob) -> BackgroundRun:
        """Trigger the task; Hatchet's idempotency key dedupes retries."""
        task_input = BackgroundTaskInput(
            job=_job_json(job), idempotency_key=job.idempotency_key
        )
        ref = await self._task.aio_run(task_input, wait_for_result=False)
        run = await self.get(ref.workflow_run_id)
        return run or BackgroundRun(id=str(ref.workflow_run_id), job=job)

    async def get(self, run_id: str) -> BackgroundRun | None:
        """Read one run from Hatchet, or None when it has no such run."""
        try:
            uuid.UUID(run_id)
            details = await self._runs.aio_get(run_id)
        except Exception:  # an unknown ID, or a run of another workflow
            return None
        record = details.run
        try:
            task_input = BackgroundTaskInput.model_validate(record.input)
        except ValueError:
            return None
        run = BackgroundRun(id=run_id, job=BackgroundJob(**task_input.job))
        response = _task_output(record.output, getattr(self._task, "name", TASK_NAME))
        if record.status == V1TaskStatus.COMPLETED and response is not None:
            run.response = response
            run.status = response["status"]
        else:
            run.status = _STATUSES.get(record.status, "failed")  # type: ignore[assignment]
        return run

    async def cancel(self, run_id: str) -> None:
        """Cancel a queued or running run; Hatchet keeps finished outcomes."""
        run = await self.get(run_id)
        if run is not None and run.status in {"queued", "in_progress"}:
            await self._runs.aio_cancel(run_id)


def _job_json(job: BackgroundJob) -> dict[str, Any]:
    return {
        "request": job.request,
        "owner_scope": job.owner_scope,
        "run_id": job.run_id,
        "created_at": job.created_at,
        "idempotency_key": job.idempotency_key,
        "fingerprint": job.fingerprint,
    }


def run_worker(factory: Any, *, name: str = "lgos", slots: int | None = None) -> None:
    """Run a Hatchet worker executing background Responses (``lgos worker``).

    The worker's lifespan opens the server resources (``LGOS_POSTGRES_URI``)
    and yields the registry that ``factory`` builds from them, so the worker
    resumes pauses with the same checkpointer and coordinator as the API.
    Blocks until the worker stops.
    """
    from collections.abc import AsyncGenerator
    from contextlib import AsyncExitStack

    from langgraph_openai_serve.server.app import enter_registry, load_factory
    from langgraph_openai_serve.server.resources import open_resources
    from langgraph_openai_serve.server.settings import ServerSettings

    settings = ServerSettings()
    registry_factory = load_factory(factory) if isinstance(factory, str) else factory
    hatchet = hatchet_client()
    task = create_hatchet_task(hatchet)

    async def lifespan() -> AsyncGenerator[GraphRegistry, None]:
        async with AsyncExitStack() as stack:
            resources = await stack.enter_async_context(open_resources(settings))
            yield await enter_registry(stack, registry_factory, resources)

    worker = hatchet.worker(name, slots=slots, workflows=[task], lifespan=lifespan)
    worker.start()
