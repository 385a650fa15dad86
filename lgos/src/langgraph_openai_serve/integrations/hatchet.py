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

One module: the task, its input model, its status mapping and the backend
that triggers, reads and cancels its runs are one integration, imported by
users from this one documented path.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

try:
    from hatchet_sdk import Context, Hatchet, TTLBasedIdempotencyConfig
    from hatchet_sdk.clients.rest.models.v1_task_status import V1TaskStatus
    from hatchet_sdk.exceptions import IdempotencyCollisionError
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[hatchet] for the Hatchet adapter."
    raise ImportError(msg) from exc
from pydantic import BaseModel

from langgraph_openai_serve.background import (
    BackgroundJob,
    BackgroundRun,
    execute_background_job,
)
from langgraph_openai_serve.errors import ServerError
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_stop import RunStop

__all__ = [
    "TASK_NAME",
    "BackgroundTaskInput",
    "HatchetBackgroundBackend",
    "WorkerLostError",
    "create_hatchet_task",
    "hatchet_client",
    "readiness_check",
]

TASK_NAME = "lgos-background-response"
SCHEDULE_TIMEOUT = timedelta(minutes=30)
EXECUTION_TIMEOUT = timedelta(hours=1)
IDEMPOTENCY_TTL = timedelta(hours=24)
# How long a submitting process vouches for its runs before Hatchet shows them.
RECENT_SECONDS = 60.0
RECENT_RUNS = 10_000
# How long a retry waits for Hatchet to show the run its key started.
COLLISION_WAIT_SECONDS = 15.0
# How long a cancel waits for Hatchet to report the run finished.
CANCEL_WAIT_SECONDS = 10.0
# How long a submitting process listens for its run's result: the task's
# schedule and execution timeouts, after which the engine has ended it.
LISTEN_SECONDS = (SCHEDULE_TIMEOUT + EXECUTION_TIMEOUT).total_seconds()
# Threads reading runs through the REST API (the SDK's blocking ``runs.get``).
# A read of a run the API does not show yet blocks for seconds while the SDK
# retries the 404, so reads get threads of their own: on the event loop's
# default executor (``min(32, CPUs + 4)`` threads) they starved the SDK's
# triggers, which run there too, and delayed submits by up to a second.
READ_THREADS = 32
_ACTIVE = frozenset({"queued", "in_progress"})

_STATUSES = {
    V1TaskStatus.QUEUED: "queued",
    V1TaskStatus.RUNNING: "in_progress",
    V1TaskStatus.CANCELLED: "cancelled",
    V1TaskStatus.FAILED: "failed",
}


class BackgroundTaskInput(BaseModel):
    """The Hatchet task input: one :class:`BackgroundJob` as JSON.

    ``job`` is :meth:`BackgroundJob.to_json` output, including the submitting
    request's ``request_id``; inputs stored before that field existed are
    still read (:meth:`BackgroundJob.from_json`).
    """

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


def readiness_check(hatchet: Hatchet, timeout: float) -> Callable[[], Awaitable[None]]:
    """Return a check that the Hatchet engine's REST API reports itself ready.

    The check asks the engine's readiness route (``GET /api/ready``, through
    the SDK's REST client) within ``timeout`` seconds; one client, and so one
    kept-alive connection, serves every call. The readiness check
    ``hatchet`` of ``lgos serve``.

    The returned check raises whatever the request raised (a refused or timed
    out connection, a non-2xx answer).
    """
    from hatchet_sdk.clients.rest.api.healthcheck_api import HealthcheckApi

    api = HealthcheckApi(hatchet.runs.client())

    async def check() -> None:
        await asyncio.to_thread(api.readiness_get, _request_timeout=timeout)

    return check


