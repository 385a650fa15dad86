"""Bind the OpenAI-compatible routes to a FastAPI application."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import FastAPI, Request
from starlette.middleware import Middleware
from starlette.routing import Mount

from langgraph_openai_serve.api.chat.routes import router as chat_router
from langgraph_openai_serve.api.errors import configure_openai_error_handlers
from langgraph_openai_serve.api.health import router as health_router
from langgraph_openai_serve.api.models import router as models_router
from langgraph_openai_serve.api.responses.routes import router as responses_router
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.runner import DEFAULT_CHECKPOINT_SCOPE
from langgraph_openai_serve.request_context import RequestContextMiddleware
from langgraph_openai_serve.settings import LgosSettings, normalize_openai_api_prefix

__all__ = ["LanggraphOpenaiServe", "get_version"]

_TITLE = "LangGraph OpenAI Serve"


def _default_scope(_request: Request) -> str:
    return DEFAULT_CHECKPOINT_SCOPE


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

    """

    def __init__(
        self,
        registry: GraphRegistry,
        app: FastAPI | None = None,
        checkpoint_scope: Callable[[Request], str | Awaitable[str]] | None = None,
        background: Any = None,
        *,
        settings: LgosSettings | None = None,
    ) -> None:
        self.graph_registry = registry
        self.background = background
        self.checkpoint_scope = checkpoint_scope or _default_scope
        self.settings = settings or LgosSettings()
        self.app: FastAPI = app or FastAPI(title=_TITLE, version=get_version())
        self.app.state.graph_registry = registry
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
        ``GET {prefix}/health``. Every response of the mount, errors and
        unknown paths included, carries an ``x-request-id`` header. The
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
        configure_openai_error_handlers(openai_app)
        for router in (models_router, responses_router, chat_router, health_router):
            openai_app.include_router(router)
        self.app.router.routes.append(
            Mount(
                prefix,
                app=openai_app,
                name="openai",
                middleware=[Middleware(RequestContextMiddleware)],
            )
        )
        self._openai_app = openai_app
        return self
