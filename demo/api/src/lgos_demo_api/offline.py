"""A deterministic, scriptable LangChain chat model for demos and tests.

`OfflineChatModel` is a real `BaseChatModel`: it streams word by word, reports
token usage, supports `bind_tools` and `with_structured_output`, and never
touches the network. The LGOS demo uses it whenever no OpenAI key is
configured, and the test suite uses it everywhere. Copy this module into your
own project if you want the same thing for your graphs' tests.

Out of the box it answers with a short sentence that visibly reflects what it
received, so you can see in a UI (or assert in a test) that your graph built
the right prompt:

    This is the offline demo model. You said: "What is a graph?" Following
    instructions: "Write for a beginner audience: ..." I saw 1 conversation
    message.

(One line in reality; see `default_responder` for the exact shape.)

Script any behaviour with a `responder`, in the spirit of pydantic-ai's
`FunctionModel`: it receives the messages, the bound tools (OpenAI tool dicts)
and the `tool_choice`, and returns a string or a full `AIMessage` (tool calls,
content blocks such as refusals, `response_metadata` such as `finish_reason`):

    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    from lgos_demo_api.offline import OfflineChatModel


    @tool
    def get_weather(city: str) -> str:
        '''Return the weather for a city.'''
        return "sunny"


    def weather_agent(messages, tools, tool_choice):
        if tools and messages[-1].type == "human":
            call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}
            return AIMessage(content="", tool_calls=[call])
        return "It is sunny in Paris."


    model = OfflineChatModel(responder=weather_agent)
    reply = model.bind_tools([get_weather]).invoke([HumanMessage("Weather?")])
    assert reply.tool_calls[0]["args"] == {"city": "Paris"}
    assert model.invoke("Thanks!").content == "It is sunny in Paris."

`RecordingResponder` wraps any responder and keeps every call, to assert on
exactly what your graph sent to the model.

Structured output goes through `structured_responder`, a callable
`(messages, schema) -> dict`; the default fills every required field
deterministically from the last user message (see
`default_structured_responder`).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
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
    HumanMessage,
    SystemMessage,
    UsageMetadata,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

__all__ = [
    "OfflineChatModel",
    "RecordedCall",
    "RecordingResponder",
    "Responder",
    "StructuredResponder",
    "default_responder",
    "default_structured_responder",
    "split_words",
]

Responder = Callable[[list[BaseMessage], list[dict[str, Any]], Any], AIMessage | str]
"""`(messages, tools, tool_choice) -> AIMessage | str`.

`messages` is the exact model input, `tools` the OpenAI-format tool dicts bound
with `bind_tools` (empty when none), `tool_choice` whatever was passed to
`bind_tools` (`None`, `"auto"`, `"none"`, `"required"`, `"any"`, a tool name,
`True`, or an OpenAI `{"type": "function", "function": {"name": ...}}` dict).
"""

StructuredResponder = Callable[[list[BaseMessage], Any], dict[str, Any] | AIMessage]
"""`(messages, schema) -> dict` producing the arguments for a structured output.

