"""OpenAI's error envelope for every failure the service reports."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

__all__ = ["ApiError", "error_body", "install_error_handlers"]

logger = logging.getLogger(__name__)

INVALID_REQUEST = "invalid_request_error"


class ApiError(Exception):
    """A failure answered with `{"error": {...}}` and an HTTP status."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = INVALID_REQUEST,
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers

    def response(self) -> JSONResponse:
        """Build the JSON response carrying this error."""
        return JSONResponse(
            error_body(self.message, type=self.type, param=self.param, code=self.code),
            status_code=self.status,
            headers=self.headers,
        )


def error_body(
    message: str,
    *,
    type: str = INVALID_REQUEST,
    param: str | None = None,
    code: str | None = None,
) -> dict[str, Any]:
    """OpenAI's error envelope."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def _validation_param(loc: tuple[Any, ...]) -> str | None:
    names = [str(part) for part in loc[1:] if not isinstance(part, int)]
    return ".".join(names) or None


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return exc.response()


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {}
    param = _validation_param(tuple(first.get("loc", ())))
    detail = str(first.get("msg", "Invalid request."))
    message = f"Invalid value for '{param}': {detail}" if param else detail
    return ApiError(400, message, param=param, code="invalid_value").response()


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        message = f"Unknown request URL: {request.method} {request.url.path}."
    elif exc.status_code == 405:
        message = f"Method {request.method} is not allowed on {request.url.path}."
    else:
        message = str(exc.detail)
    error_type = INVALID_REQUEST if exc.status_code < 500 else "server_error"
    headers = dict(exc.headers) if exc.headers else None
    return ApiError(
        exc.status_code, message, type=error_type, headers=headers
    ).response()


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    logger.exception(
        "Unexpected error on %s %s", request.method, request.url.path, exc_info=exc
    )
    return ApiError(
        500, "The Files service failed unexpectedly.", type="server_error"
    ).response()


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error, validation and routing failure in OpenAI's envelope."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
