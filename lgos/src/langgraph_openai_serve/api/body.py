"""Parse request bodies with orjson, then validate them with pydantic.

orjson is stricter than the standard library where it matters for a server
that echoes input: it rejects lone surrogates, invalid UTF-8 and ``NaN``, so
nothing that cannot be written back out as JSON ever reaches a graph.
"""

from __future__ import annotations

from typing import TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from langgraph_openai_serve.api.errors import invalid_request
from langgraph_openai_serve.errors import InvalidRequestError

__all__ = ["parse_body"]

ModelT = TypeVar("ModelT", bound=BaseModel)


async def parse_body(request: Request, model: type[ModelT]) -> ModelT:
    """Read, parse and validate the JSON body of ``request`` as ``model``.

    Raises:
        InvalidRequestError: 400 ``invalid_json`` for a body that is not
            strict JSON (UTF-8, no lone surrogates, no NaN), or the first
            validation error with its parameter.

    """
    raw = await request.body()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequestError(
            f"The request body is not valid JSON: {exc.msg}.", code="invalid_json"
        ) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc.errors(include_url=False)) from None
