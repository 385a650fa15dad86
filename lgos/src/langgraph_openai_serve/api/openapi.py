"""What the served OpenAPI document says about the OpenAI routes.

The routes read their bodies themselves (``parse_body``), so FastAPI sees
neither their request models nor their errors. :func:`describe_routes` adds
both to the document FastAPI builds: the JSON Schema of each request body (the
accepted subset, generated from the request models) and every error status a
route answers with, each in OpenAI's error envelope. A generated client or an
API fuzzer then reads the truth.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from langgraph_openai_serve.api.chat.chat_request import ChatCompletionRequest
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest

__all__ = ["ERROR_STATUSES", "describe_routes"]

_REF = "#/components/schemas/{model}"

_BODIES: dict[tuple[str, str], type[BaseModel]] = {
    ("/responses", "post"): ResponseCreateRequest,
    ("/chat/completions", "post"): ChatCompletionRequest,
}

_WHY = {
    400: "The request is invalid: `param` names the field, `code` says how.",
    404: "Unknown model, route or background Response (`model_not_found`, "
    "`not_found`).",
    409: "An interrupt run is busy or no longer paused (`run_busy`, "
    "`interrupt_state_conflict`).",
    413: "The body is over `LGOS_MAX_REQUEST_BYTES` (`request_too_large`).",
    422: "A background `Idempotency-Key` reused with other content "
    "(`idempotency_key_reused`), or a `metadata.lgos_run_id` naming a paused run "
    "that another request started (`run_id_reused`).",
    500: "The graph or the server failed (`server_error`).",
    503: "A background run is not visible yet; retry (`idempotency_key_pending`).",
}

ERROR_STATUSES: dict[tuple[str, str], tuple[int, ...]] = {
    ("/models", "get"): (400, 500),
    ("/models/{model}", "get"): (400, 404, 500),
    ("/responses", "post"): (400, 404, 409, 413, 422, 500, 503),
    ("/responses/{response_id}", "get"): (400, 404, 500),
    ("/responses/{response_id}/cancel", "post"): (400, 404, 500),
    ("/chat/completions", "post"): (400, 404, 413, 500),
    ("/health", "get"): (),
}
"""The error statuses each route answers with, by ``(path, method)``."""

_ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["message", "type", "param", "code"],
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"type": ["string", "null"]},
                "code": {"type": ["string", "null"]},
            },
        }
    },
}


def describe_routes(document: dict[str, Any]) -> dict[str, Any]:
    """Add request bodies and error responses to FastAPI's OpenAPI ``document``.

    FastAPI's own 422 ``HTTPValidationError`` entries go: the routes never
    answer with them. Modifies ``document`` in place and returns it.
    """
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    refs, top = models_json_schema(
        [(model, "validation") for model in _BODIES.values()], ref_template=_REF
    )
    schemas.update(top.get("$defs", {}))
    schemas["ErrorResponse"] = _ERROR_SCHEMA
    for (path, method), operation in _operations(document):
        responses = operation.setdefault("responses", {})
        responses.pop("422", None)
        if (model := _BODIES.get((path, method))) is not None:
            operation["requestBody"] = {
                "required": True,
                "content": {
                    "application/json": {"schema": refs[(model, "validation")]}
                },
            }
        for status in ERROR_STATUSES.get((path, method), ()):
            responses[str(status)] = {
                "description": _WHY[status],
                "content": {
                    "application/json": {
                        "schema": {"$ref": _REF.format(model="ErrorResponse")}
                    }
                },
            }
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    return document


def _operations(document: dict[str, Any]) -> list[tuple[tuple[str, str], Any]]:
    return [
        ((path, method), operation)
        for path, operations in document.get("paths", {}).items()
        for method, operation in operations.items()
        if (path, method) in ERROR_STATUSES
    ]
