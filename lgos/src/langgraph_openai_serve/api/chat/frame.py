"""The identity a chat completion and all of its chunks share."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from langgraph_openai_serve.ids import new_id

__all__ = ["ChatFrame"]


@dataclass(slots=True)
class ChatFrame:
    """Identity shared by a completion and all of its chunks."""

    model: str
    include_usage: bool = False
    completion_id: str = field(default_factory=lambda: new_id("chatcmpl"))
    created: int = field(default_factory=lambda: int(time.time()))
