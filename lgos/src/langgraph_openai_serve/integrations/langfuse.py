"""Langfuse tracing (extra ``tracing``).

With ``LGOS_ENABLE_LANGFUSE=True`` (and Langfuse's own ``LANGFUSE_PUBLIC_KEY``,
``LANGFUSE_SECRET_KEY`` and optional ``LANGFUSE_BASE_URL``) every graph run
gets the process-wide handler from :func:`get_langfuse_callback` beside its
``runtime_callbacks``, and LGOS sets the run's end user, session
(``metadata.conversation_id``) and trace name (the registered model) on every
observation of the run.

To use a handler of your own instead, leave the toggle off and pass it in
``GraphConfig.runtime_callbacks``; LGOS then sets no Langfuse attributes.

Usage::

    from langgraph_openai_serve.integrations.langfuse import get_langfuse_callback

    handler = get_langfuse_callback()
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager

try:
    from langfuse import Langfuse, propagate_attributes
    from langfuse._client.resource_manager import LangfuseResourceManager
    from langfuse.langchain import CallbackHandler
    from opentelemetry.sdk.trace import TracerProvider
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[tracing] for the Langfuse integration."
    raise ImportError(msg) from exc

__all__ = ["get_langfuse_callback", "run_attributes"]

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
