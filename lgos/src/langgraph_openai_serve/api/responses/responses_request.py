"""The accepted subset of OpenAI's ``CreateResponse`` request.

Shapes follow OpenAI's OpenAPI document (``CreateResponse``,
``EasyInputMessage``, ``OutputMessage``, ``FunctionToolCall``,
``FunctionCallOutputItemParam``, ``Reasoning``, ...). An OpenAI field that
LGOS does not serve is dropped when its value asks for nothing: ``null``,
what LGOS does anyway (``truncation: "disabled"``), a hint
(``prompt_cache_key``) or a part LGOS never emits (``include:
["reasoning.encrypted_content"]``, ``reasoning.summary``); any other value
is refused (400, ``unsupported_parameter``). A name OpenAI does not define
is ``unknown_parameter``, except the named fields of well-known clients
(Codex CLI's ``client_metadata``). See
:mod:`~langgraph_openai_serve.api.tolerance`.
Generation controls (``temperature``, ``top_p``, ``max_output_tokens``,
``reasoning.effort``) are validated against OpenAI's ranges here and refused
at decode unless the graph declares them
(:mod:`~langgraph_openai_serve.api.generation`).

One module: the request's models refer to one another (items, content
parts, tools, tool choices, options) and together mirror one OpenAI schema,
``CreateResponse``; the contract tests compare them with it as one set.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Discriminator, Field, Tag

from langgraph_openai_serve.api.generation import (
    ResponsesMaxOutputTokens,
    Temperature,
    TopP,
)
from langgraph_openai_serve.api.request_fields import (
    GRAPH_OWNS,
    Metadata,
    SafetyIdentifier,
    StrictModel,
    ToolParameters,
)
from langgraph_openai_serve.api.responses.response_keys import RESPONSE_KEYS
from langgraph_openai_serve.api.tolerance import (
    INCLUDES_NEVER_EMITTED,
    ClientField,
    NoOps,
    entries_of,
    hint,
    string_map,
)
from langgraph_openai_serve.graph.generation import ReasoningEffort

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
    "ReasoningConfig",
    "Refusal",
    "ResponseCreateRequest",
    "ResponseStreamOptions",
    "WebSearchCallItem",
    "WebSearchSelector",
]


_PROMPT_CACHE = "LGOS accepts OpenAI's prompt caching hints and ignores them"
_CALLER = "tool callers and namespaces are not supported"
_NO_REASONING = "LGOS graphs emit no reasoning items"
_GRAPH_SEARCHES = "the graph owns how its web search searches"

# Prompt caching never changes an answer: its hints are accepted.
_BREAKPOINT: NoOps = {"prompt_cache_breakpoint": ({"mode": "explicit"},)}


class InputText(StrictModel):
    """``{"type": "input_text", "text": ...}``."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "prompt_cache_breakpoint": _PROMPT_CACHE
    }
    openai_no_op_values: ClassVar[NoOps] = _BREAKPOINT

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

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "file_url": "file URLs are not supported; send a Files API file_id",
        "file_data": "inline file data is not supported; send a Files API file_id",
        "filename": "files are named by the Files service; send a file_id",
        "detail": "the graph decides how to read a file",
        "prompt_cache_breakpoint": _PROMPT_CACHE,
    }
    openai_no_op_values: ClassVar[NoOps] = _BREAKPOINT

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

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "caller": _CALLER,
        "namespace": _CALLER,
    }

    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class FunctionCallOutputItem(StrictModel):
    """A ``function_call_output`` item answering a function call."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "caller": _CALLER,
        "namespace": _CALLER,
        "name": _CALLER,
    }

    type: Literal["function_call_output"]
    call_id: str
    output: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class CustomToolCallItem(StrictModel):
    """A replayed ``custom_tool_call`` item (a server tool call)."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "caller": _CALLER,
        "namespace": _CALLER,
    }

    type: Literal["custom_tool_call"]
    call_id: str
    name: str
    input: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


class CustomToolCallOutputItem(StrictModel):
    """A replayed ``custom_tool_call_output`` item."""

    openai_not_served: ClassVar[Mapping[str, str]] = {"caller": _CALLER}

    type: Literal["custom_tool_call_output"]
    call_id: str
    output: str
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None


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

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "allowed_callers": _CALLER,
        "defer_loading": "tools are loaded with the request",
        "output_schema": "function output schemas are not supported",
    }
    openai_no_op_values: ClassVar[NoOps] = {"defer_loading": (False,)}

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

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "description": "the graph owns a registered tool's description",
        "format": "the graph owns a registered tool's input format",
        "allowed_callers": _CALLER,
        "defer_loading": "tools are loaded with the request",
    }
    openai_no_op_values: ClassVar[NoOps] = {"defer_loading": (False,)}

    type: Literal["custom"]
    name: str = Field(min_length=1, max_length=128)


class WebSearchSelector(StrictModel):
    """``{"type": "web_search"}``: allow the graph's web search.

    The graph owns how it searches: ``filters``, ``user_location`` and a
    ``search_context_size`` other than OpenAI's default (``"medium"``) are
    refused. ``external_web_access: true`` is OpenAI's default (live
    search); ``false`` asks for cached results only, which LGOS lacks.
    ``web_search_2025_08_26`` is OpenAI's other name for the same tool.
    """

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "filters": _GRAPH_SEARCHES,
        "user_location": _GRAPH_SEARCHES,
        "search_context_size": _GRAPH_SEARCHES,
        "external_web_access": "LGOS has no cached-only web search",
    }
    openai_no_op_values: ClassVar[NoOps] = {
        "search_context_size": ("medium",),
        "external_web_access": (True,),
    }

    type: Literal["web_search", "web_search_2025_08_26"]


