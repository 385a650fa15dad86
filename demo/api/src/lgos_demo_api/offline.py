"""The demo's offline model: LGOS's scripted test model, in the demo's words.

The model itself ships with LGOS as `langgraph_openai_serve.testing` (a real
`BaseChatModel` that streams word by word, reports usage, supports
`bind_tools` and `with_structured_output`, and never touches the network; see
its documentation for responders, recording and structured output). The demo
uses it whenever no OpenAI key is configured; this module only makes it
introduce itself as the demo's model. Out of the box it answers with a short
sentence that visibly reflects what it received, so you can see in a UI that
a graph built the right prompt:

    This is the offline demo model. You said: "What is a graph?" Following
    instructions: "Write for a beginner audience: ..." I saw 1 conversation
    message.

(One line in reality; see `default_responder`.) `OfflineChatModel` and
`RecordingResponder` here default to that responder; every other name is
LGOS's own, re-exported so the demo's graphs import one module.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from langgraph_openai_serve import testing
from langgraph_openai_serve.testing import (
    EchoResponder,
    RecordedCall,
    Responder,
    StructuredResponder,
    default_structured_responder,
    split_words,
)

__all__ = [
    "DEMO_INTRO",
    "OfflineChatModel",
    "RecordedCall",
    "RecordingResponder",
    "Responder",
    "StructuredResponder",
    "default_responder",
    "default_structured_responder",
    "end_sentence",
    "quoted",
    "split_words",
]

DEMO_INTRO = "This is the offline demo model."
"""The first sentence of the demo model's default text answers."""

_DEMO_ECHO = EchoResponder(intro=DEMO_INTRO)
_SENTENCE_ENDS = (".", "!", "?", "…")


def end_sentence(text: str) -> str:
    """Return `text` ending with a full stop, unless it already ends a sentence.

    So a sentence built around quoted or generated text never ends in `..`
    or `?.`.
    """
    text = text.rstrip()
    return text if not text or text.endswith(_SENTENCE_ENDS) else f"{text}."


def quoted(text: str) -> str:
    """Quote what the user typed at the end of a sentence, punctuated once.

    `quoted("Run it")` is `"Run it".` and `quoted("Why?")` is `"Why?"` (the
    question mark ends the sentence), with whitespace collapsed.
    """
    flat = " ".join(text.split())
    return f'"{flat}"' if flat.endswith(_SENTENCE_ENDS) else f'"{flat}".'


def default_responder(
    messages: list[BaseMessage],
    tools: list[dict[str, Any]],
    tool_choice: Any,
) -> AIMessage | str:
    """Answer like LGOS's `EchoResponder`, introduced as the offline demo model.

    The text answer is one line::

        This is the offline demo model. You said: "<last user message>"
        Following instructions: "<system line 1>", "<system line 2>" I saw
        <n> conversation message<s>.

    and a forced `tool_choice` gets one generated tool call, both exactly as
    `langgraph_openai_serve.testing.EchoResponder` describes.

    Args:
        messages: The model input.
        tools: OpenAI-format tool dicts bound to the model.
        tool_choice: The bound tool choice (see `Responder`).

    Returns:
        The answer text, or an `AIMessage` carrying one tool call.

    """
    return _DEMO_ECHO(messages, tools, tool_choice)


class OfflineChatModel(testing.OfflineChatModel):
    """LGOS's `OfflineChatModel` whose default responder is the demo's.

    Attributes:
        responder: Builds each answer; defaults to this module's
            `default_responder`.
        answer_delay: Seconds an asynchronous call that is not streamed
            (`ainvoke`, as background runs make them) waits before it
            answers, standing in for a real model's latency; 0 (the default)
            answers at once. Streamed calls pace their words with
            `chunk_delay` instead.

    """

    responder: Responder = Field(default=default_responder, exclude=True)
    answer_delay: float = Field(default=0.0, ge=0.0)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Answer in one piece, after `answer_delay` seconds."""
        if self.answer_delay:
            await asyncio.sleep(self.answer_delay)
        return await super()._agenerate(messages, stop, run_manager, **kwargs)


@dataclass
class RecordingResponder(testing.RecordingResponder):
    """LGOS's `RecordingResponder` delegating to the demo's responder by default.

    Attributes:
        inner: The responder that produces the answers; this module's
            `default_responder` unless given.

    """

    inner: Responder = default_responder
