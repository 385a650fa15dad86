"""The ASGI application that ``lgos serve`` runs."""

from __future__ import annotations

import asyncio
import gc
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from typing import Any, cast

from fastapi import FastAPI, Request

from langgraph_openai_serve.app import LanggraphOpenaiServe, get_version
from langgraph_openai_serve.background import InMemoryBackgroundBackend
from langgraph_openai_serve.graph.interrupt_expiry import sweep_forever
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.server.api_keys import (
    api_keys_from_settings,
    reload_on_sighup,
)
from langgraph_openai_serve.server.factory import (
    enter_registry,
    import_attribute,
    load_factory,
)
from langgraph_openai_serve.server.guards import GuardSettings, install_guards
from langgraph_openai_serve.server.health import (
    READY_TIMEOUT_SECONDS,
    NotReady,
    Readiness,
    ReadinessChecks,
    probe_routes,
)
from langgraph_openai_serve.server.metrics import install_metrics
from langgraph_openai_serve.server.resources import (
    RegistryFactory,
    open_resources,
)
from langgraph_openai_serve.server.server_settings import ServerSettings
from langgraph_openai_serve.server.shutdown import install_drain

__all__ = [
    "background_backend",
    "create_app",
    "create_app_from_env",
    "enter_registry",
    "load_factory",
    "load_scope_resolver",
]

ScopeResolver = Callable[[Request], str | Awaitable[str]]
"""A checkpoint scope resolver: the FastAPI request to a non-empty string."""


def load_scope_resolver(path: str) -> ScopeResolver:
    """Import a checkpoint scope resolver from ``"package.module:attribute"``.

    Raises:
        ValueError: ``path`` cannot be imported, or names something that is
            not callable with one argument (the request).

    """
    resolver = import_attribute(path)
    if not callable(resolver):
        msg = f"{path!r} is not callable."
        raise ValueError(msg)
    try:
        inspect.signature(resolver).bind(None)
    except TypeError:
        msg = f"{path!r} cannot take the one argument LGOS passes (the request)."
        raise ValueError(msg) from None
    except ValueError:  # a builtin without a signature: call it and see
        pass
    return cast("ScopeResolver", resolver)


def _freeze_startup_heap() -> None:
    """Leave the objects of startup out of later garbage collections.

    Modules, graphs and the registry live as long as the process; moved to
    the collector's permanent generation (``gc.freeze()``, after collecting
    the garbage of startup), they are no longer traversed by every full
    collection, which otherwise costs tens of milliseconds each under load.
    Reference counting still frees them as usual.
    """
    gc.collect()
    gc.freeze()


YOUNG_GENERATION_THRESHOLD = 10_000
"""Net new containers that start a collection of the youngest generation."""


def _raise_young_threshold() -> None:
    """Collect the youngest generation after 10,000 net allocations, not 700.

    A request holds its decoded conversation until it ends: at 500 messages
    several thousand live containers (each LangChain message carries a few
    dicts and lists), so with Python's default of 700 the collector
    traversed them about six times per request, about 7 % of the server's
    CPU time. Most objects die by reference counting and never count
    towards the threshold, so a collection still comes within 10,000 net
    allocations and garbage cycles are freed as before, a little later.
    """
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_GENERATION_THRESHOLD), *older)


def background_backend(
    settings: ServerSettings,
    registry: GraphRegistry,
    *,
    checks: ReadinessChecks | None = None,
) -> Any:
    """Return the background engine ``LGOS_BACKGROUND_ENGINE`` selects.

    ``memory`` (default): :class:`InMemoryBackgroundBackend` in this process.
    ``hatchet``: the Hatchet adapter; the Hatchet client reads its
    ``HATCHET_CLIENT_*`` settings (embedded mode when
    ``HATCHET_CLIENT_EMBEDDED_BINARY_PATH`` is set); ``checks``, when given,
    receives its readiness check ``hatchet`` (the engine answers).
    """
    if settings.background_engine == "memory":
        return InMemoryBackgroundBackend(registry)
    from langgraph_openai_serve.integrations.hatchet import (
        HatchetBackgroundBackend,
        create_hatchet_task,
        hatchet_client,
        readiness_check,
    )

    hatchet = hatchet_client()
    if checks is not None:
        checks["hatchet"] = readiness_check(hatchet, READY_TIMEOUT_SECONDS)
    return HatchetBackgroundBackend(create_hatchet_task(hatchet), hatchet.runs)


def install_tracing(settings: ServerSettings) -> None:
    """Apply ``LGOS_ENABLE_LANGFUSE`` to every graph run of this process.

    The graph layer never imports an integration; the server injects it.

    Raises:
        ImportError: Langfuse is enabled but the ``tracing`` extra is missing.

    """
    if settings.enable_langfuse:
        from langgraph_openai_serve.integrations.langfuse import install_langfuse

        install_langfuse(settings)


