"""Generation controls on the wire: their request field types and the declaration check.

Both request models accept the generation controls OpenAI defines for them
with OpenAI's documented ranges (a value out of range is 400
``invalid_value`` naming the field). After the model is looked up,
:func:`generation_settings` keeps them only for a graph that declares them in
``GraphConfig.generation_controls`` and refuses any other non-null value with
400 ``unsupported_parameter``, the same error as every OpenAI field LGOS
does not serve.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from langgraph_openai_serve.api.request_fields import (
    UNSUPPORTED_PARAMETER,
    unsupported_message,
)
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.generation import (
    GenerationControl,
    GenerationSettings,
)

__all__ = [
    "ChatMaxTokens",
    "Penalty",
    "ResponsesMaxOutputTokens",
    "Seed",
    "Stop",
    "Temperature",
    "TopP",
    "generation_settings",
]

Temperature = Annotated[float, Field(ge=0, le=2)]
"""OpenAI's ``temperature``: 0 to 2."""

TopP = Annotated[float, Field(ge=0, le=1)]
"""OpenAI's ``top_p``: 0 to 1."""

Penalty = Annotated[float, Field(ge=-2, le=2)]
"""Chat's ``presence_penalty`` and ``frequency_penalty``: -2 to 2."""

Seed = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
"""Chat's ``seed``: a 64-bit signed integer."""

ResponsesMaxOutputTokens = Annotated[int, Field(ge=16)]
"""Responses' ``max_output_tokens``: at least 16, as OpenAI's schema says."""

ChatMaxTokens = Annotated[int, Field(ge=1)]
"""Chat's ``max_completion_tokens`` and ``max_tokens``: at least 1."""

_STOP_ACCEPTED = "[]"
"""How a refused ``stop`` names its accepted no-op value (an empty list)."""


def _empty_is_absent(value: Any) -> Any:
    # ``stop: []`` asks for nothing (it was always accepted as a no-op).
    return None if value == [] else value


Stop = Annotated[
    str | Annotated[list[str], Field(min_length=1, max_length=4)] | None,
    BeforeValidator(_empty_is_absent),
]
"""Chat's ``stop``: a string or 1 to 4 strings; ``[]`` is absence."""


def generation_settings(
    config: GraphConfig,
    model: str,
    sent: Mapping[GenerationControl, tuple[str, Any]],
) -> GenerationSettings:
    """Keep the generation controls a request sent, if its graph declares them.

    Args:
        config: The model's graph.
        model: The model name, for the error message.
        sent: Each control the request set to a non-null value, with the
            request field that carried it (``"reasoning.effort"``) and its
            validated value; a stop string may be a list or a string.

    Returns:
        The :class:`GenerationSettings` for ``GraphRequest.generation``.

    Raises:
        InvalidRequestError: 400 ``unsupported_parameter`` naming the first
            field (in :class:`GenerationControl` order) whose control the
            graph does not declare.

    """
    if not sent:
        return GenerationSettings()
    for control in GenerationControl:
        if control in sent and not config.honours(control):
            param = sent[control][0]
            reason = (
                f"the model '{model}' does not declare the generation control "
                f"'{control.value}'"
            )
            accepted = _STOP_ACCEPTED if control is GenerationControl.STOP else ""
            raise InvalidRequestError(
                unsupported_message(param, reason, accepted),
                param=param,
                code=UNSUPPORTED_PARAMETER,
            )
    values = {control.value: value for control, (_, value) in sent.items()}
    stop = values.get(GenerationControl.STOP.value)
    if isinstance(stop, str):
        values[GenerationControl.STOP.value] = (stop,)
    elif stop is not None:
        values[GenerationControl.STOP.value] = tuple(stop)
    return GenerationSettings(**values)
