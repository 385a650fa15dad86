"""Errors raised by LGOS and their OpenAI error envelope.

Every error that crosses an OpenAI-compatible route is rendered as OpenAI's
error envelope (``ErrorResponse`` in OpenAI's OpenAPI document)::

    {"error": {"message": "...", "type": "invalid_request_error",
               "param": "model", "code": "model_not_found"}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette import status

__all__ = [
    "SERVER_ERROR",
    "GraphError",
    "InterruptNotDeclaredError",
    "InvalidRequestError",
    "OpenAIHTTPException",
    "ServerError",
    "error_envelope",
]

SERVER_ERROR = "server_error"
"""The ``type`` and ``code`` of every 5xx error envelope LGOS sends, and the
``error.code`` of a failed Response (OpenAI's ``ResponseErrorCode``)."""


def error_envelope(
    message: str,
    *,
    type: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
) -> dict[str, dict[str, Any]]:
    """Build OpenAI's error envelope.

    Args:
        message: Human-readable explanation.
        type: OpenAI error type, for example ``invalid_request_error`` or
            ``server_error``.
        param: The request parameter at fault, in OpenAI's dotted/indexed form
            (``input[0].content``), or None.
        code: A machine-readable code such as ``model_not_found``, or None.

    Returns:
        ``{"error": {"message", "type", "param", "code"}}``, the shape of
        ``ErrorResponse`` in OpenAI's OpenAPI document.

    """
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


class OpenAIHTTPException(Exception):
    """An HTTP error that already knows its OpenAI error metadata.

    Route code raises it (or its subclass :class:`InvalidRequestError`); the
    handlers installed on the OpenAI app render it as the error envelope with
    ``status_code`` and ``headers`` (such as ``Retry-After``), if any.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        type: str,
        param: str | None = None,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.type = type
        self.param = param
        self.code = code
        self.headers = dict(headers) if headers else None

    def envelope(self) -> dict[str, dict[str, Any]]:
        """Return this error as OpenAI's error envelope."""
        return error_envelope(
            self.message, type=self.type, param=self.param, code=self.code
        )


class InvalidRequestError(OpenAIHTTPException):
    """A client error: the request cannot be served as sent.

    Args:
        message: What is wrong, in words a client developer can act on.
        param: The parameter at fault (``"model"``,
            ``"metadata.lgos_settings"``, ``"input[2].call_id"``), or None.
        code: Optional machine-readable code (``"model_not_found"``).
        status_code: HTTP status; 400 unless the error is a 404 or 409 kind.

    """

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        status_code: int = status.HTTP_400_BAD_REQUEST,
    ) -> None:
        super().__init__(
            message,
            status_code=status_code,
            type="invalid_request_error",
            param=param,
            code=code,
        )


class ServerError(OpenAIHTTPException):
    """A failure on LGOS's side: HTTP 500, ``type`` and ``code`` ``server_error``.

    Args:
        message: What failed, without internal details (exception text stays
            in the server log).
        code: A more specific code, for example ``idempotency_key_pending``.
        status_code: 500 unless the failure is temporary (503).
        headers: Extra response headers, such as ``Retry-After`` on a 503.

    """

    def __init__(
        self,
        message: str,
        *,
        code: str = SERVER_ERROR,
        status_code: int = status.HTTP_500_INTERNAL_SERVER_ERROR,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            message,
            status_code=status_code,
            type=SERVER_ERROR,
            code=code,
            headers=headers,
        )


class GraphError(RuntimeError):
    """A graph produced output that LGOS cannot render as an OpenAI answer.

    Raised, for example, when the final graph message is not an ``AIMessage``,
    when streamed text does not match the final text, or when a citation span
    does not fit its text. It is a server-side failure (HTTP 500 before
    streaming starts, ``response.failed`` after).
    """


class InterruptNotDeclaredError(RuntimeError):
    """A node called ``interrupt()`` in a graph registered without interrupts.

    Without ``GraphFeature.INTERRUPTS`` the graph has no checkpointer, so the
    pause could never be resumed. The message, for the graph's author, names
    the graph and what to add; it is logged on the failure's line, and the
    client receives the generic failure (HTTP 500, or ``response.failed``)
    with the request ID, as for any error LGOS did not write for clients.
    """
