"""Explain OpenAI SDK errors and LGOS error reports in one line.

:func:`format_api_error` is the one place an SDK exception becomes the
Chainlit UI's chat text (the turn's error result, the app's notices and
upload failures all use it); :func:`api_error_message` is the shorter text
the Open WebUI pipe shows (the error's message alone);
:func:`api_error_code` reads the ``code`` of the same OpenAI error envelope,
and :func:`error_text` joins an error event's or failed response's
``message`` and ``code``.

A LiteLLM gateway between the UI and LGOS wraps LGOS's errors: its own
envelope's ``message`` holds LGOS's whole error body as text, after a
``litellm.<Class>Error: OpenAIException - `` prefix and before a
``LiteLLM: model group '…' failed …`` note, and its ``code`` is the HTTP
status as a string. :func:`unwrap_gateway_error` reads LGOS's ``message``,
``code`` and ``param`` back out of that text, so the chat shows what LGOS
said.

The envelope is OpenAI's error body, ``{"error": {"message", "type",
"param", "code"}}``, which LGOS sends with every 4xx/5xx
(docs/reference/openai-api.md).
This module imports only the standard library and ``openai``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import openai

__all__ = [
    "GatewayError",
    "api_error_code",
    "api_error_message",
    "error_text",
    "format_api_error",
    "unwrap_gateway_error",
]

_GATEWAY_PREFIX = re.compile(
    r"^\s*(?:litellm\.\w+: |\w*Error: |\w*Exception - |Error code: \d+ - )"
)
"""One layer of LiteLLM's wrapping: ``litellm.BadRequestError: ``, a repeated
``NotFoundError: ``, the provider's ``OpenAIException - ``, and the OpenAI
SDK's own ``Error code: 400 - ``."""
_GATEWAY_NOTE = re.compile(r"\s*LiteLLM: model group .*$", re.DOTALL)
"""LiteLLM's closing note (``LiteLLM: model group 'chat' failed …``)."""


@dataclass(frozen=True, slots=True)
class GatewayError:
    """The upstream (LGOS) error a gateway's message wraps."""

    message: str
    code: str | None = None
    param: str | None = None


def _upstream_object(text: str) -> Mapping[str, Any] | None:
    """Decode an OpenAI error body (``{"error": {...}}`` or bare) at ``text``."""
    if not text.startswith("{"):
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    if isinstance(value, Mapping) and isinstance(value.get("error"), Mapping):
        value = value["error"]
    if isinstance(value, Mapping) and isinstance(value.get("message"), str):
        return value
    return None


def unwrap_gateway_error(message: object) -> GatewayError | None:
    """Read the upstream error out of a LiteLLM gateway's error message.

    Args:
        message: The ``message`` of the gateway's error envelope, e.g.
            ``litellm.BadRequestError: OpenAIException - {"error": {"message":
            "Invalid runtime setting …", "param": "metadata.lgos_settings",
            "code": null}}`` followed by ``LiteLLM: model group 'chat'
            failed with the error above. …``.

    Returns:
        The upstream message, with its ``code`` and ``param`` when the
        wrapped text is an OpenAI error body; the message without LiteLLM's
        prefixes and note when it is plain text; ``None`` when ``message``
        is not LiteLLM's (no ``litellm.`` prefix).

    """
    if not isinstance(message, str) or not message.lstrip().startswith("litellm."):
        return None
    text = _GATEWAY_NOTE.sub("", message).strip()
    while (prefix := _GATEWAY_PREFIX.match(text)) is not None:
        text = text[prefix.end() :].lstrip()
    upstream = _upstream_object(text)
    if upstream is None:
        return GatewayError(text) if text else None
    code = upstream.get("code")
    param = upstream.get("param")
    return GatewayError(
        message=upstream["message"],
        code=code if isinstance(code, str) and code else None,
        param=param if isinstance(param, str) and param else None,
    )


def _api_error_object(exc: openai.APIError) -> Mapping[str, Any] | None:
    """Return the ``error`` object of an error's body, if it has one.

    The SDK usually unwraps the OpenAI envelope ``{"error": {...}}`` to
    ``{"message", "type", "param", "code"}`` already; both shapes are read.
    """
    body = exc.body
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    return body if isinstance(body, Mapping) else None


def _api_error_parts(exc: openai.APIError) -> tuple[str | None, list[str]]:
    """Read an error body's message and its ``code: …``/``param: …`` details.

    Returns:
        The message (LGOS's, when a LiteLLM gateway wrapped it; ``None`` when
        the body has no message string) and the details worth showing: a
        code that only repeats the HTTP status says nothing and is left out.

    """
    body = _api_error_object(exc)
    if body is None:
        return None, []
    details: list[str] = []
    wrapped = unwrap_gateway_error(body.get("message"))
    if wrapped is not None:
        for key, value in (("code", wrapped.code), ("param", wrapped.param)):
            if value:
                details.append(f"{key}: {value}")
        return wrapped.message, details
    status = getattr(exc, "status_code", None)
    for key in ("code", "param"):
        # A gateway's code that only repeats the status says nothing.
        if body.get(key) and str(body[key]) != str(status):
            details.append(f"{key}: {body[key]}")
    message = body.get("message")
    return (message if isinstance(message, str) and message else None), details


def format_api_error(exc: openai.OpenAIError) -> str:
    """Explain an OpenAI SDK error in one line for the chat transcript.

    Args:
        exc: Any SDK error: an HTTP status error (its envelope's message,
            ``code`` and ``param`` are shown; those of the LGOS error inside
            when a LiteLLM gateway wrapped one), a timeout, a connection error.

    Returns:
        ``"HTTP 400: <message> (code: ..., param: ...)"`` for HTTP errors;
        a sentence naming LGOS's URL for connection errors.

    """
    if isinstance(exc, openai.APIStatusError):
        message, details = _api_error_parts(exc)
        if not message:
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


def api_error_message(exc: openai.APIError) -> str:
    """Return an API error's message alone (the Open WebUI pipe's error text).

    Args:
        exc: An SDK error with a body (an HTTP status error, or an error
            event the SDK raised from a stream) or without one.

    Returns:
        The ``message`` of the body's error envelope (that of the LGOS error
        inside when a LiteLLM gateway wrapped one); the SDK's own message
        (e.g. "Connection error.") when the body has none.

    """
    message, _details = _api_error_parts(exc)
    return message or str(exc.message)


def api_error_code(exc: openai.OpenAIError) -> str | None:
    """Return the ``code`` of an HTTP error's envelope (e.g. ``run_busy``).

    Behind a LiteLLM gateway, the code of the LGOS error it wrapped.

    Returns:
        The code string, or ``None`` for other errors or a body without one.

    """
    if not isinstance(exc, openai.APIStatusError):
        return None
    body = _api_error_object(exc)
    if body is None:
        return None
    wrapped = unwrap_gateway_error(body.get("message"))
    if wrapped is not None:
        # The gateway's own code is only its HTTP status; LGOS's is inside.
        return wrapped.code
    code = body.get("code")
    return code if isinstance(code, str) else None


def error_text(message: str | None, code: object) -> str | None:
    """Join an error's message and code as ``"<message> (<code>)"``.

    Returns:
        ``message`` alone when there is no code, and ``message`` unchanged
        (``None`` or ``""``) when there is no message. A message a LiteLLM
        gateway wrapped is unwrapped first (its code used when ``code`` is
        empty).

    """
    wrapped = unwrap_gateway_error(message)
    if wrapped is not None:
        message = wrapped.message
        code = code or wrapped.code
    if message and code:
        return f"{message} ({code})"
    return message
