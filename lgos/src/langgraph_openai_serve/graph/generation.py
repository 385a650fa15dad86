"""Generation controls: the OpenAI sampling fields a graph may declare it honours.

OpenAI clients send generation controls by default (``temperature``,
``top_p``, penalties, a token limit, ``reasoning.effort``). A graph owns its
model configuration, so LGOS refuses them (400 ``unsupported_parameter``)
unless the graph declares, in ``GraphConfig.generation_controls``, which
:class:`GenerationControl` values it honours. The values a request sends for
declared controls reach the graph validated, in ``GraphRequest.generation``
(a :class:`GenerationSettings`); the graph applies them to its own model
calls, typically by building its runtime context from them in a
``context_factory``::

    generation = request.generation
    model.bind(**generation.chat_model_kwargs())
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Literal

__all__ = ["GenerationControl", "GenerationSettings", "ReasoningEffort"]


class GenerationControl(StrEnum):
    """A generation control a graph may declare it honours.

    Each value names one :class:`GenerationSettings` field. The request fields
    it covers:

    | control | Responses | Chat Completions |
    | --- | --- | --- |
    | `temperature` | `temperature` (0 to 2) | `temperature` (0 to 2) |
    | `top_p` | `top_p` (0 to 1) | `top_p` (0 to 1) |
    | `max_output_tokens` | `max_output_tokens` (≥ 16) | `max_completion_tokens` (≥ 1) |
    | `reasoning_effort` | `reasoning.effort` | `reasoning_effort` |
    | `presence_penalty` | — | `presence_penalty` (-2 to 2) |
    | `frequency_penalty` | — | `frequency_penalty` (-2 to 2) |
    | `seed` | — | `seed` (a 64-bit integer) |
    | `stop` | — | `stop` (a string, or 1 to 4 strings) |

    Chat Completions' deprecated `max_tokens` counts as
    `max_completion_tokens`.

    The values are advertised in ``lgos.generation_controls`` on model
    retrieval.
    """

    TEMPERATURE = "temperature"
    """Sampling temperature."""
    TOP_P = "top_p"
    """Nucleus sampling probability mass."""
    MAX_OUTPUT_TOKENS = "max_output_tokens"
    """Upper bound on the tokens generated for the answer, reasoning included."""
    REASONING_EFFORT = "reasoning_effort"
    """How much a reasoning model reasons."""
    PRESENCE_PENALTY = "presence_penalty"
    """Penalty on tokens that appeared at all (Chat Completions only)."""
    FREQUENCY_PENALTY = "frequency_penalty"
    """Penalty by how often tokens appeared (Chat Completions only)."""
    SEED = "seed"
    """Best-effort deterministic sampling (Chat Completions only)."""
    STOP = "stop"
    """Sequences that end the answer (Chat Completions only)."""


ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
"""The values OpenAI's ``ReasoningEffort`` schema defines."""

# GenerationSettings field → the keyword LangChain's ChatOpenAI takes for it.
_CHAT_MODEL_KWARGS = {"max_output_tokens": "max_tokens"}


@dataclass(frozen=True, slots=True)
class GenerationSettings:
    """The generation controls one request sent, validated; None when absent.

    A field is set only when the client sent a non-null value and the graph
    declares that :class:`GenerationControl`; otherwise the request was
    refused before the graph ran. The OpenAI API routes validate the ranges
    OpenAI documents; a direct Python caller builds this itself.

    Attributes:
        temperature: 0 to 2.
        top_p: 0 to 1.
        max_output_tokens: At least 16 from Responses' ``max_output_tokens``,
            at least 1 from Chat Completions' ``max_completion_tokens`` or its
            deprecated ``max_tokens``.
        reasoning_effort: One of :data:`ReasoningEffort`.
        presence_penalty: -2 to 2.
        frequency_penalty: -2 to 2.
        seed: A 64-bit signed integer.
        stop: One to four stop sequences (a single string becomes one).

    """

    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: ReasoningEffort | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] | None = None

    def sent(self) -> tuple[GenerationControl, ...]:
        """Return the controls with a value, in :class:`GenerationControl` order."""
        return tuple(
            control
            for control in GenerationControl
            if getattr(self, control.value) is not None
        )

    def chat_model_kwargs(self) -> dict[str, Any]:
        """Return the values as keyword arguments for a LangChain chat model call.

        Use them as ``model.bind(**settings.chat_model_kwargs())``. The names
        are those of ``langchain_openai.ChatOpenAI`` (the standard LangChain
        ones where they exist): ``max_output_tokens`` becomes ``max_tokens``
        (ChatOpenAI sends it as ``max_output_tokens`` on the Responses API and
        ``max_completion_tokens`` on Chat Completions), ``stop`` a list; the
        others keep their names. Only values that are set are included.
        """
        kwargs: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is not None:
                if isinstance(value, tuple):
                    value = list(value)
                kwargs[_CHAT_MODEL_KWARGS.get(item.name, item.name)] = value
        return kwargs
