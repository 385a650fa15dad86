"""The demo API exports OpenTelemetry over OTLP/HTTP when the standard variables say so."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)

from langgraph_openai_serve.telemetry import WORKFLOW_DURATION_BUCKETS
from tests.procs import free_port, lgos_command, running
from tests.waiting import wait_until


class Collector:
    """A minimal OTLP/HTTP receiver keeping every decoded export request."""

    def __init__(self) -> None:
        self.traces: list[ExportTraceServiceRequest] = []
        self.metrics: list[ExportMetricsServiceRequest] = []

    def handler(self) -> type[BaseHTTPRequestHandler]:
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path == "/v1/traces":
                    collector.traces.append(ExportTraceServiceRequest.FromString(body))
                elif self.path == "/v1/metrics":
                    collector.metrics.append(
                        ExportMetricsServiceRequest.FromString(body)
                    )
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def spans(self) -> list[tuple[str, Any]]:
        """``(service.name, span)`` for every exported span."""
        found = []
        for request in self.traces:
            for resource in request.resource_spans:
                service = next(
                    a.value.string_value
                    for a in resource.resource.attributes
                    if a.key == "service.name"
                )
                for scope in resource.scope_spans:
                    found.extend((service, span) for span in scope.spans)
        return found

    def histograms(self, name: str) -> list[Any]:
        return [
            metric.histogram
            for request in self.metrics
            for resource in request.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
        ]


@pytest.fixture
def collector() -> Iterator[tuple[Collector, int]]:
    state = Collector()
    server = ThreadingHTTPServer(("127.0.0.1", 0), state.handler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, server.server_address[1]
    finally:
        server.shutdown()


def attributes(span: Any) -> dict[str, Any]:
    values = {}
    for attribute in span.attributes:
        value = attribute.value
        values[attribute.key] = value.string_value or value.int_value
    return values


def test_demo_api_exports_http_and_workflow_telemetry(
    tmp_path: Path, collector: tuple[Collector, int]
) -> None:
    state, collector_port = collector
    port = free_port()
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector_port}",
        "OTEL_SERVICE_NAME": "lgos-test-api",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "OTEL_METRIC_EXPORT_INTERVAL": "200",
        "DEMO_API_OPENAI_API_KEY": "",
        "DEMO_API_OFFLINE_CHUNK_DELAY": "0",
    }
    with running(
        [
            *lgos_command(),
            "serve",
            "lgos_demo_api.registry:create_registry",
            "--port",
            str(port),
        ],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=tmp_path / "api.log",
        env=env,
    ):
        reply = httpx.post(
            f"http://127.0.0.1:{port}/v1/responses",
            json={"model": "chat", "input": "hello"},
            timeout=30,
        )
        assert reply.status_code == 200

        def exported() -> bool:
            names = {span.name for _, span in state.spans()}
            return "invoke_workflow chat" in names and bool(
                state.histograms("gen_ai.workflow.duration")
            )

        wait_until(exported, timeout=20, message="the span and metric exports")

    spans = state.spans()
    assert {service for service, _ in spans} == {"lgos-test-api"}
    [workflow] = [span for _, span in spans if span.name == "invoke_workflow chat"]
    assert attributes(workflow)["gen_ai.workflow.name"] == "chat"
    servers = [
        span
        for _, span in spans
        if attributes(span).get("http.route") == "/v1/responses"
        and span.trace_id == workflow.trace_id
    ]
    assert servers  # the host app's HTTP span, in the workflow's trace
    histogram = state.histograms("gen_ai.workflow.duration")[0]
    point = histogram.data_points[0]
    assert tuple(point.explicit_bounds) == WORKFLOW_DURATION_BUCKETS
    assert reply.headers["x-request-id"].startswith("req_")
