"""The accepted subset of OpenAI's ``CreateChatCompletionRequest``.

Unknown fields — generation controls such as ``temperature``, ``n`` or
``max_tokens``, the deprecated ``functions``/``function_call`` — are rejected
(400, ``unknown_parameter``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, model_validator

from langgraph_openai_serve.api.common import (
    Metadata,
    SafetyIdentifier,
    StrictModel,
    ToolParameters,
)

__all__ = ["ChatCompletionRequest", "ChatMessage", "FilePart", "TextPart"]


class TextPart(StrictModel):
    """``{"type": "text", "text": ...}``."""

    type: Literal["text"]
    text: str


class FileRef(StrictModel):
    """``file``: only ``file_id`` (no inline ``file_data`` or ``filename``)."""

    file_id: str = Field(min_length=1, max_length=256)


class FilePart(StrictModel):
    """``{"type": "file", "file": {"file_id": ...}}``."""

    type: Literal["file"]
    file: FileRef


UserPart = Annotated[TextPart | FilePart, Field(discriminator="type")]


class FunctionCall(StrictModel):
    """The function of an assistant tool call."""

    name: str
    arguments: str


class ToolCall(StrictModel):
    """A replayed assistant ``tool_calls`` entry."""

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class SystemMessageParam(StrictModel):
    """A ``system`` or ``developer`` message."""

    role: Literal["system", "developer"]
    content: str | list[TextPart]
    name: str | None = None


class UserMessageParam(StrictModel):
    """A ``user`` message."""

    role: Literal["user"]
    content: str | list[UserPart]
    name: str | None = None


class AssistantMessageParam(StrictModel):
    """A replayed ``assistant`` message."""

    role: Literal["assistant"]
    content: str | list[TextPart] | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    refusal: str | None = None
    function_call: None = None  # replayed SDK objects carry function_call=None
    annotations: list[dict[str, Any]] | None = None


class ToolMessageParam(StrictModel):
    """A ``tool`` message answering one tool call."""

    role: Literal["tool"]
    content: str | list[TextPart]
    tool_call_id: str


def _role(value: Any) -> str:
    if isinstance(value, dict):
        role = value.get("role")
        return role if isinstance(role, str) else ""
    return getattr(value, "role", "")


ChatMessage = Annotated[
    Annotated[SystemMessageParam, Tag("system")]
    | Annotated[SystemMessageParam, Tag("developer")]
    | Annotated[UserMessageParam, Tag("user")]
    | Annotated[AssistantMessageParam, Tag("assistant")]
    | Annotated[ToolMessageParam, Tag("tool")],
    Discriminator(_role),
]


class FunctionDefinition(StrictModel):
    """The ``function`` of a Chat tool declaration."""

    name: str = Field(min_length=1, max_length=128)
    description: str | None = None
    parameters: ToolParameters = None
    strict: bool | None = None


class ChatTool(StrictModel):
    """``{"type": "function", "function": {...}}``."""

    type: Literal["function"]
    function: FunctionDefinition


class NamedFunction(StrictModel):
    """The function named by a tool choice."""

    name: str


class ChatToolChoice(StrictModel):
    """``{"type": "function", "function": {"name": ...}}``."""

    type: Literal["function"]
    function: NamedFunction


class StreamOptions(StrictModel):
    """``stream_options``: only ``include_usage`` is served."""

    include_usage: bool | None = None


class ChatCompletionRequest(StrictModel):
    """``POST /v1/chat/completions`` body, limited to the fields LGOS serves."""

    model: str = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    tools: list[ChatTool] | None = None
    tool_choice: Literal["none", "auto", "required"] | ChatToolChoice | None = None
    parallel_tool_calls: bool | None = None
    metadata: Metadata | None = None
    store: Literal[False] | None = None
    safety_identifier: SafetyIdentifier | None = None
    user: str | None = None

    @model_validator(mode="after")
    def _stream_options_need_stream(self) -> ChatCompletionRequest:
        if self.stream_options is not None and not self.stream:
            msg = "stream_options may only be set when stream is true"
            raise ValueError(msg)
        return self
