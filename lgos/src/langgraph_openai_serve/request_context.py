"""Request correlation: request IDs and the LGOS fields of log records.

Every response of the mounted OpenAI app carries an ``x-request-id`` header
(``req_<32 hex digits>``, the header OpenAI's API sends), errors and unknown
routes included. :class:`RequestContextMiddleware` generates the ID and keeps
it, with the fields routes add later (``model``, ``response_id``), in a
context variable for the rest of the request; :class:`RequestContextFilter`
copies those fields onto log records.

Usage (enrich every record of a host handler)::

    import logging
    from langgraph_openai_serve import RequestContextFilter

    handler = logging.StreamHandler()
    handler.addFilter(RequestContextFilter())
    handler.setFormatter(logging.Formatter("%(levelname)s %(request_id)s %(message)s"))
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from langgraph_openai_serve.ids import new_id

__all__ = [
    "REQUEST_ID_HEADER",
    "RequestContextFilter",
    "RequestContextMiddleware",
    "bind_log_fields",
    "current_request_id",
    "log_context",
    "log_fields",
]

REQUEST_ID_HEADER = "x-request-id"

_log_context: ContextVar[dict[str, Any] | None] = ContextVar(
    "lgos_log_context", default=None
)


def log_fields() -> dict[str, Any]:
    """Return the LGOS fields of the active request or run (empty outside one)."""
    return dict(_log_context.get() or {})


def current_request_id() -> str | None:
    """Return the ``x-request-id`` of the active request, or None outside one."""
    fields = _log_context.get()
    return fields.get("request_id") if fields else None


def bind_log_fields(**fields: Any) -> None:
    """Add fields (``model=...``, ``response_id=...``) to the active context.

    The change lasts until the current request (or asyncio task) ends; tasks
    started afterwards inherit it. None values are skipped.
    """
    current = _log_context.get()
    merged = dict(current) if current else {}
    merged.update((name, value) for name, value in fields.items() if value is not None)
    _log_context.set(merged)


@contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Add fields to the active context for the ``with`` block only.

    For work outside an HTTP request, such as a background job: the fields
    are removed when the block exits. None values are skipped.
    """
    token = _log_context.set(_log_context.get())
    try:
        bind_log_fields(**fields)
        yield
    finally:
        _log_context.reset(token)


class RequestContextFilter(logging.Filter):
    """Add the active request's LGOS fields (``request_id``, ``model``...) to records.

    Install it on a handler to enrich every record the handler emits,
    including Uvicorn's access log and records of other libraries logged while
    an LGOS request or background run is active. Fields a caller passed with
    ``extra=`` are kept. Outside a request the filter adds nothing, so a
    format string naming ``%(request_id)s`` needs a default (for example
    ``logging.Formatter(..., defaults={"request_id": "-"})``).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Copy missing LGOS fields onto ``record``; never drops a record."""
        fields = _log_context.get()
        if fields:
            for name, value in fields.items():
                if name not in record.__dict__:
                    setattr(record, name, value)
        return True


class RequestContextMiddleware:
    """Pure ASGI middleware: a request ID per HTTP request, on every response.

    Generates ``req_<32 hex digits>``, makes it the ``request_id`` log field
    for the request, and sends it as the ``x-request-id`` response header.

    A 500 that the app's exception handler already rendered (and logged) is
    not re-raised to the server once its response is complete, so an error is
    logged once; an exception before or during the response propagates.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection; only ``http`` scopes are changed."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_id("req")
        token = _log_context.set({"request_id": request_id})
        complete = False

        async def send_with_id(message: Message) -> None:
            nonlocal complete
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if REQUEST_ID_HEADER not in headers:
                    headers.append(REQUEST_ID_HEADER, request_id)
            elif message["type"] == "http.response.body":
                complete = not message.get("more_body", False)
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            if not complete:
                raise
        finally:
            _log_context.reset(token)
