"""In-memory OpenTelemetry SDK for tests.

The global tracer and meter providers can be set once per process, so every
test module shares one pair, installed on first use. Histograms use delta
temporality: each ``metric_points()`` call returns what was recorded since
the previous call.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    HistogramDataPoint,
    InMemoryMetricReader,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)


@dataclass
class Capture:
    spans: InMemorySpanExporter
    reader: InMemoryMetricReader

    def finished(self, name: str | None = None) -> list[ReadableSpan]:
        return [
            span
            for span in self.spans.get_finished_spans()
            if name is None or span.name == name
        ]

    def workflow_spans(self) -> list[ReadableSpan]:
        return [s for s in self.finished() if s.name.startswith("invoke_workflow ")]

    def metric_points(self, name: str = "gen_ai.workflow.duration") -> list[Any]:
        data = self.reader.get_metrics_data()
        points: list[HistogramDataPoint] = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        points.extend(metric.data.data_points)  # type: ignore[arg-type]
        return points

    def reset(self) -> None:
        self.spans.clear()
        self.reader.get_metrics_data()


_capture: Capture | None = None


def install() -> Capture:
    """Install the in-memory SDK as the global providers (once per process)."""
    global _capture
    if _capture is None:
        spans = InMemorySpanExporter()
        current = trace.get_tracer_provider()
        if isinstance(current, TracerProvider):  # someone set an SDK first
            current.add_span_processor(SimpleSpanProcessor(spans))
        else:
            provider = TracerProvider()
            provider.add_span_processor(SimpleSpanProcessor(spans))
            trace.set_tracer_provider(provider)
        reader = InMemoryMetricReader(
            preferred_temporality={Histogram: AggregationTemporality.DELTA}
        )
        metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
        _capture = Capture(spans, reader)
    return _capture


@pytest.fixture(name="otel")
def otel_fixture() -> Iterator[Capture]:
    """The shared in-memory SDK, emptied before the test."""
    capture = install()
    capture.reset()
    yield capture
