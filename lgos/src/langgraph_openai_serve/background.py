"""Background Responses: the engine protocol, jobs, and the in-process engine.

The public home of the names a background engine needs; they are defined in
:mod:`langgraph_openai_serve.api.responses.jobs` and
:mod:`~langgraph_openai_serve.api.responses.memory_engine`, beside the Responses
code that runs them. ``POST /v1/responses`` with ``background=true`` validates the
request, hands a :class:`BackgroundJob` to the configured
:class:`BackgroundBackend` and returns the queued Response at once; the
engine's worker calls :func:`execute_background_job`.
"""

from langgraph_openai_serve.api.responses.jobs import (
    BackgroundBackend,
    BackgroundJob,
    BackgroundRun,
    BackgroundStatus,
    execute_background_job,
    idempotency_digest,
    new_job,
    request_fingerprint,
)
from langgraph_openai_serve.api.responses.memory_engine import InMemoryBackgroundBackend

__all__ = [
    "BackgroundBackend",
    "BackgroundJob",
    "BackgroundRun",
    "BackgroundStatus",
    "InMemoryBackgroundBackend",
    "execute_background_job",
    "idempotency_digest",
    "new_job",
    "request_fingerprint",
]
