"""Langfuse tracing (extra ``tracing``).

With ``LGOS_ENABLE_LANGFUSE=True`` (and Langfuse's own ``LANGFUSE_PUBLIC_KEY``,
``LANGFUSE_SECRET_KEY`` and optional ``LANGFUSE_BASE_URL``) every graph run
gets the process-wide handler from :func:`get_langfuse_callback` beside its
``runtime_callbacks``, and LGOS sets the run's end user, session
(``metadata.conversation_id``) and trace name (the registered model) on every
observation of the run. ``lgos serve`` and ``lgos worker`` apply the toggle at
start with :func:`install_langfuse`; an application that builds its own server
calls it once at start-up (the graph layer never imports this module: the
tracing is injected through
:func:`~langgraph_openai_serve.graph.run_config.set_run_tracing`).

To use a handler of your own instead, leave the toggle off and pass it in
``GraphConfig.runtime_callbacks``; LGOS then sets no Langfuse attributes.

Usage::

    from langgraph_openai_serve.integrations.langfuse import get_langfuse_callback

    handler = get_langfuse_callback()
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Any

try:
    from langfuse import Langfuse, propagate_attributes
    from langfuse._client.resource_manager import LangfuseResourceManager
    from langfuse.langchain import CallbackHandler
    from opentelemetry.sdk.trace import TracerProvider
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[tracing] for the Langfuse integration."
    raise ImportError(msg) from exc

from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.run_config import RunTracing, set_run_tracing
from langgraph_openai_serve.settings import LgosSettings

__all__ = ["get_langfuse_callback", "install_langfuse", "run_attributes"]

_lock = threading.Lock()
_handler: CallbackHandler | None = None


def _langfuse_client_exists() -> bool:
    # Langfuse keeps one resource manager per public key; an application that
    # built its own client first keeps its own tracing setup.
    return bool(getattr(LangfuseResourceManager, "_instances", None))


def get_langfuse_callback() -> CallbackHandler:
    """Return the process-wide Langfuse ``CallbackHandler``, creating it once.

    Unless the application already created a Langfuse client, LGOS first
    creates one with a ``TracerProvider`` of its own, as Langfuse recommends
    beside another tracing backend: Langfuse observations (which hold prompts
    and outputs) never reach the application's OpenTelemetry exporters, and
    the application's spans never reach Langfuse; both share the trace ID.
    The client reads Langfuse's standard ``LANGFUSE_*`` settings; without
    keys, Langfuse disables itself and warns.

    Returns:
        The handler; thread-safe to call from any run.

    """
    global _handler
    if _handler is None:
        with _lock:
            if _handler is None:
                if not _langfuse_client_exists():
                    Langfuse(tracer_provider=TracerProvider())
                _handler = CallbackHandler()
    return _handler


def run_attributes(
    *, user: str | None, session: str | None, trace_name: str
) -> AbstractContextManager[object]:
    """Set Langfuse's user, session and trace name on observations made inside.

    Entered where the graph advances, so every observation of the run (the
    handler's, and any other Langfuse instrumentation's) carries them.

    Args:
        user: The end user (``safety_identifier`` or ``user``), or None.
        session: ``metadata.conversation_id``, or None.
        trace_name: The registered model.

    """
    return propagate_attributes(user_id=user, session_id=session, trace_name=trace_name)


def _session(request: GraphRequest) -> str | None:
    return request.metadata.get("conversation_id")


def _metadata(request: GraphRequest) -> dict[str, Any]:
    metadata: dict[str, Any] = {"langfuse_trace_name": request.model}
    if request.user is not None:
        metadata["langfuse_user_id"] = request.user
    if (session := _session(request)) is not None:
        metadata["langfuse_session_id"] = session
    return metadata


def _context(request: GraphRequest) -> AbstractContextManager[object]:
    return run_attributes(
        user=request.user, session=_session(request), trace_name=request.model
    )


LANGFUSE_TRACING = RunTracing(
    handler=get_langfuse_callback, metadata=_metadata, context=_context
)
"""The Langfuse :class:`~langgraph_openai_serve.graph.run_config.RunTracing`."""


def install_langfuse(settings: LgosSettings | None = None) -> bool:
    """Apply ``LGOS_ENABLE_LANGFUSE``: install Langfuse tracing for every run.

    The deployment-level toggle is authoritative: on, every graph run of the
    process gets :func:`get_langfuse_callback`'s handler and Langfuse's user,
    session and trace-name attributes; off, nothing is installed (a handler
    passed in ``runtime_callbacks`` then gets no Langfuse attributes).

    Args:
        settings: The settings to read (``LgosSettings()`` when None).

    Returns:
        Whether Langfuse tracing is now installed.

    """
    if not (settings or LgosSettings()).enable_langfuse:
        return False
    set_run_tracing(LANGFUSE_TRACING)
    return True