`schema` is exactly what was passed to `with_structured_output` (a pydantic
class, a `TypedDict`, or a JSON schema / OpenAI tool dict). Returning an
`AIMessage` instead answers with that message and no structured call, for
example a refusal (`content=[{"type": "refusal", "refusal": "..."}]`), which
`with_structured_output(..., include_raw=True)` reports as `parsed=None`.
"""

_QUOTE_LIMIT = 200
"""Longest quoted user message / instruction line, in characters."""


def split_words(text: str) -> list[str]:
    """Split text into stream chunks, one word each, keeping all whitespace.

    Each chunk is a word followed by the whitespace after it; whitespace at the
    very start becomes its own chunk. `"".join(split_words(text)) == text`
    always holds.

    Args:
        text: Any string.

    Returns:
        The chunks, in order; empty for an empty string.

    """
    return re.findall(r"^\s+|\S+\s*", text)


def _count_words(text: str) -> int:
    return len(text.split())


def _shorten(text: str) -> str:
    """Collapse whitespace and cut to `_QUOTE_LIMIT` characters (adds "...")."""
    flat = " ".join(text.split())
    if len(flat) <= _QUOTE_LIMIT:
        return flat
    return flat[: _QUOTE_LIMIT - 3].rstrip() + "..."


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line
    return ""


def _last_user_text(messages: Sequence[BaseMessage]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return str(message.text)
    return None


def _forced_tool(tools: list[dict[str, Any]], tool_choice: Any) -> dict | None:
    """Return the tool a `tool_choice` forces the model to call, if any."""
    if not tools or tool_choice in (None, False, "auto", "none"):
        return None
    if tool_choice in (True, "required", "any"):
        return tools[0]
    if isinstance(tool_choice, dict):
        tool_choice = tool_choice.get("function", {}).get("name") or tool_choice.get(
            "name"
        )
    for tool in tools:
        if _tool_name(tool) == tool_choice:
            return tool
    return None


def _tool_name(tool: dict[str, Any]) -> str:
    """Name of an OpenAI function tool or a custom (free-form) tool dict."""
    return tool["function"]["name"] if "function" in tool else tool.get("name", "")


def default_responder(
    messages: list[BaseMessage],
    tools: list[dict[str, Any]],
    tool_choice: Any,
) -> AIMessage | str:
    """Answer deterministically, echoing what the model received.

    When `tool_choice` forces a tool call (`"required"`, `"any"`, `True`, a tool
    name or an OpenAI tool-choice dict) the answer is a single call to that tool
    (the first bound tool for `"required"`/`"any"`/`True`), with arguments
    filled from the last user message as `default_structured_responder` does,
    and id `call_offline_<number of input messages>`.

    Otherwise the answer is one line of text made of four sentences::

        This is the offline demo model. You said: "<last user message>"
        Following instructions: "<system line 1>", "<system line 2>" I saw
        <n> conversation message<s>.

    - `<last user message>` is the text of the last `HumanMessage` with
      whitespace collapsed, cut to 200 characters (ending in `...` when cut).
      Without any user message the sentence reads `You said nothing.`
    - Each `<system line>` is the first non-blank line of one `SystemMessage`,
      in order, shortened the same way. Without system messages the sentence
      reads `Following instructions: none.`
    - `<n>` counts the non-system messages; the noun is singular for 1.

    Args:
        messages: The model input.
        tools: OpenAI-format tool dicts bound to the model.
        tool_choice: The bound tool choice (see `Responder`).

    Returns:
        The answer text, or an `AIMessage` carrying one tool call.

    """
    last_user = _last_user_text(messages)
    forced = _forced_tool(tools, tool_choice)
    if forced is not None:
        if "function" in forced:
            function = forced["function"]
            value = _example_value(function.get("parameters", {}), last_user or "")
            args = value if isinstance(value, dict) else {}
        else:
            # A custom tool takes free-form text: the last user message.
            args = {"__arg1": last_user or ""}
        return AIMessage(
            content="",
            tool_calls=[
                {
                    "name": _tool_name(forced),
                    "args": args,
                    "id": f"call_offline_{len(messages)}",
                }
            ],
        )

    if last_user is None:
        said = "You said nothing."
    else:
        said = f'You said: "{_shorten(last_user)}"'
    instructions = [
        f'"{_shorten(_first_line(str(m.text)))}"'
        for m in messages
        if isinstance(m, SystemMessage)
    ]
    following = (
        "Following instructions: " + ", ".join(instructions)
        if instructions
        else "Following instructions: none."
    )
    seen = sum(not isinstance(m, SystemMessage) for m in messages)
    noun = "message" if seen == 1 else "messages"
    return (
        f"This is the offline demo model. {said} {following} "
        f"I saw {seen} conversation {noun}."
    )


@dataclass
class RecordingResponder:
    """A responder that records every call, then delegates to another responder.

    Use it to assert on exactly what a graph sent to the model::

        recorder = RecordingResponder()
        graph = build_my_graph(OfflineChatModel(responder=recorder))
        await graph.ainvoke({"messages": [HumanMessage("hi")]})
        assert recorder.calls[0].messages[-1].content == "hi"

    Attributes:
        inner: The responder that produces the answers; `default_responder`
            unless given.
        calls: One `(messages, tools, tool_choice)` `RecordedCall` per model
            call, oldest first. Structured-output calls are not recorded.

    """

    inner: Responder = default_responder
    calls: list[RecordedCall] = field(default_factory=list)

    def __call__(
        self,
        messages: list[BaseMessage],
        tools: list[dict[str, Any]],
        tool_choice: Any,
    ) -> AIMessage | str:
        """Record the call and return `inner`'s answer unchanged."""
        self.calls.append(RecordedCall(list(messages), list(tools), tool_choice))
        return self.inner(messages, tools, tool_choice)


@dataclass(frozen=True)
class RecordedCall:
    """One model call seen by a `RecordingResponder`.

    Attributes:
        messages: The model input.
        tools: The OpenAI-format tool dicts bound to the model.
        tool_choice: The bound tool choice.

    """

    messages: list[BaseMessage]
    tools: list[dict[str, Any]]
    tool_choice: Any


def _schema_parameters(schema: Any) -> dict[str, Any]:
    """Return the JSON schema of the arguments for any structured-output schema."""
    return convert_to_openai_tool(schema)["function"].get("parameters", {})


