"""Token usage reported by LangChain model calls during one graph run."""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.messages.ai import UsageMetadata, add_usage
from langchain_core.outputs import ChatGeneration, LLMResult

__all__ = ["UsageCollector"]


class UsageCollector(BaseCallbackHandler):
    """Sum ``AIMessage.usage_metadata`` over every model call of a run.

    Only usage that a model reported is counted; nothing is estimated. After
    the run, :attr:`usage` is the aggregate, or None when no call reported
    usage.
    """

    run_inline = True  # cheap and thread-safe: no executor hop per model call

    # Only finished model calls carry usage: LangChain skips this handler for
    # the chain events of every node and step, for custom events, and for
    # chat-model starts (which it would otherwise render as text for
    # on_llm_start).
    @property
    def ignore_chain(self) -> bool:
        """Skip chain events (True)."""
        return True

    @property
    def ignore_chat_model(self) -> bool:
        """Skip chat-model start events (True); ``on_llm_end`` still arrives."""
        return True

    @property
    def ignore_custom_event(self) -> bool:
        """Skip custom events (True)."""
        return True

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.usage: UsageMetadata | None = None

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        """Add the usage of one finished model call, if it reported any."""
        for generations in response.generations:
            for generation in generations:
                if not isinstance(generation, ChatGeneration):
                    continue
                message = generation.message
                if isinstance(message, AIMessage) and message.usage_metadata:
                    with self._lock:
                        self.usage = add_usage(self.usage, message.usage_metadata)
