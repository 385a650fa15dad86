"""The ``RunnableConfig`` of a graph run: name, callbacks, correlation metadata.

Every run is named :data:`RUN_NAME` (``lgos.graph_run``) and carries these
``RunnableConfig.metadata`` fields, readable with LangGraph's ``get_config()``:

- ``lgos.model``: the registered model;
- ``lgos.request_id``: the HTTP request's ``x-request-id``, when there is one;
- ``lgos.operation_id``: the run UUID of an interrupt run;
- ``lgos.user``: the end user (``safety_identifier`` or ``user``), when named.

A tracing integration is injected, never imported here: whoever starts the
process (``lgos serve``, ``lgos worker``, or an application) installs a
:class:`RunTracing` with :func:`set_run_tracing`, and every run then gets its
callback handler beside the registered ``runtime_callbacks`` (never mutated),
its metadata, and its context where the graph advances.
:func:`~langgraph_openai_serve.integrations.langfuse.install_langfuse` is the
one LGOS ships (``LGOS_ENABLE_LANGFUSE``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.runnables import RunnableConfig

from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.interrupt import OPERATION_ID_METADATA_KEY

__all__ = [
    "MODEL_METADATA_KEY",
    "REQUEST_ID_METADATA_KEY",
    "RUN_NAME",
    "USER_METADATA_KEY",
    "RunTracing",
    "run_context",
    "run_tracing",
    "runnable_config",
    "set_run_tracing",
]

RUN_NAME = "lgos.graph_run"
MODEL_METADATA_KEY = "lgos.model"
REQUEST_ID_METADATA_KEY = "lgos.request_id"
USER_METADATA_KEY = "lgos.user"


@dataclass(frozen=True, slots=True)
class RunTracing:
    """A tracing integration applied to every graph run of the process.

    Attributes:
        handler: Returns the callback handler added to each run (called once
            per run; return a process-wide handler to share it).
        metadata: The integration's own ``RunnableConfig.metadata`` fields for
            a request (for example a trace name), merged after LGOS's.
        context: A context manager entered where the graph advances, so
            every observation of the run is made inside it.

    """

    handler: Callable[[], BaseCallbackHandler]
    metadata: Callable[[GraphRequest], dict[str, Any]]
    context: Callable[[GraphRequest], AbstractContextManager[object]]


_tracing: RunTracing | None = None


def set_run_tracing(tracing: RunTracing | None) -> None:
    """Install the process-wide :class:`RunTracing` (None removes it)."""
    global _tracing
    _tracing = tracing


def run_tracing() -> RunTracing | None:
    """Return the installed :class:`RunTracing`, or None."""
    return _tracing


def _add_handlers(callbacks: Any, handlers: list[BaseCallbackHandler]) -> Any:
    """Return ``callbacks`` plus ``handlers``, leaving the original untouched."""
    if callbacks is None:
        return handlers
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        for handler in handlers:
            manager.add_handler(handler, inherit=True)
        return manager
    return [*callbacks, *handlers]


def runnable_config(
    config: GraphConfig,
    request: GraphRequest,
    handlers: list[BaseCallbackHandler],
    *,
    request_id: str | None,
    operation_id: str | None = None,
) -> RunnableConfig:
    """Build a run's config: :data:`RUN_NAME`, callbacks and metadata.

    Args:
        config: The registered graph.
        request: The normalized request (model, user, metadata).
        handlers: LGOS's own handlers (usage collection), added after the
            registered ``runtime_callbacks``.
        request_id: The HTTP request ID, or None for direct calls.
        operation_id: The run UUID of an interrupt run, else None.

    Returns:
        A new ``RunnableConfig``; interrupt runs add ``configurable``.

    """
    metadata: dict[str, Any] = {MODEL_METADATA_KEY: request.model}
    if request_id is not None:
        metadata[REQUEST_ID_METADATA_KEY] = request_id
    if operation_id is not None:
        metadata[OPERATION_ID_METADATA_KEY] = operation_id
    if request.user is not None:
        metadata[USER_METADATA_KEY] = request.user
    if (tracing := _tracing) is not None:
        handlers = [*handlers, tracing.handler()]
        metadata.update(tracing.metadata(request))
    return {
        "callbacks": _add_handlers(config.runtime_callbacks, handlers),
        "run_name": RUN_NAME,
        "metadata": metadata,
    }


def run_context(
    request: GraphRequest,
) -> Callable[[], AbstractContextManager[object]] | None:
    """Return a factory of the installed tracing's context for a run, or None.

    The runner enters the context where the graph advances (see
    :class:`RunTracing`); None when no tracing is installed.
    """
    tracing = _tracing
    if tracing is None:
        return None
    return lambda: tracing.context(request)
