"""Number cited sources in the order an answer first cites them, while it streams.

A model cites the sources it was given by their numbers in the prompt, so an
answer may cite `[4]` before `[1]`, or skip numbers (`[1]`, `[2]`, `[6]`,
`[18]`). Readers expect `[1]`, `[2]`, `[3]`... in reading order. The prompt's
numbering cannot know what the answer will cite, so the graph renumbers the
answer *as it streams*: `MarkerRenumbering` rewrites each `[n]` naming a
source to the next free number the first time `n` appears (and to the same
number every later time), and `RenumberedChatModel` wraps the graph's chat
model so the streamed tokens and the final message carry the new numbers
alike (LGOS requires the streamed text to equal the final text). The graph
then reorders its sources with `MarkerRenumbering.cited` before attaching
citations, so markers, `url_citation` annotations and any Sources list agree.

Markers naming no source (`[0]`, or beyond the last source) are left as
written; they can never collide with a new number, which is at most the
number of sources.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, TypeVar

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM
from pydantic import ConfigDict

from lgos_demo_api.search.citing import MARKER

__all__ = ["MarkerRenumbering", "RenumberedChatModel"]

_OPEN_TAIL = re.compile(r"\[\d{0,2}$")
"""The end of a text that may still become a marker once more text arrives."""

T = TypeVar("T")


class MarkerRenumbering:
    """Rewrite `[n]` markers to first-citation order, chunk by chunk.

    Usage::

        renumbering = MarkerRenumbering(sources=19)
        text = renumbering.feed("A [4] and B [1") + renumbering.feed("8] and [4].")
        text += renumbering.flush()
        # "A [1] and B [2] and [1]."; renumbering.cited == [4, 18]

    Attributes:
        sources: How many sources the prompt numbered (`[1]` to `[sources]`).
        cited: The prompt's numbers of the cited sources, in new-number
            order: new marker `[k]` cites prompt source `cited[k - 1]`.

    """

    def __init__(self, sources: int) -> None:
        self.sources = sources
        self.cited: list[int] = []
        self._numbers: dict[int, int] = {}
        self._pending = ""

    def _replace(self, match: re.Match[str]) -> str:
        number = int(match.group(1))
        if not 1 <= number <= self.sources:
            return match.group(0)
        if number not in self._numbers:
            self.cited.append(number)
            self._numbers[number] = len(self.cited)
        return f"[{self._numbers[number]}]"

    def feed(self, text: str) -> str:
        """Return the renumbered text that is final so far.

        The end of `text` that could still become a marker (`[`, `[1`) is
        held back until the next `feed` or `flush`.
        """
        text = self._pending + text
        tail = _OPEN_TAIL.search(text)
        cut = tail.start() if tail else len(text)
        self._pending = text[cut:]
        return MARKER.sub(self._replace, text[:cut])

    def flush(self) -> str:
        """Return whatever is still held back (the text is complete)."""
        text, self._pending = self._pending, ""
        return MARKER.sub(self._replace, text)

    def renumber(self, text: str) -> str:
        """Renumber a whole text at once (`feed` then `flush`)."""
        return self.feed(text) + self.flush()

    def reorder(self, sources: Sequence[T]) -> list[T]:
        """Return the cited sources in their new order (`[1]` first)."""
        return [sources[number - 1] for number in self.cited]


def _map_text(content: Any, rewrite: Any) -> Any:
    """Apply `rewrite` to a message content's text (a string or text blocks)."""
    if isinstance(content, str):
        return rewrite(content)
    blocks = []
    for block in content:
        if isinstance(block, str):
            blocks.append(rewrite(block))
        elif isinstance(block, dict) and block.get("type") in ("text", "output_text"):
            text = str(block.get("text", ""))
            new = rewrite(text)
            changed = {"text": new}
            if new != text and block.get("annotations"):
                changed["annotations"] = []  # their offsets no longer hold
            blocks.append({**block, **changed})
        else:
            blocks.append(block)
    return blocks


_PRIVATE: RunnableConfig = {"tags": [TAG_NOSTREAM]}
"""The inner model's config: the node's callbacks come from the context, and
the tag keeps its tokens out of LangGraph's messages stream."""


class RenumberedChatModel(BaseChatModel):
    """A chat model whose answers have their markers renumbered as they stream.

    Calls `inner` privately (tagged `TAG_NOSTREAM`, so LangGraph streams only
    this model's renumbered tokens) and passes every chunk through
    `renumbering`. Build one per answer: `renumbering` keeps that answer's
    numbering.

    Attributes:
        inner: The model that writes the answer.
        renumbering: The numbering of this answer.

    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseChatModel
    renumbering: MarkerRenumbering

    @property
    def _llm_type(self) -> str:
        return "renumbered"

    def _result(self, message: BaseMessage) -> ChatResult:
        assert isinstance(message, AIMessage)
        content = _map_text(message.content, self.renumbering.renumber)
        renumbered = message.model_copy(update={"content": content})
        return ChatResult(generations=[ChatGeneration(message=renumbered)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Answer in one piece, renumbered."""
        return self._result(self.inner.invoke(messages, _PRIVATE))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Answer in one piece, renumbered."""
        answer = await self.inner.ainvoke(messages, _PRIVATE)
        return self._result(answer)

    def _chunk(self, chunk: BaseMessage, *, last: bool = False) -> ChatGenerationChunk:
        assert isinstance(chunk, AIMessageChunk)
        content = _map_text(chunk.content, self.renumbering.feed)
        if last:
            held = self.renumbering.flush()
            if held:
                content = (
                    content + held
                    if isinstance(content, str)
                    else [*content, {"type": "text", "text": held}]
                )
        return ChatGenerationChunk(
            message=chunk.model_copy(update={"content": content})
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Stream the inner model's chunks, renumbered."""
        previous = None
        for chunk in self.inner.stream(messages, _PRIVATE):
            if previous is not None:
                yield self._chunk(previous)
            previous = chunk
        if previous is not None:
            yield self._chunk(previous, last=True)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """Stream the inner model's chunks, renumbered."""
        previous = None
        async for chunk in self.inner.astream(messages, _PRIVATE):
            if previous is not None:
                yield self._chunk(previous)
            previous = chunk
        if previous is not None:
            yield self._chunk(previous, last=True)
