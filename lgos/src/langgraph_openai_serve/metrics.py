"""Prometheus metrics of LGOS: the instruments, their labels, and what records them.

The instruments live in ``prometheus_client``'s default registry. Each one
has labels, so nothing is written until a first value is recorded (in
multiprocess mode no file appears before then). Every label takes a bounded
set of values: the templated route (never the raw path), a registered model
or :data:`UNKNOWN`, an HTTP method from a fixed list, a status code, an error
``code``. No label ever holds an ID.

The HTTP instruments are recorded by the server's middleware
(``langgraph_openai_serve.server.metrics``), which opens a
:class:`RequestMetrics` for each request; deeper layers add to it through
:func:`note_model` and :func:`note_first_token`, which do nothing outside a
request. The run, lease, interrupt, background and error instruments are
recorded where those things happen, whoever runs the graph.

``docs/reference/metrics.md`` documents each metric.
"""

from __future__ import annotations

import re
import time
from collections.abc import Container
from contextvars import ContextVar, Token
from dataclasses import dataclass

from prometheus_client import Counter, Gauge, Histogram

__all__ = [
    "BACKGROUND_RUNS",
    "ERRORS",
    "HTTP_REQUESTS",
    "HTTP_REQUEST_DURATION",
    "INTERRUPTS_PAUSED",
    "INTERRUPTS_RESUMED",
    "LEASES_HELD",
    "LEASE_LOSSES",
    "LEASE_REFUSALS",
    "LEASE_WAIT",
    "OPEN_STREAMS",
    "OTHER",
    "RUNS_IN_FLIGHT",
    "TIME_TO_FIRST_TOKEN",
    "UNKNOWN",
    "RequestMetrics",
    "begin_request",
    "code_label",
    "count_error",
    "current_request",
    "end_request",
    "method_label",
    "model_label",
    "note_first_token",
    "note_model",
]

UNKNOWN = "unknown"
"""The ``model`` label of a request that named no registered model (or none)."""

OTHER = "other"
"""The label of a value outside the bounded set (a method, an error code)."""

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
LATENCY_BUCKETS += (120, 300, 600)
"""Seconds: a cached route answers in milliseconds, a research run in minutes."""

FIRST_TOKEN_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
"""Seconds from the request's arrival to its first streamed text."""

LEASE_WAIT_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
"""Seconds to take a lease: a free PostgreSQL lock is a round trip or two; a
full process waits for a slot (by default up to a few seconds)."""

HTTP_REQUESTS = Counter(
    "lgos_http_requests_total",
    "HTTP requests answered, by templated route, method, model and status code.",
    ("route", "method", "model", "status"),
)
HTTP_REQUEST_DURATION = Histogram(
    "lgos_http_request_duration_seconds",
    "Time from a request's arrival to the end of its response (a stream's end).",
    ("route", "method", "model"),
    buckets=LATENCY_BUCKETS,
)
TIME_TO_FIRST_TOKEN = Histogram(
    "lgos_time_to_first_token_seconds",
    "Time from a streaming request's arrival to its first text delta.",
    ("route", "model"),
    buckets=FIRST_TOKEN_BUCKETS,
)
OPEN_STREAMS = Gauge(
    "lgos_open_streams",
    "Event-stream (SSE) responses being sent now.",
    ("route", "model"),
    multiprocess_mode="livesum",
)
RUNS_IN_FLIGHT = Gauge(
    "lgos_runs_in_flight",
    "Graph runs prepared and not yet released (foreground and background).",
    ("model",),
    multiprocess_mode="livesum",
)
LEASES_HELD = Gauge(
    "lgos_leases_held",
    "Interrupt-run leases held by runs now.",
    ("model",),
    multiprocess_mode="livesum",
)
LEASE_WAIT = Histogram(
    "lgos_lease_wait_seconds",
    "Time an interrupt run took to be granted or refused its lease.",
    ("model",),
    buckets=LEASE_WAIT_BUCKETS,
)
LEASE_REFUSALS = Counter(
    "lgos_lease_refusals_total",
    "Leases refused: busy (another holder) or exhausted (no free slot in time).",
    ("model", "reason"),
)
LEASE_LOSSES = Counter(
    "lgos_lease_losses_total",
    "Runs whose lease ended while they held it (the run was stopped).",
    ("model",),
)
INTERRUPTS_PAUSED = Counter(
    "lgos_interrupts_paused_total",
    "Runs that paused on interrupts and handed the questions to the client.",
    ("model",),
)
INTERRUPTS_RESUMED = Counter(
    "lgos_interrupts_resumed_total",
    "Resumes accepted: answers to a pause that started its run again.",
    ("model",),
)
BACKGROUND_RUNS = Counter(
    "lgos_background_runs_total",
    "Background Responses reaching a state: queued, in_progress, completed, "
    "incomplete, failed or cancelled.",
    ("model", "state"),
)
ERRORS = Counter(
    "lgos_errors_total",
    "OpenAI errors sent to clients (error responses and in-stream failures), "
    "by error code.",
    ("code",),
)

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def method_label(method: str) -> str:
    """Return ``method`` if it is a standard HTTP method, else :data:`OTHER`."""
    return method if method in _METHODS else OTHER


