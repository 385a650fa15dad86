"""Prometheus metrics on the HTTP side: the request middleware and ``GET /metrics``.

:class:`MetricsMiddleware` measures every HTTP request of the app it wraps
(requests, latency, open streams) under the request's templated route, and
opens the :class:`~langgraph_openai_serve.metrics.RequestMetrics` that deeper
layers label with the model and the time to first token.
:func:`metrics_route` is the exposition endpoint; :func:`install_metrics`
puts both on an app (``lgos serve`` does, see
:func:`~langgraph_openai_serve.server.app.create_app`).

Protection: ``/metrics`` is a route of the app, outside the OpenAI prefix.
Given API keys (``lgos serve`` with ``LGOS_API_KEYS`` or
``LGOS_API_KEY_FILE``), it needs one of them like the OpenAI routes (only the
health probes are public); whatever else guards the app's routes guards it too.
To keep it off the API's port altogether, set
``LGOS_METRICS_ON_API_PORT=false`` and scrape ``LGOS_METRICS_PORT``
(:mod:`~langgraph_openai_serve.server.metrics_export`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from prometheus_client.exposition import choose_encoder
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route, Router, request_response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from langgraph_openai_serve.api.api_keys import ApiKeys
from langgraph_openai_serve.api.auth import ApiKeyMiddleware
from langgraph_openai_serve.metrics import (
    HTTP_REQUEST_DURATION,
    HTTP_REQUESTS,
    OPEN_STREAMS,
    begin_request,
    end_request,
    method_label,
)
from langgraph_openai_serve.server.metrics_export import exposition_registry

__all__ = [
    "METRICS_PATH",
    "UNMATCHED",
    "MetricsMiddleware",
    "install_metrics",
    "metrics_route",
    "route_template",
]

METRICS_PATH = "/metrics"

UNMATCHED = "unmatched"
"""The ``route`` label of a request no route of the app takes (a 404)."""

CLIENT_CLOSED_REQUEST = 499
"""The ``status`` of a request whose client left before any answer."""


def route_template(routes: Sequence[BaseRoute], scope: Scope) -> str | None:
    """Return the templated path of the route that takes ``scope``, or None.

    Matches as Starlette's router does: the first full match, else the first
    partial one (a path served for other methods: a 405). A mount's template
    is its path plus its inner route's (``/v1`` + ``/responses/{response_id}``);
    a path inside a mount that no inner route takes is None.
    """
    partial: str | None = None
    for route in routes:
        match, child_scope = route.matches(scope)
        if match is Match.NONE:
            continue
        if isinstance(route, Mount):
            if not route.routes:  # a mounted ASGI app without routes
                return route.path
            inner = route_template(route.routes, {**scope, **child_scope})
            return None if inner is None else route.path + inner
        path = getattr(route, "path", None)
        if not isinstance(path, str):
            continue
        if match is Match.FULL:
            return path
        partial = partial or path
    return partial


def _is_event_stream(message: Message) -> bool:
    for name, value in message.get("headers", ()):
        if name.lower() == b"content-type":
            return value.split(b";", 1)[0].strip() == b"text/event-stream"
    return False


class MetricsMiddleware:
    """Pure ASGI middleware recording the HTTP metrics of every request.

    ``lgos_http_requests_total`` and ``lgos_http_request_duration_seconds``
    when the response ends (a stream: when its last event is sent, or its
    client leaves), ``lgos_open_streams`` while an event stream is sent.
    The ``route`` label is the template of the route ``router`` matches
    (read at each request, so routes added later count), or ``unmatched``.

    Args:
        app: The ASGI app to wrap.
        router: The router whose routes name the requests (the host app's).

    """

    def __init__(self, app: ASGIApp, router: Router) -> None:
        self.app = app
        self.router = router
        # Templates of paths without parameters (/v1/responses), by method
        # label: matching the routes costs about 10 µs, a lookup almost
        # nothing. Bounded by the app's routes; cleared when they change.
        self._static: dict[tuple[str, str], str] = {}
        self._routes_count = -1

    def _route(self, scope: Scope, method: str) -> str:
        routes = self.router.routes
        if len(routes) != self._routes_count:
            self._static.clear()
            self._routes_count = len(routes)
        path: str = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        key = (method, path)
        if (known := self._static.get(key)) is not None:
            return known
        template = route_template(routes, scope)
        if template is None:
            return UNMATCHED
        if template == path:
            self._static[key] = template
        return template

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection; only ``http`` scopes are measured."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = method_label(scope["method"])
        route = self._route(scope, method)
        request, token = begin_request(route)
        status = CLIENT_CLOSED_REQUEST
        stream_model: str | None = None

        async def measured_send(message: Message) -> None:
            nonlocal status, stream_model
            if message["type"] == "http.response.start":
                status = message["status"]
                if _is_event_stream(message):
                    stream_model = request.model
                    OPEN_STREAMS.labels(route, stream_model).inc()
            await send(message)

        try:
            await self.app(scope, receive, measured_send)
        except Exception:
            if status == CLIENT_CLOSED_REQUEST:  # nothing was sent
                status = 500
            raise
        finally:
            end_request(token)
            if stream_model is not None:
                OPEN_STREAMS.labels(route, stream_model).dec()
            HTTP_REQUESTS.labels(route, method, request.model, str(status)).inc()
            HTTP_REQUEST_DURATION.labels(route, method, request.model).observe(
                time.perf_counter() - request.start
            )


async def _metrics(request: Request) -> Response:
    registry = exposition_registry()
    encoder, content_type = choose_encoder(request.headers.get("accept", ""))
    # Collecting reads every worker's files in multiprocess mode: off the loop.
    body = await run_in_threadpool(encoder, registry)
    return Response(body, headers={"Content-Type": content_type})


def metrics_route(path: str = METRICS_PATH, *, keys: ApiKeys | None = None) -> Route:
    """Return ``GET path``: the metrics in Prometheus's text format.

    OpenMetrics when the scraper's ``Accept`` header asks for it. In
    multiprocess mode the values of every worker process are merged. With
    ``keys``, a request without one of them is HTTP 401 ``invalid_api_key``
    (:class:`~langgraph_openai_serve.api.auth.ApiKeyMiddleware`).
    """
    if keys is None:
        return Route(path, _metrics, methods=["GET"], name="metrics")
    guarded = ApiKeyMiddleware(request_response(_metrics), keys, exempt=())
    return Route(path, guarded, methods=["GET"], name="metrics")


def install_metrics(
    app: Starlette, *, route: bool = True, keys: ApiKeys | None = None
) -> None:
    """Measure ``app``'s requests; with ``route``, serve ``GET /metrics`` too.

    Call it before ``app`` starts (it adds a middleware). ``keys``: the API
    keys ``GET /metrics`` requires (None: none).
    """
    if route:
        app.router.routes.append(metrics_route(keys=keys))
    app.add_middleware(MetricsMiddleware, router=app.router)
