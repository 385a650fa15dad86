"""The identity a chat completion and all of its chunks share.

A ``chat.completion`` and each ``chat.completion.chunk`` carry every key of
OpenAI's ``CreateChatCompletionResponse`` and
``CreateChatCompletionStreamResponse``, as OpenAI sends them: the request's
``service_tier`` (and, on the completion, ``metadata``) where it gave one,
``null`` where nothing on LGOS gives a value (``system_fingerprint``,
``moderation``; ``usage`` until the run reported usage). Only a chunk's
``obfuscation`` is left out, as OpenAI leaves it out for
``include_obfuscation: false``: LGOS never pads its events.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from langgraph_openai_serve.ids import new_id

__all__ = ["ChatFrame"]


@dataclass(slots=True)
class ChatFrame:
    """Identity shared by a completion and all of its chunks.

    Attributes:
        model: The requested model.
        include_usage: ``stream_options.include_usage``.
        service_tier: The request's ``service_tier`` (only its no-op values
            ``"auto"`` and ``"default"`` are accepted), echoed.
        metadata: The request's ``metadata``, echoed on the completion.
        completion_id: ``chatcmpl-…``.
        created: Unix seconds.

    """

    model: str
    include_usage: bool = False
    service_tier: str | None = None
    metadata: dict[str, str] | None = None
    completion_id: str = field(default_factory=lambda: new_id("chatcmpl"))
    created: int = field(default_factory=lambda: int(time.time()))

    def head(self, object_: str) -> dict[str, Any]:
        """Return the keys before ``choices`` of a completion or chunk."""
        return {
            "id": self.completion_id,
            "object": object_,
            "created": self.created,
            "model": self.model,
            "service_tier": self.service_tier,
            "system_fingerprint": None,
            "moderation": None,
        }
