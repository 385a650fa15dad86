"""OpenTelemetry for graph executions: one GenAI workflow span and one metric.

LGOS uses only the OpenTelemetry API, which records nothing until the host
application installs an SDK (for example with ``opentelemetry-instrument``).
It follows the GenAI semantic conventions for workflows:

- span ``invoke_workflow {model}`` (kind ``INTERNAL``) with
  ``gen_ai.operation.name = "invoke_workflow"`` and
  ``gen_ai.workflow.name`` = the registered model;
- histogram ``gen_ai.workflow.duration`` (seconds) with
  ``gen_ai.workflow.name``, advising the conventions' bucket boundaries
  (1 s to 2 h; configure an SDK View for finer ones).

A run that ends before its final output fails: the span status is ERROR with
the exception's message, and both signals carry ``error.type``, the
exception's type qualified by its module unless it is built in
(``asyncio.exceptions.CancelledError``, ``GeneratorExit``). The span records
no exception event. :mod:`langgraph_openai_serve.graph.runner` decides where
a run starts, succeeds and fails.
"""

from __future__ import annotations

import time
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import NonRecordingSpan, SpanKind, Status, StatusCode

__all__ = [
    "WORKFLOW_DURATION",
    "WORKFLOW_DURATION_BUCKETS",
    "WorkflowTelemetry",
    "error_type",
]

WORKFLOW_DURATION = "gen_ai.workflow.duration"
WORKFLOW_DURATION_BUCKETS = (1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200)
"""Seconds; the conventions' ``ExplicitBucketBoundaries`` for the metric."""

_OPERATION = "invoke_workflow"
_SCOPE = "langgraph_openai_serve"

_tracer: trace.Tracer | None = None
_duration: metrics.Histogram | None = None


def _scope_version() -> str:
    try:
        return version("langgraph-openai-serve")
    except PackageNotFoundError:  # pragma: no cover - source checkout
        return "0.0.0"


def _instruments() -> tuple[trace.Tracer, metrics.Histogram]:
    # Proxies from the global API: they start recording once an SDK provider
    # is installed, even if that happens after this first call.
    global _tracer, _duration
    if _tracer is None or _duration is None:
        version = _scope_version()
        _tracer = trace.get_tracer(_SCOPE, version)
        _duration = metrics.get_meter(_SCOPE, version).create_histogram(
            WORKFLOW_DURATION,
            unit="s",
            description="GenAI workflow duration.",
            explicit_bucket_boundaries_advisory=WORKFLOW_DURATION_BUCKETS,
        )
    return _tracer, _duration


def error_type(exc: BaseException) -> str:
    """Return ``error.type`` for ``exc``: ``module.QualName``; built-ins unqualified.

    ``asyncio.exceptions.CancelledError``, ``GeneratorExit``, ``ValueError``.
    """
    kind = type(exc)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


class WorkflowTelemetry:
    """The span and duration of one graph execution.

    Usage::

        telemetry = WorkflowTelemetry("chat")  # starts the span
        task = asyncio.create_task(pump(telemetry.graph_context))
        ...
        telemetry.succeed()  # or telemetry.fail(exc)

    The span's parent is the context current at construction. ``graph_context``
    makes the span's context current without the span itself: it holds a
    non-recording copy of the span context, so spans the graph starts are
    children while code in the graph cannot change or end the span. Only the
    first :meth:`succeed` or :meth:`fail` counts.

    Args:
        model: The registered model (``gen_ai.workflow.name``).

    """

    __slots__ = ("_attributes", "_ended", "_span", "_start", "graph_context")

    def __init__(self, model: str) -> None:
        tracer, _ = _instruments()
        self._attributes: dict[str, Any] = {"gen_ai.workflow.name": model}
        self._span = tracer.start_span(
            f"{_OPERATION} {model}",
            kind=SpanKind.INTERNAL,
            attributes={"gen_ai.operation.name": _OPERATION, **self._attributes},
        )
        self._start = time.perf_counter()
        self._ended = False
        span_context = self._span.get_span_context()
        self.graph_context: otel_context.Context | None = (
            trace.set_span_in_context(NonRecordingSpan(span_context))
            if span_context.is_valid
            else None
        )
        """The context to attach where the graph advances, or None when the
        span is invalid (no SDK and no parent): nothing needs attaching."""

    def succeed(self) -> None:
        """End the span (status unset) and record the duration."""
        if self._ended:
            return
        self._ended = True
        self._span.end()
        _instruments()[1].record(time.perf_counter() - self._start, self._attributes)

    def fail(self, exc: BaseException) -> None:
        """End the span with status ERROR and ``error.type``; record the duration."""
        if self._ended:
            return
        self._ended = True
        kind = error_type(exc)
        self._span.set_attribute("error.type", kind)
        self._span.set_status(Status(StatusCode.ERROR, str(exc) or None))
        self._span.end()
        _instruments()[1].record(
            time.perf_counter() - self._start, {**self._attributes, "error.type": kind}
        )
