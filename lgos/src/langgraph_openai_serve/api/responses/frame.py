"""The Response a run fills: identity, echoed request fields, output items.

Shapes follow OpenAI's ``Response`` schema: fields it requires are always
sent (``null`` where it allows null); optional fields with non-null types are
omitted rather than sent as ``null``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from langgraph_openai_serve.api.responses.request import ResponseCreateRequest
from langgraph_openai_serve.api.usage import response_usage
from langgraph_openai_serve.ids import new_id

__all__ = ["ResponseFrame"]


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

    def snapshot(
        self,
        status: str,
        *,
        usage: Any = None,
        error: dict[str, Any] | None = None,
        incomplete_reason: str | None = None,
    ) -> dict[str, Any]:
        """Return the ``Response`` object in ``status``."""
        request = self.request
        response: dict[str, Any] = {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": self.background,
            "error": error,
            "incomplete_details": (
                {"reason": incomplete_reason} if incomplete_reason else None
            ),
            "instructions": request.instructions,
            "metadata": dict(request.metadata or {}),
            "model": request.model,
            "output": [dict(item) for item in self.output],
            "parallel_tool_calls": (
                True
                if request.parallel_tool_calls is None
                else request.parallel_tool_calls
            ),
            "store": bool(self.background and request.store),
            "temperature": None,
            "text": {"format": {"type": "text"}},
            "tool_choice": _tool_choice(request),
            "tools": [tool.model_dump() for tool in request.tools or ()],
            "top_p": None,
            "truncation": "disabled",
        }
        if status == "completed":
            response["completed_at"] = int(time.time())
        if usage is not None:
            response["usage"] = response_usage(usage)
        if request.safety_identifier is not None:
            response["safety_identifier"] = request.safety_identifier
        if request.user is not None:
            response["user"] = request.user
        return response


def _tool_choice(request: ResponseCreateRequest) -> Any:
    # Echoed as sent: a mode string, or a named function or custom choice.
    choice = request.tool_choice
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        return choice
    return {"type": choice.type, "name": choice.name}
