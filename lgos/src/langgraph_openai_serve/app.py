"""Bind the OpenAI-compatible routes to a FastAPI application."""

from __future__ import annotations

import inspect
import re
import time
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.middleware import Middleware
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route

from langgraph_openai_serve.api.api_keys import ApiKeys
from langgraph_openai_serve.api.auth import ApiKeyMiddleware, tenant_checkpoint_scope
from langgraph_openai_serve.api.chat.routes import router as chat_router
from langgraph_openai_serve.api.error_handlers import configure_openai_error_handlers
from langgraph_openai_serve.api.health import router as health_router
from langgraph_openai_serve.api.models import router as models_router
from langgraph_openai_serve.api.openapi import describe_routes
from langgraph_openai_serve.api.query_params import (
    ANY_QUERY,
    NO_QUERY,
    RETRIEVE_RESPONSE_QUERY,
    check_query,
)
from langgraph_openai_serve.api.responses.jobs import BackgroundBackend
from langgraph_openai_serve.api.responses.routes import router as responses_router
from langgraph_openai_serve.api.run_limit import RunLimitMiddleware
from langgraph_openai_serve.api.shutdown import ShutdownMiddleware, ShutdownState
from langgraph_openai_serve.api.websocket import with_websocket_refusal
from langgraph_openai_serve.graph.prepare import DEFAULT_CHECKPOINT_SCOPE
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.request_context import RequestContextMiddleware
from langgraph_openai_serve.settings import LgosSettings, normalize_openai_api_prefix

__all__ = ["LanggraphOpenaiServe", "get_version"]

_TITLE = "LangGraph OpenAI Serve"
_ROUTERS = (models_router, responses_router, chat_router, health_router)
# The routes OpenAI defines query parameters for; the others take none.
QUERY_RULES = {
    "/responses/{response_id}": RETRIEVE_RESPONSE_QUERY,
    "/health": ANY_QUERY,
}


def _default_scope(_request: Request) -> str:
    return DEFAULT_CHECKPOINT_SCOPE


def _lean_route(route: APIRoute) -> Route:
    """Serve an ``APIRoute``'s endpoint as a plain Starlette ``Route``.

    The endpoints take the ``Request`` (and string path parameters) and
    return a ``Response``, so FastAPI's per-request dependency solving and
    response handling have nothing to do: skipping them saves their cost on
    every request. The methods stay exactly the route's (Starlette would add
    ``HEAD`` to ``GET``). Query parameters are checked as OpenAI defines them
    for the route (:mod:`~langgraph_openai_serve.api.query_params`).
    """
    endpoint = route.endpoint
    names = [
        name for name in inspect.signature(endpoint).parameters if name != "request"
    ]
    rules = QUERY_RULES.get(route.path, NO_QUERY)

    async def serve(request: Request) -> Response:
        check_query(request, rules)  # nothing to do without a query string
        params = request.path_params
        return await endpoint(request=request, **{n: params[n] for n in names})

    methods = set(route.methods or ())
    lean = Route(route.path, serve, methods=methods, name=route.name)
    lean.methods = methods
    return lean


def _openapi(app: FastAPI, documented: list[BaseRoute]) -> Callable[[], dict[str, Any]]:
    """Return ``app.openapi``: FastAPI's schema of the LGOS routes.

    The LGOS endpoints are served by plain routes, which FastAPI does not
    document, so the schema is built, with FastAPI's own arguments, from the
    routers that declare them, plus any API routes added to ``app`` later;
    :func:`~langgraph_openai_serve.api.openapi.describe_routes` adds their
    request bodies and error responses.
    """
    built_with: list[int] = [-1]

    def openapi() -> dict[str, Any]:
        routes = [*documented, *(r for r in app.routes if isinstance(r, APIRoute))]
        if not app.openapi_schema or built_with[0] != len(routes):
            app.openapi_schema = get_openapi(
                title=app.title,
                version=app.version,
                openapi_version=app.openapi_version,
                summary=app.summary,
                description=app.description,
                terms_of_service=app.terms_of_service,
                contact=app.contact,
                license_info=app.license_info,
                routes=routes,
                webhooks=app.webhooks.routes,
                tags=app.openapi_tags,
                servers=app.servers,
                separate_input_output_schemas=app.separate_input_output_schemas,
                external_docs=app.openapi_external_docs,
            )
            describe_routes(app.openapi_schema)
            built_with[0] = len(routes)
        return app.openapi_schema

    return openapi


def get_version() -> str:
    """Return the installed ``langgraph-openai-serve`` version."""
    try:
        return version("langgraph-openai-serve")
    except PackageNotFoundError:  # pragma: no cover - source checkout
        return "0.0.0"


