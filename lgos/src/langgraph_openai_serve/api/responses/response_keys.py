"""The keys of OpenAI's ``Response`` object, all of which LGOS always sends.

OpenAI sends every key of a Response, ``null`` where it does not apply, and
clients read them without checking first (``response["usage"]``,
``response.previous_response_id``). LGOS does the same: a Response carries
each key of :data:`RESPONSE_KEYS`, with the request's value where LGOS
accepted it (see
:meth:`~langgraph_openai_serve.api.responses.responses_request.ResponseCreateRequest.echo`)
and ``null`` where nothing on LGOS gives it one.

Rule source: the properties of OpenAI's ``Response`` schema (the ``allOf`` of
``ModelResponseProperties``, ``ResponseProperties`` and its own), except the
SDK-only ``output_text``; the newer keys of the ``openai`` package's
``openai.types.responses.Response``; and ``store``, which OpenAI sends though
the schema does not list it. ``tests/contract/test_response_keys.py`` checks
the list against both.
"""

from __future__ import annotations

__all__ = ["RESPONSE_KEYS"]

RESPONSE_KEYS: tuple[str, ...] = (
    "id",
    "object",
    "created_at",
    "status",
    "access_programs",
    "background",
    "completed_at",
    "conversation",
    "error",
    "image",
    "incomplete_details",
    "input_transformations",
    "instructions",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "model",
    "moderation",
    "output",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_diagnostics",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "service_tier",
    "store",
    "temperature",
    "text",
    "tool_choice",
    "tool_usage",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "usage",
    "user",
)
"""Every key of a Response, in the order LGOS sends them."""
