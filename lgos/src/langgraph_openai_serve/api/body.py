"""Parse request bodies with orjson, then validate them with pydantic.

orjson is stricter than the standard library where it matters for a server
that echoes input: it rejects lone surrogates, invalid UTF-8 and ``NaN``, so
nothing that cannot be written back out as JSON ever reaches a graph.

Only a JSON media type is parsed (``application/json`` or
``application/*+json``, or no ``Content-Type`` at all), as FastAPI does since
its fix for CVE-2021-32677: a cross-site form or a ``fetch`` with a
``text/plain`` body needs no CORS preflight, so a web page could otherwise
start runs.

An object with the same key twice (``{"model": "chat", "model": "approval"}``)
is refused: RFC 8259 leaves duplicates to the parser, and two parsers of one
body (a gateway's and ours) could read two different requests. orjson keeps
the last value silently, so :func:`duplicate_key` reads the body a second time
with the standard library's pairs hook; on a typical request that costs about
9 µs, under 1% of the request's own CPU time (``python -m bench.json_parse``).
"""

from __future__ import annotations

import json
import logging
from email.message import Message
from typing import TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect, Request

from langgraph_openai_serve.api.error_handlers import invalid_request
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.settings import DEFAULT_MAX_REQUEST_BYTES

__all__ = ["duplicate_key", "parse_body", "read_body"]

ModelT = TypeVar("ModelT", bound=BaseModel)

logger = logging.getLogger(__name__)


async def read_body(request: Request) -> bytes:
    """Read the request body, refusing one over the app's size limit.

    The limit is ``request.app.state.max_request_bytes`` (``LGOS_MAX_REQUEST_BYTES``).
    A ``Content-Length`` over it is refused before reading; a body without
    one (chunked) is refused as soon as it passes the limit, so memory never
    holds more than the limit.

    Raises:
        InvalidRequestError: 413 ``request_too_large``; 400
            ``client_disconnected`` when the client leaves before its body
            is read (logged as one INFO line: nobody reads the answer).

    """
    limit = getattr(request.app.state, "max_request_bytes", DEFAULT_MAX_REQUEST_BYTES)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        logger.info("Request abandoned: the client disconnected before its body.")
        raise InvalidRequestError(
            "The client disconnected before the request body was read.",
            code="client_disconnected",
        ) from None
    return b"".join(chunks)


def _is_json(content_type: str | None) -> bool:
    """Whether a ``Content-Type`` allows parsing JSON (absent, ``json``, ``+json``)."""
    if not content_type:
        return True
    message = Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def _too_large(limit: int) -> InvalidRequestError:
    return InvalidRequestError(
        f"The request body is larger than this server's limit of {limit} bytes.",
        code="request_too_large",
        status_code=413,
    )


async def parse_body(request: Request, model: type[ModelT]) -> ModelT:
    """Read, parse and validate the JSON body of ``request`` as ``model``.

    Raises:
        InvalidRequestError: 415 ``unsupported_media_type`` for a
            ``Content-Type`` other than JSON (before the body is read), 413
            ``request_too_large`` for a body over the size limit (see
            :func:`read_body`), 400 ``invalid_json`` for a body that is not
            strict JSON (UTF-8, no lone surrogates, no NaN) or has a key twice
            in one object (``param`` names the key), or the first validation
            error with its parameter.

    """
    content_type = request.headers.get("content-type")
    if not _is_json(content_type):
        raise InvalidRequestError(
            f"The request body must be JSON (Content-Type: application/json), "
            f"not {content_type!r}.",
            code="unsupported_media_type",
            status_code=415,
        )
    raw = await read_body(request)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequestError(
            f"The request body is not valid JSON: {exc.msg}.", code="invalid_json"
        ) from None
    if (repeated := duplicate_key(raw)) is not None:
        raise InvalidRequestError(
            f"The request body has the key {repeated!r} twice in one object; "
            "send each key once.",
            code="invalid_json",
            param=repeated,
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc.errors(include_url=False)) from None


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)
    return found


def duplicate_key(raw: bytes) -> str | None:
    """Return the first key that appears twice in one object of ``raw``, or None.

    ``raw`` is a body orjson has already accepted (so it is valid JSON); the
    check reads it again with :func:`json.loads` and a pairs hook, which sees
    every key of every object, nested ones included.
    """
    try:
        json.loads(raw, object_pairs_hook=_unique_pairs)
    except _Repeated as repeated:
        return repeated.key
    return None