def model_label(model: object, registered: Container[str]) -> str:
    """Return ``model`` if it names a registered graph, else :data:`UNKNOWN`.

    Args:
        model: What the client sent (any JSON value, or None).
        registered: The registry's model names (``registry.graphs``).

    """
    return model if isinstance(model, str) and model in registered else UNKNOWN


_CODE = re.compile(r"[a-z0-9_.-]{1,64}")
MAX_ERROR_CODES = 100
"""Distinct error codes one process labels; later new ones count as ``other``.

LGOS's own codes are a few dozen; the cap bounds codes an application's
resolver or graph may invent."""
_codes_seen: set[str] = set()


def code_label(code: object) -> str:
    """Return the ``code`` label of an error: the code, ``none``, or ``other``.

    A code is kept when it looks like one (lower-case letters, digits, ``_``,
    ``.``, ``-``; at most 64 characters) and is among the first
    :data:`MAX_ERROR_CODES` distinct codes of the process; a missing code is
    ``none``.
    """
    if code is None:
        return "none"
    if not isinstance(code, str) or _CODE.fullmatch(code) is None:
        return OTHER
    if code not in _codes_seen:
        if len(_codes_seen) >= MAX_ERROR_CODES:
            return OTHER
        _codes_seen.add(code)
    return code


def count_error(code: object) -> None:
    """Count one OpenAI error sent to a client (``lgos_errors_total``)."""
    ERRORS.labels(code_label(code)).inc()


@dataclass(slots=True)
class RequestMetrics:
    """What the metrics know of the HTTP request being served.

    Attributes:
        route: The templated route (``/v1/responses``), already bounded.
        start: ``time.perf_counter()`` at the request's arrival.
        model: The registered model the request named, or :data:`UNKNOWN`.
        first_token: Whether the first streamed text has been observed.

    """

    route: str
    start: float
    model: str = UNKNOWN
    first_token: bool = False


_current: ContextVar[RequestMetrics | None] = ContextVar(
    "lgos_request_metrics", default=None
)


def begin_request(route: str) -> tuple[RequestMetrics, Token[RequestMetrics | None]]:
    """Open the metrics of a request on ``route``; close them with :func:`end_request`.

    Tasks the request starts (a stream's body) inherit it.
    """
    request = RequestMetrics(route=route, start=time.perf_counter())
    return request, _current.set(request)


def end_request(token: Token[RequestMetrics | None]) -> None:
    """Close what :func:`begin_request` opened."""
    _current.reset(token)


def current_request() -> RequestMetrics | None:
    """Return the metrics of the request being served, or None outside one."""
    return _current.get()


def note_model(model: object, registered: Container[str]) -> None:
    """Label the current request with ``model`` (bounded by :func:`model_label`)."""
    request = _current.get()
    if request is not None:
        request.model = model_label(model, registered)


def note_first_token() -> None:
    """Observe the current request's time to first token, once per request.

    Called when a run hands out its first streamed text; nothing happens
    outside a request or after the first call.
    """
    request = _current.get()
    if request is None or request.first_token:
        return
    request.first_token = True
    TIME_TO_FIRST_TOKEN.labels(request.route, request.model).observe(
        time.perf_counter() - request.start
    )
