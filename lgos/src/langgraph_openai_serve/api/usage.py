"""Map LangChain ``UsageMetadata`` to OpenAI usage objects."""

from __future__ import annotations

from typing import Any

from langchain_core.messages.ai import UsageMetadata

__all__ = ["chat_usage", "response_usage"]


def response_usage(usage: UsageMetadata) -> dict[str, Any]:
    """Return OpenAI's ``ResponseUsage`` for reported LangChain usage."""
    input_details = usage.get("input_token_details") or {}
    output_details = usage.get("output_token_details") or {}
    return {
        "input_tokens": usage["input_tokens"],
        "input_tokens_details": {
            "cached_tokens": input_details.get("cache_read", 0),
            "cache_write_tokens": input_details.get("cache_creation", 0),
        },
        "output_tokens": usage["output_tokens"],
        "output_tokens_details": {
            "reasoning_tokens": output_details.get("reasoning", 0)
        },
        "total_tokens": usage["total_tokens"],
    }


def chat_usage(usage: UsageMetadata) -> dict[str, Any]:
    """Return OpenAI's Chat ``CompletionUsage`` for reported LangChain usage."""
    input_details = usage.get("input_token_details") or {}
    output_details = usage.get("output_token_details") or {}
    return {
        "prompt_tokens": usage["input_tokens"],
        "completion_tokens": usage["output_tokens"],
        "total_tokens": usage["total_tokens"],
        "prompt_tokens_details": {"cached_tokens": input_details.get("cache_read", 0)},
        "completion_tokens_details": {
            "reasoning_tokens": output_details.get("reasoning", 0)
        },
    }
