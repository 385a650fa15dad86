"""Our request models and OpenAI's request schemas name the same fields.

For every request model that mirrors an OpenAI schema, each property the
OpenAPI document defines is either served (a model field) or listed in the
model's ``openai_not_served`` table, so a client sending it gets
``unsupported_parameter`` (or, for ``null`` and no-op values, an answer)
rather than ``unknown_parameter`` (a field may be both when only its
accepted values are served, kept to be echoed). Conversely, nothing is listed as an
unserved OpenAI field that OpenAI does not define, and a named client's
field (``client_fields``, such as Codex CLI's ``client_metadata``) is one
OpenAI does not define: once OpenAI's document adds it, it moves to the
OpenAI tables.
"""

from __future__ import annotations

from typing import Any

import pytest

from langgraph_openai_serve.api.chat import chat_request as chat
from langgraph_openai_serve.api.request_fields import StrictModel
from langgraph_openai_serve.api.responses import responses_request as responses
from tests.contract.openapi import schema

_REF = "#/components/schemas/"


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str):
        return schema(ref.rsplit("/", 1)[-1])
    return node


def property_names(node: dict[str, Any]) -> set[str]:
    """The object properties a schema node defines, through refs and unions."""
    node = _resolve(node)
    names = set(node.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for member in node.get(key, []):
            names |= property_names(member)
    return names


def _property(node: dict[str, Any], name: str) -> dict[str, Any]:
    node = _resolve(node)
    if name in node.get("properties", {}):
        return node["properties"][name]
    for key in ("allOf", "anyOf", "oneOf"):
        for member in node.get(key, []):
            if name in property_names(member):
                return _property(member, name)
    raise KeyError(name)


def openai_fields(path: str) -> set[str]:
    """``"Schema"`` or ``"Schema.property"``: the properties OpenAI defines there."""
    name, *inner = path.split(".")
    node: dict[str, Any] = schema(name)
    for part in inner:
        node = _property(node, part)
    return property_names(node)


# (our model, the OpenAI schemas it mirrors)
MIRRORS: list[tuple[type[StrictModel], tuple[str, ...]]] = [
    (responses.ResponseCreateRequest, ("CreateResponse",)),
    (responses.TextConfig, ("ResponseTextParam",)),
    (responses.ReasoningConfig, ("Reasoning",)),
    (responses.ResponseStreamOptions, ("ResponseStreamOptions",)),
    (responses.MessageItem, ("EasyInputMessage", "InputMessage", "OutputMessage")),
    (responses.InputText, ("InputTextContent",)),
    (responses.OutputText, ("OutputTextContent",)),
    (responses.InputFile, ("InputFileContent",)),
    (responses.FunctionCallItem, ("FunctionToolCall",)),
    (responses.FunctionCallOutputItem, ("FunctionCallOutputItemParam",)),
    (responses.CustomToolCallItem, ("CustomToolCall",)),
    (responses.CustomToolCallOutputItem, ("CustomToolCallOutput",)),
    (responses.WebSearchCallItem, ("WebSearchToolCall",)),
    (responses.FunctionTool, ("FunctionTool",)),
    (responses.CustomToolSelector, ("CustomToolParam",)),
    (responses.WebSearchSelector, ("WebSearchTool",)),
    (responses.FunctionToolChoice, ("ToolChoiceFunction",)),
    (responses.CustomToolChoice, ("ToolChoiceCustom",)),
    (chat.ChatCompletionRequest, ("CreateChatCompletionRequest",)),
    (chat.StreamOptions, ("ChatCompletionStreamOptions",)),
    (
        chat.SystemMessageParam,
        ("ChatCompletionRequestSystemMessage", "ChatCompletionRequestDeveloperMessage"),
    ),
    (chat.UserMessageParam, ("ChatCompletionRequestUserMessage",)),
    (chat.AssistantMessageParam, ("ChatCompletionRequestAssistantMessage",)),
    (chat.ToolMessageParam, ("ChatCompletionRequestToolMessage",)),
    (chat.TextPart, ("ChatCompletionRequestMessageContentPartText",)),
    (chat.FilePart, ("ChatCompletionRequestMessageContentPartFile",)),
    (chat.FileRef, ("ChatCompletionRequestMessageContentPartFile.file",)),
    (chat.ToolCall, ("ChatCompletionMessageToolCall",)),
    (chat.ChatTool, ("ChatCompletionTool",)),
    (chat.FunctionDefinition, ("FunctionObject",)),
    (chat.ChatToolChoice, ("ChatCompletionNamedToolChoice",)),
]

# OpenAI fields newer than the copy of OpenAI's document in ../shared/contracts:
# the newest openai package defines them (checked below), so they are listed as
# not served rather than refused as unknown.
NEWER_THAN_THE_COPY = {
    (responses.ResponseCreateRequest, "access_programs"),
    (responses.ResponseCreateRequest, "background_options"),
    (responses.ResponseCreateRequest, "image"),
}


# Fields we serve that OpenAI's schema for the mirrored object does not list.
OUR_ADDITIONS = {
    # Chat Completions returns message.annotations; replayed SDK messages carry it.
    (chat.AssistantMessageParam, "annotations"),
    # The Python SDK's stream helper serializes parsed=None on output text.
    (responses.OutputText, "parsed"),
    # LGOS's own custom call and output items carry status; replays send it back.
    (responses.CustomToolCallItem, "status"),
    (responses.CustomToolCallOutputItem, "status"),
}


@pytest.mark.parametrize(
    ("model", "sources"), MIRRORS, ids=[model.__name__ for model, _ in MIRRORS]
)
def test_every_openai_field_is_served_or_named_unsupported(
    model: type[StrictModel], sources: tuple[str, ...]
) -> None:
    defined = set().union(*(openai_fields(source) for source in sources))
    defined |= {name for mirror, name in NEWER_THAN_THE_COPY if mirror is model}
    served = set(model.model_fields)
    unserved = set(model.openai_not_served)
    assert defined - served - unserved == set(), "OpenAI fields we would call unknown"
    assert unserved - defined == set(), "listed as OpenAI fields, not defined by OpenAI"
    # Both only for a field accepted with its no-op values alone, which the
    # model keeps to echo them (service_tier: "auto").
    both = unserved & served
    assert all(model.openai_no_op_values.get(name) for name in both), both
    extra = {name for name in served - defined if (model, name) not in OUR_ADDITIONS}
    assert extra == set(), "served fields OpenAI does not define here"
    for name, values in model.openai_no_op_values.items():
        assert name in unserved and values, name
    clients = set(model.client_fields)
    assert clients & (defined | served | unserved) == set(), "not client-only"


def test_fields_newer_than_the_copy_are_in_the_openai_package() -> None:
    from openai.types.responses.response_create_params import (
        ResponseCreateParamsBase,
    )

    newer = {name for _, name in NEWER_THAN_THE_COPY}
    assert newer <= set(ResponseCreateParamsBase.__annotations__)
    assert newer.isdisjoint(openai_fields("CreateResponse")), "now in the copy"
