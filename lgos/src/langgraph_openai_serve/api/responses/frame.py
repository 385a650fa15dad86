"""The Response a run fills: identity, echoed request fields, output items.

Every Response LGOS sends (JSON, each streamed snapshot, background create,
retrieve and cancel) carries each key of OpenAI's ``Response``
(:data:`~langgraph_openai_serve.api.responses.response_keys.RESPONSE_KEYS`), as
OpenAI does: the request's value where LGOS accepted one
(:meth:`~langgraph_openai_serve.api.responses.responses_request.ResponseCreateRequest.echo`),
what LGOS does where the client left a field out (``tool_choice: "auto"``,
``truncation: "disabled"``, ``metadata: {}``), and ``null`` where nothing on
LGOS gives a value (``reasoning``, ``max_output_tokens``, ``conversation``,
``prompt``, ...). ``usage`` is ``null`` until the run reported usage, and
``completed_at`` is set on completion only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from langgraph_openai_serve.api.responses.response_keys import RESPONSE_KEYS
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest
from langgraph_openai_serve.api.usage import response_usage
from langgraph_openai_serve.ids import new_id

__all__ = ["ResponseFrame", "complete_response"]

_TEMPLATE: dict[str, Any] = dict.fromkeys(RESPONSE_KEYS)
_TEMPLATE["object"] = "response"


def _defaults() -> dict[str, Any]:
    """Return what LGOS does where the request leaves a field out (new objects)."""
    return {
        "metadata": {},
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "truncation": "disabled",
    }


@dataclass(slots=True)
class ResponseFrame:
    """The parts of a Response that do not depend on the graph's output.

    Attributes:
        request: The decoded request, echoed in the Response.
        response_id: ``resp_…`` (``resp_lg_…`` for interrupt and background
            runs).
        nonce: The Response nonce of an interrupt run, bound into its call
            IDs (see :mod:`~langgraph_openai_serve.api.responses.interrupts`).
        background: Whether this is a background Response.
        created_at: Unix seconds.
        output: Output items so far, in ``output_index`` order.

    """

    request: ResponseCreateRequest
    response_id: str = field(default_factory=lambda: new_id("resp"))
    nonce: str = ""
    background: bool = False
    created_at: int = field(default_factory=lambda: int(time.time()))
    output: list[dict[str, Any]] = field(default_factory=list)
    _fixed: dict[str, Any] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def _fixed_fields(self) -> dict[str, Any]:
        # The keys whose values do not change during the run, built once
        # (at the first snapshot: the decoder may still set the ID before).
        fixed = self._fixed
        if fixed is None:
            request = self.request
            fixed = dict(_TEMPLATE)
            fixed.update(request.echo())
            for key, default in _defaults().items():
                if fixed[key] is None:
                    fixed[key] = default
            # Plain text, the only format LGOS accepts.
            text = {k: v for k, v in (fixed["text"] or {}).items() if v is not None}
            fixed["text"] = {"format": {"type": "text"}, **text}
            fixed["background"] = self.background
            fixed["store"] = bool(self.background and request.store)
            self._fixed = fixed
        return fixed

    def snapshot(
        self,
        status: str,
        *,
        usage: Any = None,
        error: dict[str, Any] | None = None,
        incomplete_reason: str | None = None,
    ) -> dict[str, Any]:
        """Return the ``Response`` object in ``status``, with every key."""
        response = dict(self._fixed_fields())
        response["id"] = self.response_id
        response["created_at"] = self.created_at
        response["status"] = status
        response["error"] = error
        if incomplete_reason:
            response["incomplete_details"] = {"reason": incomplete_reason}
        response["output"] = [dict(item) for item in self.output]
        if status == "completed":
            response["completed_at"] = int(time.time())
        if usage is not None:
            response["usage"] = response_usage(usage)
        return response


def complete_response(response: dict[str, Any]) -> dict[str, Any]:
    """Return a stored Response with every key, ``null`` for those it lacks.

    A background engine keeps the Response a run ended with; one stored by
    an older LGOS may lack keys added since.
    """
    if _TEMPLATE.keys() <= response.keys():
        return response
    return _TEMPLATE | response
