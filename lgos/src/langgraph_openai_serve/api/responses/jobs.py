"""Background Responses: jobs, the engine protocol, and running a job.

``POST /v1/responses`` with ``background=true`` validates the request, hands a
:class:`BackgroundJob` to the configured :class:`BackgroundBackend` and returns
the queued Response at once. The engine's worker calls
:func:`execute_background_job`, which runs the foreground non-streaming path,
so interrupts and output rendering behave as in the foreground; request
errors found only once the job runs become a ``failed`` Response.
``GET /v1/responses/{id}`` and ``POST /v1/responses/{id}/cancel`` read and
cancel background runs only.

The in-process engine is :mod:`~langgraph_openai_serve.api.responses.memory_engine`'s.
Background Response IDs have the interrupt shape
``resp_lg_<run UUID hex>_<engine run UUID hex>``: reading one needs no lookup
table.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol, runtime_checkable

import orjson

from langgraph_openai_serve.api.responses.decode import decode_response_request
from langgraph_openai_serve.api.responses.encode import collect_response
from langgraph_openai_serve.api.responses.frame import (
    ResponseFrame,
    complete_response,
)
from langgraph_openai_serve.api.responses.interrupts import (
    interrupt_response_id,
    resume_error,
)
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest
from langgraph_openai_serve.api.run_failures import (
    failure_message,
    log_failure,
    run_error,
)
from langgraph_openai_serve.errors import SERVER_ERROR, InvalidRequestError
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_stop import RunStop, RunStoppedError
from langgraph_openai_serve.graph.session import RunSession
from langgraph_openai_serve.metrics import BACKGROUND_RUNS, model_label
from langgraph_openai_serve.request_context import current_request_id, log_context

__all__ = [
    "BackgroundBackend",
    "BackgroundJob",
    "BackgroundRun",
    "BackgroundStatus",
    "execute_background_job",
    "idempotency_digest",
    "request_fingerprint",
]

logger = logging.getLogger(__name__)

BackgroundStatus = Literal[
    "queued", "in_progress", "completed", "failed", "cancelled", "incomplete"
]
TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled", "incomplete"})


@dataclass(frozen=True, slots=True)
class BackgroundJob:
    """What a background engine runs: one validated Responses request.

    Attributes:
        request: The request as JSON (``background: true``).
        owner_scope: The checkpoint scope of the submitter; reads, cancels
            and interrupt checkpoints are confined to it.
        run_id: The run UUID, chosen at submission (embedded in the
            Response ID; for interrupt graphs it is the operation's run).
        created_at: Unix seconds of the submission.
        idempotency_key: The scoped ``Idempotency-Key`` digest (or a random
            key when the client sent none).
        fingerprint: SHA-256 of the canonical request, to detect a key
            reused with different content.
        request_id: The ``x-request-id`` of the HTTP request that submitted
            the job (see :mod:`~langgraph_openai_serve.request_context`), or
            None for a job submitted outside a request and for payloads
            written before the field existed. While the job runs it is the
            ``request_id`` log field and the run's ``lgos.request_id``
            metadata, wherever the engine runs it. An idempotent retry gets
            the run of the first submission, which keeps that request's ID.

    """

    request: dict[str, Any]
    owner_scope: str
    run_id: str
    created_at: int
    idempotency_key: str
    fingerprint: str
    request_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the job as a JSON object, the payload engines store."""
        return {name: getattr(self, name) for name in _JOB_FIELDS}

    @classmethod
    def from_json(cls, payload: dict[str, Any]) -> BackgroundJob:
        """Rebuild a job from :meth:`to_json` output.

        Fields added after a payload was written take their defaults (an
        older payload has no ``request_id``), and keys this version does not
        know are ignored.

        Raises:
            TypeError: A field without a default is missing.

        """
        return cls(**{k: v for k, v in payload.items() if k in _JOB_FIELDS})


_JOB_FIELDS = tuple(f.name for f in fields(BackgroundJob))


@dataclass(slots=True)
class BackgroundRun:
    """A background engine's view of one job.

    Attributes:
        id: The engine's run ID (a UUID string).
        job: The job.
        status: Its status.
        response: The final Response JSON once the run ended, else None.

    """

    id: str
    job: BackgroundJob
    status: BackgroundStatus = "queued"
    response: dict[str, Any] | None = None

    @property
    def response_id(self) -> str:
        """The public Response ID: ``resp_lg_<run>_<engine run>``."""
        return interrupt_response_id(uuid.UUID(self.job.run_id), uuid.UUID(self.id).hex)

    def snapshot(self) -> dict[str, Any]:
        """Return the public ``Response`` for the run's current state."""
        if self.response is not None:
            return complete_response(self.response)
        frame = _frame(self)
        if self.status in {"completed", "failed", "incomplete"}:
            error = {
                "code": SERVER_ERROR,
                "message": "The background response failed.",
            }
            return frame.snapshot("failed", error=error)
        return frame.snapshot(self.status)


def _frame(run: BackgroundRun) -> ResponseFrame:
    return job_frame(
        run.job,
        ResponseCreateRequest.model_validate(run.job.request),
        uuid.UUID(run.id).hex,
    )


def job_frame(
    job: BackgroundJob, request: ResponseCreateRequest, nonce: str
) -> ResponseFrame:
    """Return the Response frame of a job's run: ``resp_lg_<run>_<nonce>``.

    Args:
        job: The job.
        request: The job's request, validated.
        nonce: The engine run's UUID hex.

    """
    return ResponseFrame(
        request=request,
        response_id=interrupt_response_id(uuid.UUID(job.run_id), nonce),
        nonce=nonce,
        background=True,
        created_at=job.created_at,
    )


@runtime_checkable
class BackgroundBackend(Protocol):
    """An engine that runs :class:`BackgroundJob` s and keeps their outcome."""

    async def submit(self, job: BackgroundJob) -> BackgroundRun:
        """Start ``job``, or return the run already holding its idempotency key."""
        ...

    async def get(self, run_id: str) -> BackgroundRun | None:
        """Read one run, or return None when the engine does not have it."""
        ...

    async def cancel(self, run_id: str) -> None:
        """Stop one run; a finished run keeps its outcome."""
        ...


def idempotency_digest(scope: str, key: str) -> str:
    """Return the scoped digest of an ``Idempotency-Key`` (64 hex characters)."""
    return hashlib.sha256(f"lgos/idempotency\x00{scope}\x00{key}".encode()).hexdigest()


def request_fingerprint(request: dict[str, Any]) -> str:
    """Return SHA-256 over the canonical JSON of a request."""
    return hashlib.sha256(
        orjson.dumps(request, option=orjson.OPT_SORT_KEYS)
    ).hexdigest()


async def execute_background_job(
    job: BackgroundJob,
    engine_run_id: str,
    registry: GraphRegistry,
    *,
    stop: RunStop | None = None,
) -> dict[str, Any]:
    """Run one job through the foreground non-streaming Responses path.

    The job's request is validated and decoded once, here, and run by the
    same :class:`~langgraph_openai_serve.graph.session.RunSession` as a
    foreground request. Request errors found only now (for example a stale
    interrupt answer, checked once the run holds its lease) and graph
    failures become a ``failed`` Response; the engine stores whatever this
    returns. A graph failure is logged once with its traceback; a
    cancellation propagates unlogged. While it runs, ``model``,
    ``response_id`` and ``request_id`` (the job's
    :attr:`~BackgroundJob.request_id`) are log fields (see
    :class:`~langgraph_openai_serve.RequestContextFilter`), and the
    ``request_id`` log field is also the run's ``lgos.request_id`` metadata.
    A job without a request ID keeps the ``request_id`` of the context it
    runs in, if any. ``stop`` (a worker shutting down) stops the run: the
    Response ends ``failed``, saying so, and a resume keeps its pause.

    Returns:
        The final Response JSON (``completed``, ``incomplete`` or ``failed``).

    """
    request = ResponseCreateRequest.model_validate(job.request)
    frame = job_frame(job, request, uuid.UUID(engine_run_id).hex)
    model = model_label(request.model, registry.graphs)
    BACKGROUND_RUNS.labels(model, "in_progress").inc()
    with log_context(
        request_id=job.request_id, model=request.model, response_id=frame.response_id
    ):
        try:
            plan = decode_response_request(
                request, registry, frame=frame, run_id=uuid.UUID(job.run_id)
            )
            session = RunSession.from_spec(
                plan.run,
                registry,
                checkpoint_scope=job.owner_scope,
                request_id=current_request_id(),  # the job's, bound above
                stop=stop,
            )
            async with session:
                response = await collect_response(frame, session)
            BACKGROUND_RUNS.labels(model, response["status"]).inc()
            return response
        except InvalidRequestError as exc:
            message = exc.message
        except RunStoppedError as exc:
            logger.warning("Background run %s stopped: shutting down", engine_run_id)
            message = failure_message(exc)
        except Exception as exc:
            mapped = resume_error(exc) or run_error(exc)
            if mapped is not None:
                message = mapped.message
            else:
                log_failure(logger, f"Background run {engine_run_id} failed", exc)
                message = failure_message(exc)
    BACKGROUND_RUNS.labels(model, "failed").inc()
    error = {"code": SERVER_ERROR, "message": message}
    return frame.snapshot("failed", error=error)


def new_job(
    request: dict[str, Any],
    *,
    owner_scope: str,
    run_id: uuid.UUID,
    idempotency_key: str | None,
    request_id: str | None = None,
) -> BackgroundJob:
    """Build a job for a validated background request.

    ``request_id`` is the submitting HTTP request's ``x-request-id``
    (:attr:`BackgroundJob.request_id`); None outside a request.
    """
    return BackgroundJob(
        request=request,
        owner_scope=owner_scope,
        run_id=str(run_id),
        created_at=int(time.time()),
        idempotency_key=idempotency_digest(owner_scope, idempotency_key)
        if idempotency_key is not None
        else uuid.uuid4().hex,
        fingerprint=request_fingerprint(request),
        request_id=request_id,
    )
