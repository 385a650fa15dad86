"""What a run hands out: text chunks, custom parts, server-tool events, a result.

The protocol-neutral events of a run (:data:`RunEvent`), produced by its
execution (:mod:`.execution`) and encoded by the adapters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage

from langgraph_openai_serve.graph.interrupt import LangGraphInterruptBatch
from langgraph_openai_serve.graph.server_tools import ServerToolCall, ServerToolResult

__all__ = ["RunEvent", "TextChunk", "is_result"]


@dataclass(frozen=True, slots=True)
class TextChunk:
    """Non-empty assistant text from one streamed ``AIMessageChunk``.

    Attributes:
        text: The chunk's text.
        node: The graph node whose model call streamed it (LangGraph's
            ``langgraph_node`` metadata), or None when unknown; not compared,
            so ``TextChunk("a") == TextChunk("a", "answer")``.

    """

    text: str
    node: str | None = field(default=None, compare=False)


RunEvent = (
    TextChunk
    | dict[str, Any]
    | ServerToolCall
    | ServerToolResult
    | AIMessage
    | LangGraphInterruptBatch
)
"""What a run hands out (:meth:`~.session.RunSession.batches`,
:func:`stream_run`): text chunks and LangGraph
``CustomStreamPart`` dicts (``{"type": "custom", "ns": (...), "data": ...}``)
while streaming; server-tool calls and results when the request selected
server tools; then exactly one result: the answer ``AIMessage`` or, for a
paused interrupt run, the :class:`LangGraphInterruptBatch`."""


def is_result(event: RunEvent) -> bool:
    """Whether ``event`` is a run's result: the answer or the pause."""
    return isinstance(event, AIMessage | LangGraphInterruptBatch)
