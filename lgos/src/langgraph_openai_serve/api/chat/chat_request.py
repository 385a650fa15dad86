"""The accepted subset of OpenAI's ``CreateChatCompletionRequest``.

OpenAI fields LGOS does not serve — ``n``, ``logit_bias``, structured
output, the deprecated
``functions``/``function_call`` — are dropped when their value asks for
nothing: ``null``, what LGOS does anyway (``n: 1``, ``logprobs: false``,
``response_format: {"type": "text"}``) or a hint (``prompt_cache_key``);
any other value is refused (400, ``unsupported_parameter``). Names OpenAI
does not define are ``unknown_parameter``, except the named fields of
well-known clients (a replayed tool call's ``index``). See
:mod:`~langgraph_openai_serve.api.tolerance`.
Generation controls (``temperature``, ``top_p``, ``max_completion_tokens``
and ``max_tokens``, penalties, ``seed``, ``stop``, ``reasoning_effort``) are
validated against OpenAI's ranges here and refused at decode unless the graph
declares them (:mod:`~langgraph_openai_serve.api.generation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Discriminator, Field, Tag

from langgraph_openai_serve.api.generation import (
    ChatMaxTokens,
    Penalty,
    Seed,
    Stop,
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
from langgraph_openai_serve.api.tolerance import ClientField, NoOps, hint
from langgraph_openai_serve.graph.generation import ReasoningEffort

__all__ = ["ChatCompletionRequest", "ChatMessage", "FilePart", "TextPart"]


_PROMPT_CACHE = "LGOS accepts OpenAI's prompt caching hints and ignores them"
_FUNCTION_CALL = "the deprecated 'function_call' field is not supported; use 'tools'"

# Prompt caching never changes an answer: its hints are accepted.
_BREAKPOINT: NoOps = {"prompt_cache_breakpoint": ({"mode": "explicit"},)}


class TextPart(StrictModel):
    """``{"type": "text", "text": ...}``."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "prompt_cache_breakpoint": _PROMPT_CACHE
    }
    openai_no_op_values: ClassVar[NoOps] = _BREAKPOINT

    type: Literal["text"]
    text: str


class FileRef(StrictModel):
    """``file``: only ``file_id`` (no inline ``file_data`` or ``filename``)."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "file_data": "inline file data is not supported; send a Files API file_id",
        "filename": "files are named by the Files service; send a file_id",
    }

    file_id: str = Field(min_length=1, max_length=256)


class FilePart(StrictModel):
    """``{"type": "file", "file": {"file_id": ...}}``."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "prompt_cache_breakpoint": _PROMPT_CACHE
    }
    openai_no_op_values: ClassVar[NoOps] = _BREAKPOINT

    type: Literal["file"]
    file: FileRef


UserPart = Annotated[TextPart | FilePart, Field(discriminator="type")]


class FunctionCall(StrictModel):
    """The function of an assistant tool call."""

    name: str
    arguments: str


class ToolCall(StrictModel):
    """A replayed assistant ``tool_calls`` entry.

    Streamed ``tool_calls`` deltas carry an ``index``; a message rebuilt from
    them may replay it, and it asks for nothing.
    """

    client_fields: ClassVar[Mapping[str, ClientField]] = {
        "index": ClientField(
            "a client or gateway that rebuilds the message from streamed deltas",
            hint(int, 0),
        )
    }

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
    """A replayed ``assistant`` message (SDK objects carry ``audio=None``)."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "audio": "audio output is not supported",
        "function_call": "the deprecated 'function_call' is not supported; "
        "replay 'tool_calls'",
    }

    role: Literal["assistant"]
    content: str | list[TextPart] | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    refusal: str | None = None
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
    """``stream_options``: only ``include_usage`` is served (no obfuscation)."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "include_obfuscation": "LGOS does not add obfuscation to stream events"
    }
    openai_no_op_values: ClassVar[NoOps] = {"include_obfuscation": (False,)}

    include_usage: bool | None = None


class ChatCompletionRequest(StrictModel):
    """``POST /v1/chat/completions`` body, limited to the fields LGOS serves."""

    openai_not_served: ClassVar[Mapping[str, str]] = {
        "n": "one choice per request",
        "logit_bias": GRAPH_OWNS,
        "logprobs": "log probabilities are not returned",
        "top_logprobs": "log probabilities are not returned",
        "verbosity": GRAPH_OWNS,
        "response_format": "structured output is not supported",
        "modalities": "only text output is supported",
        "audio": "audio output is not supported",
        "prediction": "predicted outputs are not supported",
        "service_tier": "service tiers are not supported",
        "prompt_cache_key": _PROMPT_CACHE,
        "prompt_cache_retention": _PROMPT_CACHE,
        "prompt_cache_options": _PROMPT_CACHE,
        "moderation": "moderation is the graph's concern",
        "web_search_options": "select the web_search tool through the Responses API",
        "functions": "the deprecated 'functions' field is not supported; use 'tools'",
        "function_call": _FUNCTION_CALL,
    }
    openai_no_op_values: ClassVar[NoOps] = {
        "n": (1,),
        "logprobs": (False,),
        "top_logprobs": (0,),
        "logit_bias": ({},),
        "verbosity": ("medium",),
        "response_format": ({"type": "text"},),
        "modalities": (["text"],),
        "service_tier": ("auto", "default"),
        "prompt_cache_key": hint(str, "8f14e45f-ceea-467f-a0e6-7e3f8c4b2d10"),
        "prompt_cache_retention": ("in_memory", "24h"),
        "prompt_cache_options": hint(dict, {"ttl": "30m", "mode": "implicit"}),
    }

    model: str = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    tools: list[ChatTool] | None = None
    tool_choice: Literal["none", "auto", "required"] | ChatToolChoice | None = None
    parallel_tool_calls: bool | None = None
    metadata: Metadata | None = None
    store: bool | None = None
    safety_identifier: SafetyIdentifier | None = None
    user: str | None = None
    # Generation controls: refused unless the graph declares them (decode).
    temperature: Temperature | None = None
    top_p: TopP | None = None
    max_completion_tokens: ChatMaxTokens | None = None
    max_tokens: ChatMaxTokens | None = None
    presence_penalty: Penalty | None = None
    frequency_penalty: Penalty | None = None
    seed: Seed | None = None
    stop: Stop = None
    reasoning_effort: ReasoningEffort | None = None
    service_tier: Literal["auto", "default"] | None = None
    """Only its no-op values are accepted (see ``openai_no_op_values``); echoed."""
