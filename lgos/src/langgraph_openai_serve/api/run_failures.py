"""What a failed run tells its client: the message, the code, the status.

Shared by every stage that reports a run's failure: the run stage (HTTP
errors before and after a JSON answer), the stream encoders (their terminal
failure event), and the background worker (a ``failed`` Response).
"""

from __future__ import annotations

import logging

from langgraph_openai_serve.errors import (
    SERVER_ERROR,
    GraphError,
    InterruptNotDeclaredError,
    InvalidRequestError,
    OpenAIHTTPException,
    ServerError,
)
from langgraph_openai_serve.graph.coordinator import (
    LeaseLostError,
    LeasesExhaustedError,
    RunBusyError,
)
from langgraph_openai_serve.graph.run_stop import RunStoppedError
from langgraph_openai_serve.request_context import current_request_id

__all__ = [
    "RETRY_AFTER_SECONDS",
    "RUN_LEASE_LOST",
    "SERVER_SHUTTING_DOWN",
    "failure_cause",
    "failure_code",
    "failure_message",
    "log_failure",
    "log_stream_failure",
    "run_error",
    "shutting_down",
]


def failure_message(exc: BaseException) -> str:
    """Client-safe text for a failed run: LGOS's own messages, else a generic one.

    Exceptions raised by graph code may carry internal details, so only
    messages LGOS wrote reach the client; a generic failure names the
    request's ``x-request-id``, which the server's log line of the cause
    carries too. LGOS's own messages: :class:`GraphError`,
    :class:`~langgraph_openai_serve.graph.coordinator.LeaseLostError` and
    :class:`~langgraph_openai_serve.graph.run_stop.RunStoppedError`.
    """
    if isinstance(exc, GraphError | LeaseLostError | RunStoppedError):
        return str(exc)
    request_id = current_request_id()
    if request_id is None:
        return "The graph run failed."
    # As OpenAI's own 500s do: the ID that finds the server's log line.
    return (
        f"The graph run failed. Quote the request ID {request_id} to the "
        "server's operator: it is on the log line with the cause."
    )


_CAUSE_LIMIT = 500
"""The most characters of an exception's message :func:`failure_cause` keeps."""


def failure_cause(exc: BaseException) -> str:
    """Name a failure's cause in one readable line, logged before its traceback.

    LGOS's own messages for a graph's author (:class:`GraphError`,
    :class:`InterruptNotDeclaredError`) as they are, which say what to
    change; any other exception as ``Type: first line of its message``
    (cut at 500 characters). Never sent to a client.
    """
    text = str(exc).strip()
    if isinstance(exc, GraphError | InterruptNotDeclaredError) and text:
        return " ".join(text.split())
    line = text.splitlines()[0] if text else ""
    if len(line) > _CAUSE_LIMIT:
        line = line[:_CAUSE_LIMIT] + "..."
    name = type(exc).__name__
    return f"{name}: {line}" if line else name


def log_failure(logger: logging.Logger, what: str, exc: BaseException) -> None:
    """Log ``what`` failed at ERROR: its cause on the first line, then the traceback.

    The line reads ``<what>: <cause>`` (:func:`failure_cause`); the record
    points at the caller's line.
    """
    logger.error("%s: %s", what, failure_cause(exc), exc_info=exc, stacklevel=2)


RUN_LEASE_LOST = "run_lease_lost"
"""The error ``code`` of a run stopped because its lease was lost (HTTP 503)."""


SERVER_SHUTTING_DOWN = "server_shutting_down"
"""The error ``code`` of a request refused, or a run stopped, because the
server is shutting down (HTTP 503 with ``Retry-After``): retry it, on another
replica."""

RETRY_AFTER_SECONDS = 1
"""The ``Retry-After`` (seconds) of a ``server_shutting_down`` answer."""


def shutting_down(message: str | None = None) -> ServerError:
    """Return the retryable 503 ``server_shutting_down`` error, with ``Retry-After``."""
    return ServerError(
        message or "The server is shutting down; retry the request.",
        code=SERVER_SHUTTING_DOWN,
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def failure_code(exc: BaseException) -> str:
    """Return a failed run's error ``code``.

    ``run_lease_lost`` for a lost lease, ``server_shutting_down`` for a run the
    shutting-down server stopped, else ``server_error``.
    """
    if isinstance(exc, LeaseLostError):
        return RUN_LEASE_LOST
    if isinstance(exc, RunStoppedError):
        return SERVER_SHUTTING_DOWN
    return SERVER_ERROR


def run_error(exc: Exception) -> OpenAIHTTPException | None:
    """Map a neutral lease error to its OpenAI error, or return None.

    - :class:`RunBusyError`: 409 ``run_busy``;
    - :class:`LeasesExhaustedError`: 503 ``leases_exhausted``;
    - :class:`LeaseLostError` (lost while the run was being prepared, for
      example while waiting for a previous holder to stop): 503
      ``run_lease_lost``.
    """
    if isinstance(exc, RunBusyError):
        return InvalidRequestError(
            "Another request is running this operation; retry later.",
            code="run_busy",
            status_code=409,
        )
    if isinstance(exc, LeasesExhaustedError):
        return ServerError(
            "This server runs as many interrupt runs as it can; retry shortly.",
            code="leases_exhausted",
            status_code=503,
        )
    if isinstance(exc, LeaseLostError):
        return ServerError(str(exc), code=RUN_LEASE_LOST, status_code=503)
    return None


def log_stream_failure(logger: logging.Logger, exc: BaseException, model: str) -> None:
    """Log a streamed run's failure: one warning for a stopped run, else the traceback.

    A run stopped by a shutting-down server is expected (the drain logs why);
    any other failure is logged with its traceback, once, its first line
    naming the cause (:func:`failure_cause`).
    """
    if isinstance(exc, RunStoppedError):
        logger.warning("Streaming run stopped: shutting down (model %s)", model)
    else:
        log_failure(logger, f"Streaming graph run failed (model {model})", exc)
