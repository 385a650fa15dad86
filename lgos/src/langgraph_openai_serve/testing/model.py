""":class:`OfflineChatModel`: a scripted chat model that never leaves the process."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    UsageMetadata,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from langgraph_openai_serve.testing.responders import (
    Responder,
    StructuredResponder,
    _answering_with,
    _tool_call_id,
    default_responder,
    default_structured_responder,
)

__all__ = ["OfflineChatModel", "split_words"]


def split_words(text: str) -> list[str]:
    """Split text into stream chunks, one word each, keeping all whitespace.

    Each chunk is a word followed by the whitespace after it; whitespace at the
    very start becomes its own chunk. ``"".join(split_words(text)) == text``
    always holds.

    Args:
        text: Any string.

    Returns:
        The chunks, in order; empty for an empty string.

    """
    return re.findall(r"^\s+|\S+\s*", text)


# Call kwargs that are the responder's arguments, not options of the call.
_NOT_OPTIONS = frozenset({"tools", "tool_choice", "structured_output_schema"})


def _count_words(text: str) -> int:
    return len(text.split())


class OfflineChatModel(BaseChatModel):
    """Deterministic chat model that streams word by word and needs no network.

    A real LangChain ``BaseChatModel``: ``invoke``/``ainvoke``,
    ``stream``/``astream`` (one chunk per word, so LangGraph's ``messages``
    stream mode and LGOS stream it like any model), ``bind_tools`` and
    ``with_structured_output`` all work. What it answers comes from
    ``responder`` (plain calls and tool calls) or ``structured_responder``
    (``with_structured_output``).

    Usage is reported in ``usage_metadata`` on the answer (on the last chunk
    when streaming) unless the responder's ``AIMessage`` sets its own:
    ``input_tokens`` is the number of whitespace-separated words across all
    input messages' text, ``output_tokens`` the words of the answer text plus
    those of each tool call's JSON-encoded arguments.
    ``response_metadata["finish_reason"]`` is ``"tool_calls"`` when the answer
    calls tools, else ``"stop"``, and ``response_metadata["model_name"]`` is
    ``model_name``, unless the responder sets them.

    Streaming yields each word of a string answer as its own chunk (see
    :func:`split_words`), then one last chunk carrying the metadata, the
    tool calls and any non-string content (content blocks); the chunks add up
    to the ``invoke`` answer.

    Attributes:
        responder: Builds each answer (see :data:`Responder`); defaults to
            :func:`default_responder`.
        structured_responder: Builds structured outputs (see
            :data:`StructuredResponder`); defaults to
            :func:`default_structured_responder`.
        chunk_delay: Seconds to sleep between streamed chunks (sync and
            async), so a UI can show streaming; 0 by default, never negative.
        model_name: Reported as ``response_metadata["model_name"]``.

    """

    responder: Responder = Field(default=default_responder, exclude=True)
    structured_responder: StructuredResponder = Field(
        default=default_structured_responder, exclude=True
    )
    chunk_delay: float = Field(default=0.0, ge=0.0)
    model_name: str = "offline"

    @property
    def _llm_type(self) -> str:
        return "offline"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | Any],
        *,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools so the responder sees them and may call them.

        Args:
            tools: Tools in any form LangChain's ``convert_to_openai_tool``
                accepts (LangChain tools, pydantic classes, functions, OpenAI
                tool dicts).
            tool_choice: Passed to the responder unchanged (see
                :data:`Responder`).
            **kwargs: Further call kwargs to bind.

        Returns:
            A bound runnable whose calls pass ``tools`` (OpenAI tool dicts) and
            ``tool_choice`` to the responder.

        Raises:
            ValueError: ``convert_to_openai_tool`` cannot convert a tool.

        """
        structured = kwargs.get("ls_structured_output_format")
        if structured is not None:
            # Set by `BaseChatModel.with_structured_output`; route to the
            # structured responder instead of the plain one.
            kwargs["structured_output_schema"] = structured["schema"]
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _respond(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
    ) -> AIMessage:
        """Run the responder and complete the answer's metadata."""
        tools = list(kwargs.get("tools") or [])
        tool_choice = kwargs.get("tool_choice")
        schema = kwargs.get("structured_output_schema")
        answer: AIMessage | str
        if schema is not None:
            name = convert_to_openai_tool(schema)["function"]["name"]
            args = self.structured_responder(list(messages), schema)
            if isinstance(args, AIMessage):
                answer = args
            else:
                call = {"name": name, "args": args, "id": _tool_call_id(messages)}
                answer = AIMessage(content="", tool_calls=[call])
        else:
            options = {k: v for k, v in kwargs.items() if k not in _NOT_OPTIONS}
            if stop is not None:
                options["stop"] = stop
            with _answering_with(options):
                answer = self.responder(list(messages), tools, tool_choice)
        message = AIMessage(content=answer) if isinstance(answer, str) else answer
        metadata = {
            "finish_reason": "tool_calls" if message.tool_calls else "stop",
            "model_name": self.model_name,
            **message.response_metadata,
        }
        usage = message.usage_metadata
        if usage is None:
            input_tokens = sum(_count_words(str(m.text)) for m in messages)
            output_tokens = _count_words(str(message.text)) + sum(
                _count_words(json.dumps(call["args"])) for call in message.tool_calls
            )
            usage = UsageMetadata(
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                total_tokens=input_tokens + output_tokens,
            )
        return message.model_copy(
            update={"response_metadata": metadata, "usage_metadata": usage}
        )

    def _chunks(self, message: AIMessage) -> Iterator[AIMessageChunk]:
        """Split an answer into stream chunks whose sum equals the answer."""
        words = split_words(message.content) if isinstance(message.content, str) else []
        for word in words:
            yield AIMessageChunk(content=word, id=message.id)
        final_content = message.content if not isinstance(message.content, str) else ""
        yield AIMessageChunk(
            content=final_content,
            id=message.id,
            additional_kwargs=message.additional_kwargs,
            response_metadata=message.response_metadata,
            usage_metadata=message.usage_metadata,
            tool_call_chunks=[
                tool_call_chunk(
                    name=call["name"],
                    args=json.dumps(call["args"]),
                    id=call["id"],
                    index=index,
                )
                for index, call in enumerate(message.tool_calls)
            ],
            chunk_position="last",
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Answer in one piece (see the class docstring for the metadata)."""
        return ChatResult(
            generations=[ChatGeneration(message=self._respond(messages, stop, kwargs))]
        )

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Answer in one piece, without any delay."""
        return self._generate(messages, stop, None, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Stream the answer word by word; metadata and tool calls come last.

        ``BaseChatModel.stream`` reports each chunk to the callbacks (that is
        how LangGraph's ``messages`` stream mode sees them), so this does not.
        """
        for index, chunk in enumerate(
            self._chunks(self._respond(messages, stop, kwargs))
        ):
            if index and self.chunk_delay:
                time.sleep(self.chunk_delay)
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """Stream the answer word by word, sleeping ``chunk_delay`` in between."""
        for index, chunk in enumerate(
            self._chunks(self._respond(messages, stop, kwargs))
        ):
            if index and self.chunk_delay:
                await asyncio.sleep(self.chunk_delay)
            yield ChatGenerationChunk(message=chunk)