class LanggraphOpenaiServe:
    """Serve a :class:`GraphRegistry` through OpenAI-compatible routes.

    Usage::

        app = FastAPI()
        LanggraphOpenaiServe(registry=registry, app=app).bind_openai_api()

    Args:
        registry: The graphs to serve.
        app: Host FastAPI application; a new one is created when None.
        checkpoint_scope: Sync or async callable from the FastAPI ``Request``
            to a non-empty, server-trusted string (for example the
            authenticated tenant) isolating interrupt checkpoints. Never derive
            it from caller-controlled metadata or the OpenAI ``user`` fields.
            Default: the single shared scope ``"default"``.
        background: A ``BackgroundBackend`` running ``background=true``
            Responses for models declaring ``GraphFeature.BACKGROUND``.
        settings: Package settings; read from ``LGOS_*`` variables when None.
        api_keys: Require one of these keys (``Authorization: Bearer``) on
            every route under the prefix but the health probes
            (:mod:`~langgraph_openai_serve.api.auth`); a missing or wrong
            key is HTTP 401 ``invalid_api_key``. Without ``checkpoint_scope``
            the scope is then the tenant the key names (``"default"`` for a
            key without one). None (the default): no authentication.

    Attributes:
        shutdown: The mount's :class:`~.api.shutdown.ShutdownState`: a server
            stopping gracefully calls its ``begin()`` (new requests get 503
            ``server_shutting_down``), ``wait_idle(seconds)`` and
            ``stop_runs()``; ``lgos serve`` does so on SIGTERM.

    """

    def __init__(
        self,
        registry: GraphRegistry,
        app: FastAPI | None = None,
        checkpoint_scope: Callable[[Request], str | Awaitable[str]] | None = None,
        background: BackgroundBackend | None = None,
        *,
        settings: LgosSettings | None = None,
        api_keys: ApiKeys | None = None,
    ) -> None:
        self.graph_registry = registry
        self.background = background
        self.api_keys = api_keys
        self.checkpoint_scope = checkpoint_scope or (
            _default_scope if api_keys is None else tenant_checkpoint_scope
        )
        self.settings = settings or LgosSettings()
        self.app: FastAPI = app or FastAPI(title=_TITLE, version=get_version())
        self.app.state.graph_registry = registry
        self.shutdown = ShutdownState()
        self._openai_app: FastAPI | None = None

    @property
    def openai_app(self) -> FastAPI:
        """The mounted OpenAI FastAPI application.

        Raises:
            RuntimeError: :meth:`bind_openai_api` was not called yet.

        """
        if self._openai_app is None:
            msg = "Call bind_openai_api() first."
            raise RuntimeError(msg)
        return self._openai_app

    def bind_openai_api(self, prefix: str | None = None) -> LanggraphOpenaiServe:
        """Mount the OpenAI routes on the host app under ``prefix``.

        Routes: ``GET {prefix}/models``, ``GET {prefix}/models/{model}``,
        ``POST {prefix}/responses``, ``POST {prefix}/chat/completions``,
        ``GET {prefix}/health``. With ``api_keys``, every route but
        ``{prefix}/health`` (and the paths under it) needs a key. Every
        response of the mount, errors and unknown paths included, carries an
        ``x-request-id`` header; once :attr:`shutdown` has begun, every route
        but ``{prefix}/health`` answers 503 ``server_shutting_down`` with
        ``Retry-After``; a run request beyond ``max_concurrent_runs`` at once
        answers 503 ``server_overloaded`` (:mod:`~.api.run_limit`); a
        WebSocket connection is refused with an explanation (only HTTP is
        served). The
        mounted app's own FastAPI OpenTelemetry is off: the host app's HTTP
        telemetry covers the mount.

        Args:
            prefix: Mount path; defaults to ``LGOS_OPENAI_API_PREFIX``
                (``/v1``).

        Returns:
            ``self``, for chaining.

        """
        prefix = (
            normalize_openai_api_prefix(prefix)
            if prefix is not None
            else self.settings.openai_api_prefix
        )
        openai_app = FastAPI(
            title=_TITLE,
            version=get_version(),
            # HTTP telemetry belongs to the host app: its settings (including
            # turning FastAPI's native OpenTelemetry off) cover these routes,
            # and http.route includes the mount, such as /v1/responses.
            telemetry={"tracing": False, "metrics": False, "logs": False},
            **self.settings.fastapi_docs_kwargs,
        )
        openai_app.state.graph_registry = self.graph_registry
        openai_app.state.checkpoint_scope = self.checkpoint_scope
        openai_app.state.background_backend = self.background
        openai_app.state.created = int(time.time())
        openai_app.state.max_request_bytes = self.settings.max_request_bytes
        openai_app.state.run_stop = self.shutdown.run_stop
        configure_openai_error_handlers(openai_app)
        # The routers declare (and document) the routes; the app serves their
        # endpoints as plain Starlette routes.
        documented = APIRouter()
        for router in _ROUTERS:
            documented.include_router(router)
        openai_app.router.routes.extend(
            _lean_route(route)
            for router in _ROUTERS
            for route in router.routes
            if isinstance(route, APIRoute)
        )
        openai_app.openapi = _openapi(openai_app, documented.routes)
        # Only HTTP is served: a WebSocket no route takes gets an explanation.
        openai_app.router.default = with_websocket_refusal(openai_app.router.default)
        middleware = [
            Middleware(RequestContextMiddleware),
            Middleware(ShutdownMiddleware, state=self.shutdown),
        ]
        if self.api_keys is not None:
            # Inside the request context: a refusal has its x-request-id too.
            middleware.append(Middleware(ApiKeyMiddleware, keys=self.api_keys))
        if self.settings.max_concurrent_runs > 0:
            # After the key check: a refused caller takes no run slot.
            limit = self.settings.max_concurrent_runs
            middleware.append(Middleware(RunLimitMiddleware, limit=limit))
        mount = Mount(prefix, app=openai_app, name="openai", middleware=middleware)
        # Every path under the prefix belongs to the mount, so every answer
        # there is an OpenAI envelope with an x-request-id: Starlette's path
        # pattern stops at a newline (/v1/models/a%0Ab) unless "." spans it.
        mount.path_regex = re.compile(mount.path_regex.pattern, re.DOTALL)
        self.app.router.routes.append(mount)
        self._openai_app = openai_app
        return self
