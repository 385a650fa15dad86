"""The ``RunnableConfig`` of a graph run: name, callbacks, correlation metadata.

Every run is named :data:`RUN_NAME` (``lgos.graph_run``) and carries these
``RunnableConfig.metadata`` fields, readable with LangGraph's ``get_config()``:

- ``lgos.model``: the registered model;
- ``lgos.request_id``: the HTTP request's ``x-request-id``, when there is one;
- ``lgos.operation_id``: the run UUID of an interrupt run;
- ``lgos.user``: the end user (``safety_identifier`` or ``user``), when named.

With ``LGOS_ENABLE_LANGFUSE=True`` the process-wide Langfuse handler is added
beside the registered ``runtime_callbacks`` (never mutated), and Langfuse's
``langfuse_user_id``, ``langfuse_session_id`` (``metadata.conversation_id``)
and ``langfuse_trace_name`` (the model) are set; with the toggle off no
Langfuse field is set, so a handler passed in ``runtime_callbacks`` gets none.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cache
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.runnables import RunnableConfig

from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.interrupt import OPERATION_ID_METADATA_KEY
from langgraph_openai_serve.graph.request import GraphRequest

__all__ = [
    "MODEL_METADATA_KEY",
    "REQUEST_ID_METADATA_KEY",
    "RUN_NAME",
    "USER_METADATA_KEY",
    "langfuse_enabled",
    "langfuse_run_context",
    "runnable_config",
]

RUN_NAME = "lgos.graph_run"
MODEL_METADATA_KEY = "lgos.model"
REQUEST_ID_METADATA_KEY = "lgos.request_id"
USER_METADATA_KEY = "lgos.user"


@cache
def langfuse_enabled() -> bool:
    """Return ``LGOS_ENABLE_LANGFUSE``, read once per process."""
    from langgraph_openai_serve.settings import LgosSettings

    return LgosSettings().enable_langfuse


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


def _session(request: GraphRequest) -> str | None:
    return request.metadata.get("conversation_id")


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
    if langfuse_enabled():
        from langgraph_openai_serve.integrations.langfuse import get_langfuse_callback

        handlers = [*handlers, get_langfuse_callback()]
        metadata["langfuse_trace_name"] = request.model
        if request.user is not None:
            metadata["langfuse_user_id"] = request.user
        if (session := _session(request)) is not None:
            metadata["langfuse_session_id"] = session
    return {
        "callbacks": _add_handlers(config.runtime_callbacks, handlers),
        "run_name": RUN_NAME,
        "metadata": metadata,
    }


def langfuse_run_context(
    request: GraphRequest,
) -> Callable[[], AbstractContextManager[object]] | None:
    """Return a factory of Langfuse's attribute context for a run, or None.

    None unless ``LGOS_ENABLE_LANGFUSE`` is on. The runner enters the context
    where the graph advances, so every observation of the run carries the end
    user, session and trace name.
    """
    if not langfuse_enabled():
        return None
    from langgraph_openai_serve.integrations.langfuse import run_attributes

    return lambda: run_attributes(
        user=request.user, session=_session(request), trace_name=request.model
    )