Tool = Annotated[
    FunctionTool | CustomToolSelector | WebSearchSelector, Field(discriminator="type")
]


class FunctionToolChoice(StrictModel):
    """``{"type": "function", "name": ...}``."""

    type: Literal["function"]
    name: str


class ReasoningConfig(StrictModel):
    """``reasoning``: LGOS graphs emit no reasoning items.

    A summary of any kind, and which earlier reasoning items the model sees,
    concern items the answer cannot contain: accepted. ``mode`` steers the
    model, which the graph owns: refused. ``effort`` is a generation control,
    kept for a graph that declares it and refused at decode otherwise.
    """

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "mode": GRAPH_OWNS,
        "summary": _NO_REASONING,
        "generate_summary": _NO_REASONING,
        "context": _NO_REASONING,
    }
    openai_no_op_values: ClassVar[NoOps] = {
        "summary": ("auto", "concise", "detailed"),
        "generate_summary": ("auto", "concise", "detailed"),
        "context": ("auto", "current_turn", "all_turns"),
    }

    effort: ReasoningEffort | None = None


class TextConfig(StrictModel):
    """``text``: output options; the answer is always plain text.

    ``format: {"type": "text"}`` asks for what LGOS does; any other format
    (``json_schema``, ``json_object``: structured output) is refused.
    ``verbosity: "medium"`` is OpenAI's default, asking for no more than
    omission; another verbosity steers the model, which the graph owns.
    """

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "format": "structured output is not supported",
        "verbosity": GRAPH_OWNS,
    }
    openai_no_op_values: ClassVar[NoOps] = {
        "format": ({"type": "text"},),
        "verbosity": ("medium",),
    }


class ResponseStreamOptions(StrictModel):
    """``stream_options``: LGOS never pads stream events (no obfuscation)."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "include_obfuscation": "LGOS does not add obfuscation to stream events"
    }
    openai_no_op_values: ClassVar[NoOps] = {"include_obfuscation": (False,)}


class CustomToolChoice(StrictModel):
    """``{"type": "custom", "name": ...}``: require a selected custom tool."""

    type: Literal["custom"]
    name: str


ToolChoiceParam = Annotated[
    FunctionToolChoice | CustomToolChoice, Field(discriminator="type")
]


class ResponseCreateRequest(StrictModel):
    """``POST /v1/responses`` body, limited to the fields LGOS serves."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "top_logprobs": GRAPH_OWNS,
        "max_tool_calls": GRAPH_OWNS,
        "include": "LGOS adds no web search sources or results and no logprobs",
        "prompt": "reusable prompts are not supported",
        "prompt_cache_key": _PROMPT_CACHE,
        "prompt_cache_retention": _PROMPT_CACHE,
        "prompt_cache_options": _PROMPT_CACHE,
        "service_tier": "service tiers are not supported",
        "truncation": "truncation is not supported",
        "conversation": "conversations are not stored; resend the input each turn",
        "context_management": "context management is not supported",
        "moderation": "moderation is the graph's concern",
        # Newer than LGOS's copy of OpenAI's document (the openai package's types):
        "access_programs": "access programs are not supported",
        "background_options": "background runs take no options",
        "image": "image output is not supported",
    }
    openai_no_op_values: ClassVar[NoOps] = {
        "include": entries_of(INCLUDES_NEVER_EMITTED),
        "truncation": ("disabled",),
        "service_tier": ("auto", "default"),
        "top_logprobs": (0,),
        "prompt_cache_key": hint(str, "8f14e45f-ceea-467f-a0e6-7e3f8c4b2d10"),
        "prompt_cache_retention": ("in_memory", "24h"),
        "prompt_cache_options": hint(dict, {"ttl": "30m", "mode": "implicit"}),
    }
    client_fields: ClassVar[Mapping[str, ClientField]] = {
        "client_metadata": ClientField("Codex CLI", string_map({"x": "y"}))
    }

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
    stream_options: ResponseStreamOptions | None = None
    # Generation controls: refused unless the graph declares them (decode).
    temperature: Temperature | None = None
    top_p: TopP | None = None
    max_output_tokens: ResponsesMaxOutputTokens | None = None
    reasoning: ReasoningConfig | None = None
    service_tier: Literal["auto", "default"] | None = None
    """Only its no-op values are accepted (see ``openai_no_op_values``)."""
    prompt_cache_key: str | None = None
    """A hint, accepted and echoed (see ``openai_no_op_values``)."""
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    """A hint, accepted and echoed (see ``openai_no_op_values``)."""

    def echo(self) -> dict[str, Any]:
        """Return the Response fields this request gives, as JSON.

        Every field of the request that is also a key of OpenAI's Response
        (:data:`~langgraph_openai_serve.api.responses.response_keys.RESPONSE_KEYS`):
        ``instructions``, ``metadata``, ``tools``, ``tool_choice``,
        ``user``, ``service_tier``, ``previous_response_id``, ..., ``None``
        for each one the request did not give. A field added to this model
        is echoed without further change when OpenAI's Response has it.
        """
        return self.model_dump(mode="json", include=_echoed(type(self)))


@functools.cache
def _echoed(model: type[ResponseCreateRequest]) -> set[str]:
    return set(model.model_fields).intersection(RESPONSE_KEYS)