def create_hatchet_task(
    hatchet: Hatchet,
    *,
    name: str = TASK_NAME,
    schedule_timeout: timedelta = SCHEDULE_TIMEOUT,
    execution_timeout: timedelta = EXECUTION_TIMEOUT,
    stop: RunStop | None = None,
) -> Any:
    """Register the background-Response task on ``hatchet``.

    The task has no retries (a graph run is not idempotent), a 30-minute
    schedule timeout and a one-hour execution timeout by default, and a
    24-hour Hatchet idempotency key: the job's scoped ``Idempotency-Key``
    digest. It runs :func:`execute_background_job` with the registry that the
    worker's lifespan yields (``ctx.lifespan``); the job's ``request_id`` (the
    submitting request's ``x-request-id``) is the worker's ``request_id`` log
    field and the run's ``lgos.request_id`` metadata. ``stop``, when given,
    is handed to every run: ``lgos worker`` triggers it once its shutdown
    grace period is over.

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
        if ctx.retry_count > 0:
            # The task has no retries, so a later attempt means Hatchet handed
            # it over from a worker that stopped mid-run (or someone retried
            # it by hand): a graph run is never repeated.
            raise WorkerLostError(WorkerLostError.MESSAGE)
        job = BackgroundJob.from_json(task_input.job)
        return await execute_background_job(
            job, ctx.workflow_run_id, registry, stop=stop
        )

    return run_background_response


class WorkerLostError(RuntimeError):
    """A background run's worker stopped mid-run; Hatchet handed it to another.

    Hatchet reassigns the task of a worker that stops heartbeating (the next
    attempt has a higher ``retry_count``). Running the graph again could
    repeat side effects already done, so the task fails instead and the
    Response ends ``failed``. Engines started by LGOS's sidecar or Compose
    stack also set ``SERVER_MAX_INTERNAL_RETRY_COUNT=0``, so Hatchet fails
    such a task itself once the worker misses its heartbeats for 30 seconds.
    """

    MESSAGE = "The worker running this background response stopped before it finished."


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
        runs: ``hatchet.runs``, Hatchet's runs client (its blocking ``get`` is
            called on threads of this backend, ``aio_cancel`` on the loop).

    """

    def __init__(self, task: Any, runs: Any) -> None:
        self._task = task
        self._runs = runs
        # Runs this process submitted, by ID: Hatchet's REST API shows a run
        # only after its engine has processed the trigger (about a second), and
        # a poll or retry in that window must still find it. Once the engine's
        # run-event stream reports a run's Response, it is kept here too, so
        # polls see it at once rather than when the REST API catches up.
        self._recent: OrderedDict[
            str, tuple[float, BackgroundJob, dict[str, Any] | None]
        ] = OrderedDict()
        self._listeners: dict[str, asyncio.Task[None]] = {}
        # REST reads in flight, by run ID: concurrent polls of a run share one.
        self._reads: dict[str, asyncio.Future[Any]] = {}
        self._read_threads = ThreadPoolExecutor(
            READ_THREADS, thread_name_prefix="lgos-hatchet-read"
        )

    def _remember(
        self, run_id: str, job: BackgroundJob, response: dict[str, Any] | None = None
    ) -> None:
        now = time.monotonic()
        self._recent.pop(run_id, None)
        self._recent[run_id] = (now, job, response)
        while self._recent:
            oldest, (since, *_) = next(iter(self._recent.items()))
            if len(self._recent) <= RECENT_RUNS and now - since <= RECENT_SECONDS:
                break
            del self._recent[oldest]

    def _recent_entry(
        self, run_id: str
    ) -> tuple[BackgroundJob, dict[str, Any] | None] | None:
        entry = self._recent.get(run_id)
        if entry is None or time.monotonic() - entry[0] > RECENT_SECONDS:
            return None
        return entry[1], entry[2]

    def _listen(self, run_id: str, ref: Any, job: BackgroundJob) -> None:
        """Await the run's result on the engine's run-event stream, in the background.

        The SDK multiplexes these waits over one gRPC stream per process
        (``aio_result``). A completed run's Response is then remembered for
        ``RECENT_SECONDS``; failures, cancellations and a broken stream leave
        the run to the REST API, as before.
        """
        waiter = getattr(ref, "aio_result", None)
        if waiter is None:
            return
        listener = asyncio.get_running_loop().create_task(
            self._await_result(run_id, waiter, job),
            # Not the submitting request's context: the wait outlives it.
            context=contextvars.Context(),
        )
        self._listeners[run_id] = listener
        listener.add_done_callback(lambda _: self._listeners.pop(run_id, None))

    async def _await_result(self, run_id: str, waiter: Any, job: BackgroundJob) -> None:
        try:
            async with asyncio.timeout(LISTEN_SECONDS):
                output = await waiter()
        except Exception:  # failed, cancelled, timed out: the REST API tells
            return
        response = _task_output(output, getattr(self._task, "name", TASK_NAME))
        if response is not None:
            self._remember(run_id, job, response)

    async def submit(self, job: BackgroundJob) -> BackgroundRun:
        """Trigger the task, or return the run an earlier submit of this key started.

        This process then awaits the run's result on the engine's run-event
        stream, so that :meth:`get` reports it completed as soon as the
        engine does; the REST API shows it up to a few seconds later.

        Hatchet refuses a second trigger with the same idempotency key within
        its TTL (``IdempotencyCollisionError``, naming the existing run); the
        caller compares that run's job with ``job`` to tell a retry from a
        reused key.

        Raises:
            ServerError: 503 when Hatchet names an earlier run that its
                API does not show within ``COLLISION_WAIT_SECONDS``.

        """
        task_input = BackgroundTaskInput(
            job=job.to_json(), idempotency_key=job.idempotency_key
        )
        try:
            ref = await self._task.aio_run(task_input, wait_for_result=False)
        except IdempotencyCollisionError as collision:
            return await self._existing(str(collision.existing_run_external_id))
        run_id = str(ref.workflow_run_id)
        self._remember(run_id, job)
        self._listen(run_id, ref, job)
        return BackgroundRun(id=run_id, job=job)

    async def _existing(self, run_id: str) -> BackgroundRun:
        deadline = time.monotonic() + COLLISION_WAIT_SECONDS
        while (run := await self.get(run_id)) is None:
            if time.monotonic() > deadline:
                raise ServerError(
                    "The run this Idempotency-Key started is not visible yet; "
                    "retry the request.",
                    status_code=503,
                    code="idempotency_key_pending",
                )
            await asyncio.sleep(0.2)
        return run

    async def get(self, run_id: str) -> BackgroundRun | None:
        """Read one run from Hatchet, or None when it has no such run.

        A run this process submitted that Hatchet's API does not show yet is
        reported as queued; one whose Response the engine's run-event stream
        already delivered (see :meth:`submit`) is reported from it, without
        asking the REST API.
        """
        try:
            uuid.UUID(run_id)
        except ValueError:
            return None
        recent = self._recent_entry(run_id)
        job, response = recent if recent is not None else (None, None)
        if job is not None and response is not None:
            run = BackgroundRun(id=run_id, job=job)
            run.response = response
            run.status = response["status"]
            return run
        try:
            details = await self._read(run_id)
        except _Delivered:
            return await self.get(run_id)
        except Exception:  # not (yet) visible, or not a Hatchet run ID at all
            return None if job is None else BackgroundRun(id=run_id, job=job)
        record = details.run
        try:
            task_input = BackgroundTaskInput.model_validate(
                _trigger_input(record.input)
            )
        except ValueError:
            return None
        run = BackgroundRun(id=run_id, job=BackgroundJob.from_json(task_input.job))
        response = _task_output(record.output, getattr(self._task, "name", TASK_NAME))
        if record.status == V1TaskStatus.COMPLETED and response is not None:
            run.response = response
            run.status = response["status"]
        else:
            run.status = _STATUSES.get(record.status, "failed")  # type: ignore[assignment]
        return run

    def _rest_read(self, run_id: str) -> asyncio.Future[Any]:
        """Return the REST read of ``run_id`` in flight, or start one.

        Reads run on this backend's threads, never the event loop's default
        executor, where the SDK runs its triggers: a read of a run the API
        does not show yet takes seconds (the SDK retries the 404) and goes
        on after the poll that started it has returned, so polls every few
        milliseconds would otherwise fill that executor and hold up the next
        submit. Polls of one run share its read rather than start one each.
        """
        read = self._reads.get(run_id)
        if read is not None and not read.done():
            return read
        call = functools.partial(contextvars.copy_context().run, self._runs.get, run_id)
        read = asyncio.get_running_loop().run_in_executor(self._read_threads, call)
        self._reads[run_id] = read

        def finished(done: asyncio.Future[Any]) -> None:
            if self._reads.get(run_id) is done:
                del self._reads[run_id]
            if not done.cancelled():
                done.exception()  # retrieved: a poll may have stopped waiting

        read.add_done_callback(finished)
        return read

    async def _read(self, run_id: str) -> Any:
        """Read the run through the REST API, unless its result arrives first.

        The REST API answers slowly for a run it does not show yet (seconds
        on a busy engine), so a poll racing a finishing run waits for
        whichever comes first: the REST answer, or the run's Response on
        the event stream (then :class:`_Delivered` is raised and the caller
        reads it from memory).
        """
        rest = self._rest_read(run_id)
        listener = self._listeners.get(run_id)
        if listener is not None:
            await asyncio.wait({rest, listener}, return_when=asyncio.FIRST_COMPLETED)
            if not rest.done():
                entry = self._recent_entry(run_id)
                if entry is not None and entry[1] is not None:
                    raise _Delivered
        # Shielded: other polls may be waiting for the same read.
        return await asyncio.shield(rest)

    async def cancel(self, run_id: str) -> None:
        """Cancel a queued or running run; Hatchet keeps finished outcomes.

        Returns once Hatchet's API reports the run finished (cancelled, or
        the outcome it reached first), or after ``CANCEL_WAIT_SECONDS``: the
        engine applies a cancellation asynchronously.
        """
        run = await self.get(run_id)
        if run is None or run.status not in _ACTIVE:
            return
        await self._runs.aio_cancel(run_id)
        deadline = time.monotonic() + CANCEL_WAIT_SECONDS
        while time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            run = await self.get(run_id)
            if run is None or run.status not in _ACTIVE:
                return


class _Delivered(Exception):
    """The run's Response arrived on the event stream before the REST answer."""


def _trigger_input(payload: Any) -> Any:
    """Return the task input in a run's ``input`` as Hatchet's API reports it.

    The REST API wraps it with the trigger's details: ``{"input": {...},
    "triggered_by": ..., "parents": ..., ...}``.
    """
    if isinstance(payload, dict) and "job" not in payload:
        return payload.get("input")
    return payload
