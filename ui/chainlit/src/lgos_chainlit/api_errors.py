"""Explain OpenAI SDK errors, and LGOS's own error reports, in one line each.

:func:`format_api_error` is the one place an SDK exception becomes chat text
(the turn's error result, the app's notices and upload failures all use it);
:func:`api_error_code` reads the ``code`` of the same OpenAI error envelope,
and :func:`error_text` joins an error event's or failed response's
``message`` and ``code``.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import openai

__all__ = ["api_error_code", "error_text", "format_api_error"]


def _error_object(exc: openai.APIStatusError) -> Mapping[str, Any] | None:
    """Return the ``error`` object of an HTTP error's body, if it has one.

    The SDK usually unwraps the OpenAI envelope ``{"error": {...}}`` to
    ``{"message", "type", "param", "code"}`` already; both shapes are read.
    """
    body = exc.body
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    return body if isinstance(body, Mapping) else None


def format_api_error(exc: openai.OpenAIError) -> str:
    """Explain an OpenAI SDK error in one line for the chat transcript.

    Args:
        exc: Any SDK error: an HTTP status error (its envelope's message,
            ``code`` and ``param`` are shown), a timeout, a connection error.

    Returns:
        ``"HTTP 400: <message> (code: ..., param: ...)"`` for HTTP errors;
        a sentence naming LGOS's URL for connection errors.

    """
    if isinstance(exc, openai.APIStatusError):
        body = _error_object(exc)
        message = None
        details: list[str] = []
        if body is not None:
            message = body.get("message")
            for key in ("code", "param"):
                if body.get(key):
                    details.append(f"{key}: {body[key]}")
        if not isinstance(message, str) or not message:
            message = exc.response.reason_phrase or exc.message
        suffix = f" ({', '.join(details)})" if details else ""
        return f"HTTP {exc.status_code}: {message}{suffix}"
    if isinstance(exc, openai.APITimeoutError):
        return "The request to LGOS timed out."
    if isinstance(exc, openai.APIConnectionError):
        url = exc.request.url if exc.request is not None else "LGOS"
        return f"Cannot reach LGOS at {url}: {exc.message}"
    if isinstance(exc, openai.APIError):
        return exc.message
    return str(exc) or type(exc).__name__


def api_error_code(exc: openai.OpenAIError) -> str | None:
    """Return the ``code`` of an HTTP error's envelope (e.g. ``run_busy``).

    Returns:
        The code string, or ``None`` for other errors or a body without one.

    """
    if not isinstance(exc, openai.APIStatusError):
        return None
    body = _error_object(exc)
    code = body.get("code") if body is not None else None
    return code if isinstance(code, str) else None


def error_text(message: str | None, code: object) -> str | None:
    """Join an error's message and code as ``"<message> (<code>)"``.

    Returns:
        ``message`` alone when there is no code, and ``message`` unchanged
        (``None`` or ``""``) when there is no message.

    """
    if message and code:
        return f"{message} ({code})"
    return message