def _example_value(schema: dict[str, Any], text: str) -> Any:
    """Build a deterministic value matching a (dereferenced) JSON schema.

    Objects get every property that has a default (its default) plus every
    required property (generated); strings become `text`, integers and numbers
    the word count of `text` (raised to any `minimum`), booleans `True`,
    arrays a single generated item, enums/consts their first value.
    """
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if o.get("type") != "null"]
        if options:
            return _example_value(options[0], text)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or "properties" in schema:
        required = set(schema.get("required", []))
        value = {}
        for name, prop in schema.get("properties", {}).items():
            if "default" in prop:
                value[name] = prop["default"]
            elif name in required:
                value[name] = _example_value(prop, text)
        return value
    if kind == "array":
        return [_example_value(schema.get("items", {}), text)]
    if kind in ("integer", "number"):
        number = max(_count_words(text), schema.get("minimum", 0))
        return number if kind == "integer" else float(number)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    max_length = schema.get("maxLength")
    return text[:max_length] if max_length is not None else text


def default_structured_responder(
    messages: list[BaseMessage], schema: Any
) -> dict[str, Any]:
    """Fill a structured-output schema deterministically from the last user message.

    Every field with a default gets its default; every other required field is
    generated: strings are the last user message text, integers/numbers its word
    count, booleans `True`, enums and literals their first value, lists one
    generated item, nested objects recursively the same way. Optional fields
    without a default are omitted.

    Args:
        messages: The model input.
        schema: The schema given to `with_structured_output`.

    Returns:
        The field values as a JSON-compatible dict.

    """
    value = _example_value(_schema_parameters(schema), _last_user_text(messages) or "")
    return value if isinstance(value, dict) else {}


class OfflineChatModel(BaseChatModel):
    """Deterministic chat model that streams word by word and needs no network.

    Attributes:
        responder: Builds each answer (see `Responder`); defaults to
            `default_responder`.
        structured_responder: Builds structured outputs (see
            `StructuredResponder`); defaults to `default_structured_responder`.
        chunk_delay: Seconds to sleep between streamed chunks (sync and async),
            so a UI can show streaming; 0 by default.
        model_name: Reported as `response_metadata["model_name"]`.

    Usage is reported in `usage_metadata` on the answer (on the last chunk when
    streaming) unless the responder's `AIMessage` sets its own:
    `input_tokens` is the number of whitespace-separated words across all
    input messages' text, `output_tokens` the words of the answer text plus
    those of each tool call's JSON-encoded arguments.
    `response_metadata["finish_reason"]` is `"tool_calls"` when the answer
    calls tools, else `"stop"`, unless the responder sets it.

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
            tools: Tools in any form `convert_to_openai_tool` accepts (LangChain
                tools, pydantic classes, functions, OpenAI tool dicts).
            tool_choice: Passed to the responder unchanged (see `Responder`).
            **kwargs: Further call kwargs to bind.

        Returns:
            A bound runnable whose calls pass `tools` (OpenAI tool dicts) and
            `tool_choice` to the responder.

        """
        structured = kwargs.get("ls_structured_output_format")
        if structured is not None:
            # Set by `BaseChatModel.with_structured_output`; route to the
            # structured responder instead of the plain one.
            kwargs["structured_output_schema"] = structured["schema"]
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _respond(
        self, messages: list[BaseMessage], kwargs: dict[str, Any]
    ) -> AIMessage:
        """Run the responder and complete the answer's metadata."""
        tools = list(kwargs.get("tools") or [])
        tool_choice = kwargs.get("tool_choice")
        schema = kwargs.get("structured_output_schema")
        if schema is not None:
            name = convert_to_openai_tool(schema)["function"]["name"]
            args = self.structured_responder(list(messages), schema)
            answer: AIMessage | str = (
                args
                if isinstance(args, AIMessage)
                else AIMessage(
                    content="",
                    tool_calls=[
                        {
                            "name": name,
                            "args": args,
                            "id": f"call_offline_{len(messages)}",
                        }
                    ],
                )
            )
        else:
            answer = self.responder(list(messages), tools, tool_choice)
        message = AIMessage(content=answer) if isinstance(answer, str) else answer
        text = str(message.text)
        metadata = {
            "finish_reason": "tool_calls" if message.tool_calls else "stop",
            "model_name": self.model_name,
            **message.response_metadata,
        }
        usage = message.usage_metadata
        if usage is None:
            input_tokens = sum(_count_words(str(m.text)) for m in messages)
            output_tokens = _count_words(text) + sum(
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
            generations=[ChatGeneration(message=self._respond(messages, kwargs))]
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

        `BaseChatModel.stream` reports each chunk to the callbacks (that is how
        LangGraph's `messages` stream mode sees them), so this does not.
        """
        for index, chunk in enumerate(self._chunks(self._respond(messages, kwargs))):
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
        """Stream the answer word by word, sleeping `chunk_delay` in between."""
        for index, chunk in enumerate(self._chunks(self._respond(messages, kwargs))):
            if index and self.chunk_delay:
                await asyncio.sleep(self.chunk_delay)
            yield ChatGenerationChunk(message=chunk)
