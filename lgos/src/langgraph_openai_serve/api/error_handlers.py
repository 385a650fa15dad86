"""Exception handlers that render every error as OpenAI's error envelope."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from langgraph_openai_serve.api.json_response import json_response
from langgraph_openai_serve.api.request_fields import (
    FIELD_TYPE,
    UNSUPPORTED_PARAMETER,
    unsupported_message,
)
from langgraph_openai_serve.errors import (
    SERVER_ERROR,
    InvalidRequestError,
    OpenAIHTTPException,
    error_envelope,
)
from langgraph_openai_serve.metrics import count_error

__all__ = ["configure_openai_error_handlers", "invalid_request", "validation_param"]

logger = logging.getLogger(__name__)

# Tags that pydantic inserts into error locations for tagged unions and for
# ``str | list`` unions; they are not request field names.
_UNION_TAGS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "input_text",
        "output_text",
        "refusal",
        "system",
        "developer",
        "user",
        "assistant",
        "tool",
        "text",
        "function",
        "custom",
        "web_search",
        "web_search_2025_08_26",
        "custom_tool_call",
        "custom_tool_call_output",
        "web_search_call",
        "input_file",
        "file",
    }
)


def validation_param(loc: tuple[Any, ...]) -> str | None:
    """Turn a pydantic error location into OpenAI's ``param`` string.

    ``("body", "input", 0, "message", "content")`` → ``"input[0].content"``.
    """
    parts = list(loc[1:] if loc and loc[0] == "body" else loc)
    out = ""
    previous: Any = None
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not isinstance(part, str):
            continue
        elif (
            "[" in part
            or part.startswith(("function-", "literal["))
            or part
            in {
                "str",
                "int",
                "bool",
                "none",
            }
        ):
            pass  # a union branch label such as "list[...]" or "str"
        elif part in _UNION_TAGS and isinstance(previous, int):
            pass  # the discriminator tag right after a list index
        else:
            out += f".{part}" if out else part
        previous = part
    return out or None


# Clients that assume stored responses (the Vercel AI SDK by default) replay
# earlier output as item references; say what to do instead.
_NOTHING_STORED = (
    " LGOS stores no responses, so it cannot resolve item references: replay the"
    " output items themselves (clients that replay by reference, such as the"
    " Vercel AI SDK, do so with store: false)."
)


# Codex CLI groups its multi-agent tools in one namespace tool; LGOS serves
# flat tools, and Codex turns that tool off with one setting.
_NAMESPACE_TOOL = (
    " LGOS serves flat function tools, not namespaces of them. Codex CLI sends"
    " its multi-agent tools (spawn_agent, wait_agent, ...) as a namespace tool:"
    " turn them off in its config.toml with [agents] enabled = false."
)

# What to do instead, for types a well-known client sends by default.
_TYPE_ADVICE = {"item_reference": _NOTHING_STORED, "namespace": _NAMESPACE_TOOL}

# Codex CLI asks for cached-only web search by default; LGOS has none, and
# Codex drops its web_search tool with one setting.
_CACHED_WEB_SEARCH = (
    " Codex CLI sends external_web_access: false by default: remove its"
    ' web_search tool in its config.toml with web_search = "disabled".'
)

# What to do instead, for refused values a well-known client sends by default.
_FIELD_ADVICE = {"external_web_access": _CACHED_WEB_SEARCH}

# Errors that name their field in ctx, located at the model holding it.
_FIELD_ERRORS = frozenset({UNSUPPORTED_PARAMETER, FIELD_TYPE})

_CLASS_NAME = re.compile(r" or instance of \w+")


def _describe(error: dict[str, Any]) -> tuple[str, str | None, str]:
    kind = error["type"]
    param = validation_param(tuple(error["loc"]))
    where = f"'{param}'" if param else "the request body"
    if kind == "json_invalid":
        return "The request body is not valid JSON.", None, "invalid_json"
    if kind == UNSUPPORTED_PARAMETER:
        ctx = error["ctx"]
        param = validation_param((*tuple(error["loc"]), ctx["field"]))
        message = unsupported_message(str(param), ctx["reason"], ctx["accepted"])
        message += _FIELD_ADVICE.get(ctx["field"], "")
        return message, param, UNSUPPORTED_PARAMETER
    if kind == FIELD_TYPE:
        ctx = error["ctx"]
        param = validation_param((*tuple(error["loc"]), ctx["field"]))
        message = f"Invalid type for '{param}': expected {ctx['expected']}"
        if ctx["sent_by"]:
            message += f", as {ctx['sent_by']} sends it (LGOS ignores it)"
        message += "."
        return message, param, "invalid_type"
    if kind == "extra_forbidden":
        return f"Unknown parameter: {where}.", param, "unknown_parameter"
    if kind == "union_tag_invalid":
        tag = error.get("ctx", {}).get("tag")
        message = f"Unsupported type '{tag}' at {where}." + _TYPE_ADVICE.get(tag, "")
        return message, param, "unsupported_value"
    if kind == "missing":
        return (
            f"Missing required parameter: {where}.",
            param,
            "missing_required_parameter",
        )
    if kind == "too_short" and error.get("ctx", {}).get("min_length") == 1:
        return (
            f"Invalid value for {where}: it must not be empty.",
            param,
            ("invalid_value"),
        )
    if param is None and kind in {"model_attributes_type", "dict_type", "model_type"}:
        return "The request body must be a JSON object.", None, "invalid_type"
    code = "invalid_type" if kind.endswith("_type") else "invalid_value"
    # pydantic names its classes ("... or instance of TextConfig"): not ours to show.
    detail = _CLASS_NAME.sub("", error["msg"])
    return f"Invalid value for {where}: {detail}.", param, code


def _most_specific(errors: list[dict[str, Any]]) -> dict[str, Any]:
    # With unions pydantic reports one error per branch; the deepest location
    # is the one that names what the client actually got wrong.
    # At equal depth a wrong ``type`` value explains the rest (a json_schema
    # format's other fields), and an unknown field says more than the missing
    # one it replaced (``file_url`` sent instead of ``file_id``).
    # A refused OpenAI field is located at its model; it names the field.
    # Of a union's branches, the one of the value's own JSON type says what
    # is wrong (a too-short list), not the others' "should be a string".
    def rank(error: dict[str, Any]) -> tuple[int, int]:
        loc = error["loc"]
        if error["type"] in _FIELD_ERRORS:
            return len(loc) + 1, 4
        if error["type"] == "literal_error" and loc and loc[-1] == "type":
            return len(loc), 3
        if error["type"] == "extra_forbidden":
            return len(loc), 2
        return len(loc), int(not error["type"].endswith("_type"))

    return max(errors, key=rank)


_BRANCH_NAMES = (
    ("list[", "a list"),
    ("dict[", "an object"),
    ("str", "a string"),
    ("int", "an integer"),
    ("float", "a number"),
    ("bool", "a boolean"),
    ("none", "null"),
)


def _branch(loc: tuple[Any, ...]) -> str | None:
    """Name the union branch an error belongs to (``a list``), if any."""
    label = loc[-1] if loc else None
    if not isinstance(label, str):
        return None
    return next(
        (name for prefix, name in _BRANCH_NAMES if label.startswith(prefix)), None
    )


def _wrong_type(errors: list[dict[str, Any]], best: dict[str, Any]) -> str | None:
    """Say what a union accepts (``a string or a list``) if it fit no branch."""
    param = validation_param(tuple(best["loc"]))
    siblings = [
        e
        for e in errors
        if len(e["loc"]) == len(best["loc"])
        and validation_param(tuple(e["loc"])) == param
    ]
    if len(siblings) < 2 or not all(e["type"].endswith("_type") for e in siblings):
        return None
    names = [_branch(tuple(e["loc"])) for e in siblings]
    if None in names:
        return None
    return " or ".join(dict.fromkeys(name for name in names if name))


def invalid_request(errors: Sequence[Any]) -> InvalidRequestError:
    """Turn pydantic validation errors into one OpenAI-style 400 error.

    The most specific error (the deepest location) names the parameter; a
    value that fits none of a union's types says which it may be
    (``'input' must be a string or a list``).
    """
    if not errors:
        return InvalidRequestError("Invalid request.")
    errors = [dict(e) for e in errors]
    best = _most_specific(errors)
    if (expected := _wrong_type(errors, best)) is not None:
        param = validation_param(tuple(best["loc"]))
        return InvalidRequestError(
            f"Invalid type for '{param}': expected {expected}.",
            param=param,
            code="invalid_type",
        )
    message, param, code = _describe(best)
    return InvalidRequestError(message, param=param, code=code)


async def _validation_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    error = invalid_request(exc.errors())
    count_error(error.code)
    return json_response(error.envelope(), error.status_code)


async def _openai_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, OpenAIHTTPException)
    count_error(exc.code)
    response = json_response(exc.envelope(), exc.status_code)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}

# Path parameters that hold IDs of a known shape. A path that reached a route
# only by taking a fixed word for such an ID (POST /responses/compact matched
# GET /responses/{response_id}) names a route LGOS does not serve: 404, not 405.
_ID_PREFIXES = {"response_id": "resp_"}

_SHOWN_PATH = 200


def _through_a_non_id(request: Request) -> bool:
    params = request.path_params
    return any(
        not str(params[name]).startswith(prefix)
        for name, prefix in _ID_PREFIXES.items()
        if name in params
    )


def _unknown_route(request: Request) -> str:
    path = request.url.path
    if len(path) > _SHOWN_PATH:
        path = path[:_SHOWN_PATH] + "…"
    return f"Unknown route: {request.method} {path}."


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    status, message = exc.status_code, str(exc.detail)
    headers = getattr(exc, "headers", None)
    if status == 405 and _through_a_non_id(request):
        status, message, headers = 404, "Not Found", None
    if status == 404 and message == "Not Found":  # the router's: no route matched
        message = _unknown_route(request)
    server = status >= 500
    kind = SERVER_ERROR if server else "invalid_request_error"
    code = SERVER_ERROR if server else _HTTP_CODES.get(status)
    count_error(code)
    return JSONResponse(
        error_envelope(message, type=kind, code=code),
        status_code=status,
        headers=headers,
    )


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    logger.error(
        "Unhandled error on %s %s", request.method, request.url.path, exc_info=exc
    )
    count_error(SERVER_ERROR)
    return JSONResponse(
        error_envelope(
            "The server had an error processing the request.",
            type=SERVER_ERROR,
            code=SERVER_ERROR,
        ),
        status_code=500,
    )


def configure_openai_error_handlers(app: FastAPI) -> None:
    """Install handlers rendering every error as OpenAI's error envelope.

    Request validation errors become 400 ``invalid_request_error`` with the
    offending field in ``param``; HTTP errors keep their status; anything
    unexpected becomes a logged 500 whose ``type`` and ``code`` are
    ``server_error``. Each rendered error counts in ``lgos_errors_total``.
    """
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(OpenAIHTTPException, _openai_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
