"""OpenTelemetry SDK setup for the demo API and worker processes.

LGOS itself only uses the OpenTelemetry API; a host application decides
where telemetry goes. The demo installs the SDK with OTLP/HTTP exporters for
traces and metrics when the standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``..._METRICS_ENDPOINT``) variable is
set, for example ``http://127.0.0.1:4318`` for a local collector. The service
name comes from ``OTEL_SERVICE_NAME`` (default ``lgos-demo-api``); every other
``OTEL_*`` variable the SDK and exporters read applies as usual.

The registry factory calls :func:`configure_telemetry`, so both
``lgos serve`` (in every Uvicorn worker process) and ``lgos worker`` export:
the host FastAPI app's HTTP spans (FastAPI's native OpenTelemetry) and LGOS's
``invoke_workflow`` spans and ``gen_ai.workflow.duration`` histogram.
"""

from __future__ import annotations

import os
import threading

from opentelemetry import metrics, trace

__all__ = ["DEFAULT_SERVICE_NAME", "configure_telemetry"]

DEFAULT_SERVICE_NAME = "lgos-demo-api"
_ENDPOINT_VARIABLES = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)
_lock = threading.Lock()


def configure_telemetry() -> bool:
    """Install the OpenTelemetry SDK with OTLP/HTTP exporters, once per process.

    Does nothing when no OTLP endpoint variable is set, when
    ``OTEL_SDK_DISABLED=true``, or when a tracer provider is already installed
    (for example by ``opentelemetry-instrument``), so calling it again is safe.

    Returns:
        Whether this call installed the providers.

    """
    if not any(os.environ.get(name) for name in _ENDPOINT_VARIABLES):
        return False
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    with _lock:
        if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            return False
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
            OTLPMetricExporter,
        )
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter,
        )
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in (
            os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
        )
        # Resource.create reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
        resource = Resource.create(
            {} if named else {SERVICE_NAME: DEFAULT_SERVICE_NAME}
        )
        tracer_provider = TracerProvider(resource=resource)
        tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        trace.set_tracer_provider(tracer_provider)
        reader = PeriodicExportingMetricReader(OTLPMetricExporter())
        metrics.set_meter_provider(
            MeterProvider(resource=resource, metric_readers=[reader])
        )
        return True
