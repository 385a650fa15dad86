"""Background Responses over HTTP: submit, retrieve, cancel."""

from __future__ import annotations

import uuid

from starlette import status
from starlette.requests import Request
from starlette.responses import Response

from langgraph_openai_serve.api.http_run import request_id_headers, resolve_scope
from langgraph_openai_serve.api.json_response import json_response
from langgraph_openai_serve.api.responses.decode import decode_response_request
from langgraph_openai_serve.api.responses.interrupts import (
    parse_interrupt_response_id,
)
from langgraph_openai_serve.api.responses.jobs import (
    TERMINAL_STATUSES,
    BackgroundBackend,
    BackgroundRun,
    new_job,
)
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.config import GraphFeature
from langgraph_openai_serve.metrics import BACKGROUND_RUNS, model_label, note_model
from langgraph_openai_serve.request_context import bind_log_fields

__all__ = ["cancel_background", "retrieve_background", "submit_background"]

_KEY_HEADER = "idempotency-key"


def _not_found(response_id: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"No background response '{response_id}' exists; foreground responses "
        "are not stored.",
        param="response_id",
        code="not_found",
        status_code=status.HTTP_404_NOT_FOUND,
    )


async def submit_background(request: Request, body: ResponseCreateRequest) -> Response:
    """Validate a ``background=true`` request, submit it, return it queued.

    The job carries this request's ``x-request-id`` (generated and sent here
    when the route is served without the mount's middleware), so the run's
    logs and ``lgos.request_id`` metadata name the submitting request.

    Raises:
        InvalidRequestError: 400 when the model does not declare
            ``GraphFeature.BACKGROUND`` or no engine is configured
            (``background``), for ``stream=true`` (``stream``), a bad
            ``Idempotency-Key``, or any foreground validation error; 422
            ``idempotency_key_reused`` when the key was used with other
            content.

    """
    registry = request.app.state.graph_registry
    note_model(body.model, registry.graphs)
    config = registry.get_graph(body.model)
    bind_log_fields(model=body.model)  # registered: safe to log
    backend = request.app.state.background_backend
    if not config.supports(GraphFeature.BACKGROUND):
        raise InvalidRequestError(
            f"The model '{body.model}' does not run in the background.",
            param="background",
        )
    if backend is None:
        raise InvalidRequestError(
            "This deployment has no background engine.", param="background"
        )
    if body.stream:
        raise InvalidRequestError(
            "Background responses are polled; streaming them is not supported.",
            param="stream",
        )
    key = request.headers.get(_KEY_HEADER)
    if key is not None and not 1 <= len(key) <= 255:
        raise InvalidRequestError(
            "Idempotency-Key must be 1 to 255 characters.", param="Idempotency-Key"
        )
    # Validated as the foreground would; the run UUID is chosen now.
    plan = decode_response_request(body, registry, config=config)
    run_id = plan.run.run_id or uuid.uuid4()
    scope = await resolve_scope(request)
    payload = body.model_dump(mode="json", exclude_unset=True)
    request_id, headers = request_id_headers()
    job = new_job(
        payload,
        owner_scope=scope,
        run_id=run_id,
        idempotency_key=key,
        request_id=request_id,
    )
    run = await backend.submit(job)
    bind_log_fields(response_id=run.response_id)
    if run.job.fingerprint != job.fingerprint or run.job.owner_scope != scope:
        raise InvalidRequestError(
            "This Idempotency-Key was already used with a different request.",
            code="idempotency_key_reused",
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    if run.job is job:  # a new run; a retry with the key gets the earlier one
        BACKGROUND_RUNS.labels(body.model, "queued").inc()
    response = json_response(run.snapshot())
    response.headers.update(headers)
    return response


async def _owned_run(
    request: Request, response_id: str
) -> tuple[BackgroundBackend, BackgroundRun]:
    backend: BackgroundBackend | None = request.app.state.background_backend
    if backend is None:
        raise _not_found(response_id)
    try:
        _, engine_run = parse_interrupt_response_id(response_id)
    except InvalidRequestError:
        raise _not_found(response_id) from None
    bind_log_fields(response_id=response_id)  # well-formed: safe to log
    run = await backend.get(str(uuid.UUID(engine_run)))
    if run is None or run.job.owner_scope != await resolve_scope(request):
        raise _not_found(response_id)
    if run.response_id != response_id:
        raise _not_found(response_id)
    return backend, run


async def retrieve_background(request: Request, response_id: str) -> Response:
    """Return a background Response's current state.

    Raises:
        InvalidRequestError: 404 for unknown, foreground or other-scope IDs.

    """
    _, run = await _owned_run(request, response_id)
    return json_response(run.snapshot())


async def cancel_background(request: Request, response_id: str) -> Response:
    """Cancel a background run and return its Response.

    Raises:
        InvalidRequestError: 404 for unknown, foreground or other-scope IDs.

    """
    backend, run = await _owned_run(request, response_id)
    before = run.status
    await backend.cancel(run.id)
    run = await backend.get(run.id) or run
    if run.status == "cancelled" and before not in TERMINAL_STATUSES:
        registry = request.app.state.graph_registry
        model = model_label(run.job.request.get("model"), registry.graphs)
        BACKGROUND_RUNS.labels(model, "cancelled").inc()
    return json_response(run.snapshot())
