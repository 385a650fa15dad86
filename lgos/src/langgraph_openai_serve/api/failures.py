"""What a failed run tells its client: the message, the code, the status.

Shared by every stage that reports a run's failure: the run stage (HTTP
errors before and after a JSON answer), the stream encoders (their terminal
failure event), and the background worker (a ``failed`` Response).
"""

from __future__ import annotations

from langgraph_openai_serve.errors import (
    SERVER_ERROR,
    GraphError,
    InvalidRequestError,
    OpenAIHTTPException,
    ServerError,
)
from langgraph_openai_serve.graph.coordinator import (
    LeaseLostError,
    LeasesExhaustedError,
    RunBusyError,
)

__all__ = ["RUN_LEASE_LOST", "failure_code", "failure_message", "run_error"]


def failure_message(exc: BaseException) -> str:
    """Client-safe text for a failed run: LGOS's own messages, else a generic one.

    Exceptions raised by graph code may carry internal details, so only
    messages LGOS wrote reach the client: :class:`GraphError` and
    :class:`~langgraph_openai_serve.graph.coordinator.LeaseLostError`.
    """
    if isinstance(exc, GraphError | LeaseLostError):
        return str(exc)
    return "The graph run failed."


RUN_LEASE_LOST = "run_lease_lost"
"""The error ``code`` of a run stopped because its lease was lost (HTTP 503)."""


def failure_code(exc: BaseException) -> str:
    """Return a failed run's error ``code``: ``run_lease_lost`` or ``server_error``."""
    return RUN_LEASE_LOST if isinstance(exc, LeaseLostError) else SERVER_ERROR


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