def create_app(
    factory: RegistryFactory | str,
    *,
    settings: ServerSettings | None = None,
    checkpoint_scope: ScopeResolver | None = None,
    guard_settings: GuardSettings | None = None,
) -> FastAPI:
    """Return the FastAPI app serving ``factory``'s registry.

    The app's lifespan opens the :class:`ServerResources` (PostgreSQL when
    ``LGOS_POSTGRES_URI`` is set, else in memory), builds the registry
    (entering it when the factory returns an async context manager), mounts
    the OpenAI routes under ``settings.openai_api_prefix`` with the in-process
    background engine, and runs the
    interrupt TTL sweep every ``LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES``.
    With ``LGOS_API_KEYS`` or ``LGOS_API_KEY_FILE`` every OpenAI route but
    the health probes needs a key, the key's tenant is the checkpoint scope
    (unless a resolver is given), and ``SIGHUP`` re-reads the key file.
    The probes ``GET /health/live`` and ``GET /health/ready`` are served at
    the root (:mod:`~langgraph_openai_serve.server.health`). Under Uvicorn,
    SIGTERM starts a graceful drain (:mod:`~langgraph_openai_serve.server.shutdown`,
    ``LGOS_SHUTDOWN_GRACE_SECONDS``).
    A request for a foreign ``Host`` or from a foreign web ``Origin`` is
    refused (:mod:`~langgraph_openai_serve.server.guards`,
    ``LGOS_ALLOWED_HOSTS``, ``LGOS_CORS_ALLOW_ORIGINS``); the probes are not
    checked. Every request is measured, and ``GET /metrics`` serves the Prometheus
    metrics unless ``LGOS_METRICS_ON_API_PORT`` is false (see
    :mod:`~langgraph_openai_serve.server.metrics`).
    Once started, it freezes the startup heap (``gc.freeze()``): full garbage
    collections then skip the objects that live as long as the process; and
    it lets the youngest generation grow to
    :data:`YOUNG_GENERATION_THRESHOLD` containers before it is collected.

    Args:
        factory: A registry factory or its ``module:attribute`` path.
        settings: Server settings; read from ``LGOS_*`` variables when None.
        checkpoint_scope: The checkpoint scope resolver; None loads
            ``LGOS_CHECKPOINT_SCOPE_RESOLVER`` when it is set, else the
            scope is the key's tenant (with keys) or ``"default"``.
        guard_settings: The Host and Origin guards' settings; read from
            ``LGOS_*`` variables when None.

    Raises:
        ValueError: A factory or resolver path that cannot be imported.
        ApiKeyError: The keys or the key file cannot be used.

    """
    settings = settings or ServerSettings()
    registry_factory = load_factory(factory) if isinstance(factory, str) else factory
    if checkpoint_scope is None and settings.checkpoint_scope_resolver:
        checkpoint_scope = load_scope_resolver(settings.checkpoint_scope_resolver)
    api_keys = api_keys_from_settings(settings)
    guard_settings = guard_settings or GuardSettings()
    install_tracing(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            checks: ReadinessChecks = {}
            resources = await stack.enter_async_context(
                open_resources(settings, checks=checks)
            )
            registry = await enter_registry(stack, registry_factory, resources)
            background = background_backend(settings, registry, checks=checks)
            if isinstance(background, InMemoryBackgroundBackend):
                await stack.enter_async_context(background.lifespan(app))
            serve = LanggraphOpenaiServe(
                registry,
                app,
                checkpoint_scope=checkpoint_scope,
                background=background,
                settings=settings,
                api_keys=api_keys,
            ).bind_openai_api()
            stack.enter_context(reload_on_sighup(api_keys))
            app.state.readiness = Readiness(
                {
                    "registry": _registry_check(app),
                    "shutdown": _shutdown_check(serve),
                    **checks,
                }
            )
            restore = install_drain(serve.shutdown, settings.shutdown_grace_seconds)
            if restore is not None:
                stack.callback(restore)
            if settings.interrupt_sweep_interval_minutes > 0:
                sweep = asyncio.create_task(
                    sweep_forever(
                        resources.checkpointer,
                        resources.run_coordinator,
                        older_than=timedelta(minutes=settings.interrupt_ttl_minutes),
                        interval=timedelta(
                            minutes=settings.interrupt_sweep_interval_minutes
                        ),
                    ),
                    name="lgos.interrupt_sweep",
                )
                stack.callback(sweep.cancel)
            _freeze_startup_heap()
            _raise_young_threshold()
            yield

    app = FastAPI(
        title="LangGraph OpenAI Serve",
        version=get_version(),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.readiness = Readiness({"registry": _registry_check(app)})
    # Before the OpenAI mount, which the lifespan adds: the probes stay at
    # the root whatever the prefix.
    app.router.routes.extend(probe_routes(lambda request: request.app.state.readiness))
    probes = ("/health", f"{settings.openai_api_prefix}/health")
    install_guards(app, guard_settings, exempt=probes)
    install_metrics(app, route=settings.metrics_on_api_port, keys=api_keys)
    return app


def _registry_check(app: FastAPI) -> Any:
    async def registry() -> None:
        if getattr(app.state, "graph_registry", None) is None:
            raise NotReady("the registry is not loaded")

    return registry


def _shutdown_check(serve: LanggraphOpenaiServe) -> Any:
    async def shutdown() -> None:
        if serve.shutdown.shutting_down:
            raise NotReady("the server is shutting down")

    return shutdown


def create_app_from_env() -> FastAPI:
    """Uvicorn factory: serve ``LGOS_REGISTRY_FACTORY`` (set by ``lgos serve``).

    Raises:
        ValueError: ``LGOS_REGISTRY_FACTORY`` is not set.

    """
    settings = ServerSettings()
    if not settings.registry_factory:
        msg = "LGOS_REGISTRY_FACTORY is not set; run 'lgos serve module:attribute'."
        raise ValueError(msg)
    return create_app(settings.registry_factory, settings=settings)
