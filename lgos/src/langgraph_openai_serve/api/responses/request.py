"""The accepted subset of OpenAI's ``CreateResponse`` request.

Unknown fields are rejected (400, ``unknown_parameter``). Shapes follow
OpenAI's OpenAPI document (``CreateResponse``, ``EasyInputMessage``,
``OutputMessage``, ``FunctionToolCall``, ``FunctionCallOutputItemParam``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from langgraph_openai_serve.api.common import (
    Metadata,
    SafetyIdentifier,
    StrictModel,
    ToolParameters,
)

__all__ = [
    "CustomToolCallItem",
    "CustomToolCallOutputItem",
    "CustomToolChoice",
    "CustomToolSelector",
    "FunctionCallItem",
    "FunctionCallOutputItem",
    "FunctionTool",
    "InputFile",
    "InputItem",
    "InputText",
    "MessageItem",
    "OutputText",
    "Refusal",
    "ResponseCreateRequest",
    "WebSearchCallItem",
    "WebSearchSelector",
]


class InputText(StrictModel):
    """``{"type": "input_text", "text": ...}``."""

    type: Literal["input_text"]
    text: str


class OutputText(StrictModel):
    """A replayed ``output_text`` part of an earlier assistant message."""

    type: Literal["output_text"]
    text: str
    annotations: list[dict[str, Any]] = Field(default_factory=list)
    logprobs: list[dict[str, Any]] | None = None
    parsed: None = None  # the SDK's stream helper serializes parsed=None


class Refusal(StrictModel):
    """A replayed ``refusal`` part."""

    type: Literal["refusal"]
    refusal: str


class InputFile(StrictModel):
    """``{"type": "input_file", "file_id": ...}``: a Files API file.

    URLs, inline ``file_data`` and ``filename`` are not served: upload to an
    OpenAI-compatible Files service and send the returned ID.
    """

    type: Literal["input_file"]
    file_id: str = Field(min_length=1, max_length=256)


ContentPart = Annotated[
    InputText | InputFile | OutputText | Refusal,
    Field(discriminator="type"),
]


class MessageItem(StrictModel):
    """A message: an ``EasyInputMessage`` or a replayed ``OutputMessage``."""

    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: str | list[ContentPart]
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    phase: Literal["commentary", "final_answer"] | None = None


class FunctionCallItem(StrictModel):
    """A replayed ``function_call`` item."""

    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    caller: None = None
    namespace: None = None


class FunctionCallOutputItem(StrictModel):
    """A ``function_call_output`` item answering a function call."""

    type: Literal["function_call_output"]
    call_id: str
    output: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class CustomToolCallItem(StrictModel):
    """A replayed ``custom_tool_call`` item (a server tool call)."""

    type: Literal["custom_tool_call"]
    call_id: str
    name: str
    input: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    caller: None = None
    namespace: None = None


class CustomToolCallOutputItem(StrictModel):
    """A replayed ``custom_tool_call_output`` item."""

    type: Literal["custom_tool_call_output"]
    call_id: str
    output: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    caller: None = None


class WebSearchCallItem(StrictModel):
    """A replayed ``web_search_call`` item."""

    type: Literal["web_search_call"]
    id: str
    status: Literal["in_progress", "searching", "completed", "failed"]
    action: dict[str, Any]


def _item_type(value: Any) -> str:
    if isinstance(value, dict):
        return value.get("type", "message")
    return getattr(value, "type", "message")


InputItem = Annotated[
    Annotated[MessageItem, Tag("message")]
    | Annotated[FunctionCallItem, Tag("function_call")]
    | Annotated[FunctionCallOutputItem, Tag("function_call_output")]
    | Annotated[CustomToolCallItem, Tag("custom_tool_call")]
    | Annotated[CustomToolCallOutputItem, Tag("custom_tool_call_output")]
    | Annotated[WebSearchCallItem, Tag("web_search_call")],
    Discriminator(_item_type),
]


class FunctionTool(StrictModel):
    """A flat Responses function tool declaration."""

    type: Literal["function"]
    name: str = Field(min_length=1, max_length=128)
    description: str | None = None
    parameters: ToolParameters = None
    strict: bool | None = None


class CustomToolSelector(StrictModel):
    """``{"type": "custom", "name": ...}``: select a registered server tool.

    The graph owns the tool's description, input contract and execution, so
    a client-supplied ``description`` or ``format`` is rejected.
    """

    type: Literal["custom"]
    name: str = Field(min_length=1, max_length=128)


class WebSearchSelector(StrictModel):
    """``{"type": "web_search"}``: allow the graph's web search."""

    type: Literal["web_search"]


Tool = Annotated[
    FunctionTool | CustomToolSelector | WebSearchSelector, Field(discriminator="type")
]


class FunctionToolChoice(StrictModel):
    """``{"type": "function", "name": ...}``."""

    type: Literal["function"]
    name: str


class TextFormat(StrictModel):
    """``text.format``: only plain text output is served."""

    type: Literal["text"]


class TextConfig(StrictModel):
    """``text``: output format options (plain text only)."""

    format: TextFormat | None = None


class CustomToolChoice(StrictModel):
    """``{"type": "custom", "name": ...}``: require a selected custom tool."""

    type: Literal["custom"]
    name: str


ToolChoiceParam = Annotated[
    FunctionToolChoice | CustomToolChoice, Field(discriminator="type")
]


class ResponseCreateRequest(StrictModel):
    """``POST /v1/responses`` body, limited to the fields LGOS serves."""

    model: str = Field(min_length=1)
    input: str | Annotated[list[InputItem], Field(min_length=1)]
    instructions: str | None = None
    metadata: Metadata | None = None
    store: bool | None = None
    stream: bool | None = None
    tools: list[Tool] | None = None
    tool_choice: Literal["none", "auto", "required"] | ToolChoiceParam | None = None
    parallel_tool_calls: bool | None = None
    safety_identifier: SafetyIdentifier | None = None
    user: str | None = None
    previous_response_id: str | None = None
    background: bool | None = None
    text: TextConfig | None = None
