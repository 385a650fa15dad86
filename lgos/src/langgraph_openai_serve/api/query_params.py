"""Query parameters of the OpenAI routes: refused like body fields.

OpenAI defines a few query parameters (``GET /responses/{id}`` takes
``stream``, ``include``, ``include_obfuscation`` and ``starting_after``);
LGOS serves none of them. As for body fields, a parameter OpenAI defines is
accepted when it asks for nothing (``stream=false``, ``include`` entries
naming parts LGOS never emits) and otherwise refused as
``unsupported_parameter``; any other name is ``unknown_parameter``. Rule
source: the ``parameters`` of OpenAI's OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from starlette.requests import Request

from langgraph_openai_serve.api.request_fields import UNSUPPORTED_PARAMETER
from langgraph_openai_serve.api.tolerance import INCLUDES_NEVER_EMITTED
from langgraph_openai_serve.errors import InvalidRequestError

__all__ = [
    "ANY_QUERY",
    "NO_QUERY",
    "RETRIEVE_RESPONSE_QUERY",
    "QueryRules",
    "check_query",
]

_FALSE = ("false", "0")


@dataclass(frozen=True, slots=True)
class QueryRules:
    """The OpenAI query parameters of one route that LGOS does not serve.

    Attributes:
        not_served: Parameter name → why LGOS does not serve it.
        no_ops: Parameter name → the values that ask for nothing more.

    """

    not_served: Mapping[str, str] = field(default_factory=dict)
    no_ops: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


NO_QUERY = QueryRules()
"""A route OpenAI defines no query parameters for."""

ANY_QUERY = None
"""A route that is not OpenAI's (``/health``): its query string is ignored, so
load balancers may add cache-busting parameters."""

RETRIEVE_RESPONSE_QUERY = QueryRules(
    not_served={
        "stream": "background Responses are polled, not streamed",
        "starting_after": "background Responses are polled, not streamed",
        "include_obfuscation": "LGOS does not add obfuscation to stream events",
        "include": "LGOS adds no web search sources or results and no logprobs",
    },
    no_ops={
        "stream": _FALSE,
        "include_obfuscation": _FALSE,
        # Each value is one entry; those naming parts LGOS never emits ask
        # for nothing, as in a request body.
        "include": INCLUDES_NEVER_EMITTED,
    },
)
"""``GET /responses/{response_id}``."""


def check_query(request: Request, rules: QueryRules | None) -> None:
    """Refuse the query parameters of ``request`` that LGOS does not serve.

    Raises:
        InvalidRequestError: 400 ``unsupported_parameter`` for an OpenAI
            parameter with a value LGOS cannot honour, ``unknown_parameter``
            for any other name; ``param`` names it.

    """
    if rules is None or not request.scope.get("query_string"):
        return
    for raw_name, value in request.query_params.multi_items():
        name = raw_name.removesuffix("[]")
        reason = rules.not_served.get(name)
        if reason is None:
            raise InvalidRequestError(
                f"Unknown query parameter: '{name}'.",
                param=name,
                code="unknown_parameter",
            )
        no_ops = rules.no_ops.get(name, ())
        if value.lower() not in no_ops:
            accepted = f", or send {name}={no_ops[0]}" if no_ops else ""
            raise InvalidRequestError(
                f"Unsupported parameter: '{name}' ({reason}). Omit it{accepted}.",
                param=name,
                code=UNSUPPORTED_PARAMETER,
            )
