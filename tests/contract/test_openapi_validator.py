"""Tests of the contract helper itself (tests/contract/openapi.py).

The samples are hand-written in the shape OpenAI documents; every "rejected"
test proves the helper can fail.

What the document (components/schemas) requires -- the encoder must follow it
("required" = key must be present; "nullable" = value may be JSON null; every
schema below is open, i.e. extra keys are allowed):

Response (allOf ModelResponseProperties + ResponseProperties + own props)
    required: id, object="response", created_at (number), model (string),
        output (array of OutputItem), tools (array, NOT nullable),
        tool_choice ("none"|"auto"|"required"|{...}, NOT nullable),
        parallel_tool_calls (bool, NOT nullable), error*, incomplete_details*,
        instructions*, metadata*, temperature*, top_p*   (* = must be present,
        may be null)
    NOT required: status (enum completed|failed|in_progress|cancelled|queued|
        incomplete -- send it anyway), text (not nullable), usage, user,
        prompt_cache_options (not nullable in the document, but null on
        OpenAI's wire: the helper accepts null, see NULL_ON_THE_WIRE);
        optional & nullable: completed_at, output_text,
        reasoning, max_output_tokens, max_tool_calls, previous_response_id,
        background, service_tier, truncation, top_logprobs, prompt,
        conversation, moderation, safety_identifier, prompt_cache_key,
        prompt_cache_retention
    error, when not null: {code: ResponseErrorCode enum (e.g. "server_error"),
        message: string}, both required.
OutputMessage: required id, type="message", role="assistant", content,
    status (in_progress|completed|incomplete); phase optional nullable.
    Its content items are OutputTextContent / RefusalContent, and
    OutputTextContent requires type="output_text", text, annotations AND
    logprobs (array, may be empty).  (The separate ResponseOutputText schema
    only requires type, text, annotations, but Response/events don't use it.)
ResponseTextDeltaEvent / ResponseTextDoneEvent ("response.output_text.delta"
    / ".done"): required type, item_id, output_index, content_index,
    delta (resp. text), sequence_number AND logprobs (array, may be empty).
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from tests.contract import openapi
from tests.contract.openapi import errors, schema, strip_extensions, validate

CREATED = 1_735_689_600

# ---------------------------------------------------------------- samples

MODEL: dict[str, Any] = {
    "id": "demo-agent",
    "object": "model",
    "created": CREATED,
    "owned_by": "lgos",
}

OUTPUT_TEXT = {
    "type": "output_text",
    "text": "Hello! How can I help?",
    "annotations": [],
    "logprobs": [],
}

OUTPUT_MESSAGE = {
    "type": "message",
    "id": "msg_abc123",
    "status": "completed",
    "role": "assistant",
    "content": [OUTPUT_TEXT],
}

# Minimal: exactly the required keys plus status.
RESPONSE_MINIMAL: dict[str, Any] = {
    "id": "resp_abc123",
    "object": "response",
    "created_at": CREATED,
    "status": "completed",
    "model": "demo-agent",
    "output": [OUTPUT_MESSAGE],
    "error": None,
    "incomplete_details": None,
    "instructions": None,
    "metadata": None,
    "temperature": None,
    "top_p": None,
    "tool_choice": "auto",
    "tools": [],
    "parallel_tool_calls": True,
}

USAGE = {
    "input_tokens": 12,
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens": 7,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 19,
}

# What OpenAI itself sends (more optional fields, several of them null).
RESPONSE_FULL: dict[str, Any] = {
    **RESPONSE_MINIMAL,
    "completed_at": CREATED + 2,
    "background": False,
    "max_output_tokens": None,
    "max_tool_calls": None,
    "previous_response_id": None,
    "reasoning": {"effort": None, "summary": None},
    "service_tier": "default",
    "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "top_logprobs": 0,
    "truncation": "disabled",
    "usage": USAGE,
    "user": "user-1",
    "metadata": {"thread_id": "t-1"},
    "temperature": 1.0,
    "top_p": 1.0,
    "tool_choice": {"type": "function", "name": "get_weather"},
}

TEXT_DELTA_EVENT = {
    "type": "response.output_text.delta",
    "item_id": "msg_abc123",
    "output_index": 0,
    "content_index": 0,
    "delta": "Hel",
    "sequence_number": 4,
    "logprobs": [],
}

CHAT_COMPLETION = {
    "id": "chatcmpl-abc123",
    "object": "chat.completion",
    "created": CREATED,
    "model": "demo-agent",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Hello! How can I help?",
                "refusal": None,
                "annotations": [],
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
    "service_tier": "default",
}


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-abc123",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "demo-agent",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def without(obj: dict[str, Any], *path: str | int) -> dict[str, Any]:
    """Deep copy of obj with the key at ``path`` removed."""
    out = copy.deepcopy(obj)
    parent: Any = out
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    return out


def with_(obj: dict[str, Any], value: Any, *path: str | int) -> dict[str, Any]:
    """Deep copy of obj with the value at ``path`` replaced."""
    out = copy.deepcopy(obj)
    parent: Any = out
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return out


def rejected(schema_name: str, instance: object) -> str:
    """Assert validation fails; return the AssertionError text."""
    with pytest.raises(AssertionError) as info:
        validate(schema_name, instance)
    assert errors(schema_name, instance), "errors() disagrees with validate()"
    return str(info.value)


# ---------------------------------------------------------------- Model


def test_model_valid() -> None:
    validate("Model", MODEL)
    assert errors("Model", MODEL) == []


def test_model_missing_owned_by_rejected() -> None:
    message = rejected("Model", without(MODEL, "owned_by"))
    assert "'owned_by' is a required property" in message
    assert "$:" in message  # JSON path of the failing object


def test_model_created_must_be_integer() -> None:
    message = rejected("Model", with_(MODEL, "2025-01-01", "created"))
    assert "$.created" in message


def test_list_models_with_lgos_extension() -> None:
    listing = {
        "object": "list",
        "data": [
            {**MODEL, "lgos": {"graph": "demo", "streaming": True}},
            {**MODEL, "id": "other", "lgos": {"graph": "other"}},
        ],
    }
    validate("ListModelsResponse", listing, extensions=("lgos",))
    validate("ListModelsResponse", listing)  # schemas are open: extra keys ok
    rejected("ListModelsResponse", {"object": "list"})
    rejected("ListModelsResponse", without(listing, "data", 1, "owned_by"))


# ---------------------------------------------------------------- extensions


def test_strip_extensions_is_deep_and_non_mutating() -> None:
    original = {
        "object": "list",
        "lgos": 1,
        "data": [{**MODEL, "lgos": {"x": 1}}, {"nested": {"lgos": 2, "keep": 3}}],
    }
    snapshot = copy.deepcopy(original)
    stripped = strip_extensions(original)
    assert stripped == {
        "object": "list",
        "data": [MODEL, {"nested": {"keep": 3}}],
    }
    assert original == snapshot
    assert strip_extensions({"a": 1, "b": 2}, keys=("a", "b")) == {}
    assert strip_extensions({"a": 1, "b": 2}, keys="a") == {"b": 2}


def test_extensions_argument_strips_before_validating() -> None:
    # CompoundFilter has additionalProperties: false, so an extension key
    # really is a violation unless it is stripped first.
    compound = {
        "type": "and",
        "filters": [{"type": "eq", "key": "k", "value": "v", "lgos": True}],
        "lgos": {"why": "extension"},
    }
    message = rejected("CompoundFilter", compound)
    assert "lgos" in message
    validate("CompoundFilter", compound, extensions=("lgos",))
    assert errors("CompoundFilter", compound, extensions=("lgos",)) == []


# ---------------------------------------------------------------- Response


def test_response_minimal_valid() -> None:
    validate("Response", RESPONSE_MINIMAL)


def test_response_full_valid() -> None:
    validate("Response", RESPONSE_FULL)


@pytest.mark.parametrize(
    "field",
    [
        "id",
        "object",
        "created_at",
        "model",
        "output",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "error",
        "incomplete_details",
        "instructions",
        "metadata",
        "temperature",
        "top_p",
    ],
)
def test_response_required_fields(field: str) -> None:
    message = rejected("Response", without(RESPONSE_MINIMAL, field))
    assert f"'{field}' is a required property" in message


@pytest.mark.parametrize(
    "field",
    [
        "error",
        "incomplete_details",
        "instructions",
        "metadata",
        "temperature",
        "top_p",
        "completed_at",
        "reasoning",
        "max_output_tokens",
        "output_text",
        "usage",
        "user",
        "prompt_cache_options",
    ],
)
def test_response_nullable_fields(field: str) -> None:
    validate("Response", with_(RESPONSE_FULL, None, field))


@pytest.mark.parametrize(
    "field",
    [
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "status",
        "model",
        "output",
        "text",
    ],
)
def test_response_non_nullable_fields(field: str) -> None:
    rejected("Response", with_(RESPONSE_FULL, None, field))


def test_response_optional_fields_may_be_absent() -> None:
    for field in ("status", "usage", "text", "completed_at", "reasoning"):
        validate("Response", without(RESPONSE_FULL, field))


def test_response_bad_status_rejected() -> None:
    message = rejected("Response", with_(RESPONSE_MINIMAL, "done", "status"))
    assert "$.status" in message


def test_response_error_object_shape() -> None:
    failed = {
        **RESPONSE_MINIMAL,
        "status": "failed",
        "output": [],
        "error": {"code": "server_error", "message": "graph crashed"},
    }
    validate("Response", failed)
    rejected("Response", with_(failed, "graph_crashed", "error", "code"))
    rejected("Response", without(failed, "error", "message"))


def test_output_text_requires_logprobs_inside_response() -> None:
    instance = without(RESPONSE_MINIMAL, "output", 0, "content", 0, "logprobs")
    message = rejected("Response", instance)
    # Readable: the path into the output and the discriminator-chosen branch.
    assert "$.output[0].content[0]" in message
    assert "'logprobs' is a required property" in message
    # ResponseOutputText (a different, unused-by-Response schema) does not.
    validate("ResponseOutputText", without(OUTPUT_TEXT, "logprobs"))


def test_output_message_shapes() -> None:
    validate("OutputMessage", OUTPUT_MESSAGE)
    validate("OutputItem", OUTPUT_MESSAGE)
    rejected("OutputMessage", with_(OUTPUT_MESSAGE, "user", "role"))
    rejected("OutputMessage", without(OUTPUT_MESSAGE, "status"))
    rejected("OutputMessage", without(OUTPUT_MESSAGE, "id"))


def test_output_text_with_annotations() -> None:
    annotated = {
        **OUTPUT_TEXT,
        "annotations": [
            {
                "type": "url_citation",
                "url": "https://example.com",
                "start_index": 0,
                "end_index": 5,
                "title": "Example",
            },
            {
                "type": "file_citation",
                "file_id": "file-1",
                "index": 3,
                "filename": "a.txt",
            },
        ],
    }
    validate("OutputTextContent", annotated)
    message = rejected(
        "OutputTextContent", without(annotated, "annotations", 0, "title")
    )
    assert "$.annotations[0]" in message
    assert "'title' is a required property" in message


# ---------------------------------------------------------------- stream events


def test_text_delta_event_valid() -> None:
    validate("ResponseStreamEvent", TEXT_DELTA_EVENT)
    validate("ResponseTextDeltaEvent", TEXT_DELTA_EVENT)


def test_text_delta_event_wrong_type_rejected() -> None:
    bad = {**TEXT_DELTA_EVENT, "type": "response.text.delta"}
    message = rejected("ResponseStreamEvent", bad)
    assert "matches no branch" in message
    assert "response.output_text.delta" in message  # listed as allowed
    rejected("ResponseTextDeltaEvent", bad)


def test_text_delta_event_requires_logprobs() -> None:
    message = rejected("ResponseStreamEvent", without(TEXT_DELTA_EVENT, "logprobs"))
    assert "ResponseTextDeltaEvent" in message
    assert "'logprobs' is a required property" in message


def test_text_delta_event_wrong_field_type_reports_branch_error() -> None:
    message = rejected("ResponseStreamEvent", with_(TEXT_DELTA_EVENT, 5, "delta"))
    assert "$.delta: 5 is not of type 'string'" in message


def test_full_response_stream_sequence_valid() -> None:
    in_progress = {
        **RESPONSE_MINIMAL,
        "status": "in_progress",
        "output": [],
    }
    partial_message = {**OUTPUT_MESSAGE, "status": "in_progress", "content": []}
    empty_part = {**OUTPUT_TEXT, "text": ""}
    ids = {"item_id": "msg_abc123", "output_index": 0, "content_index": 0}
    events = [
        {"type": "response.created", "response": in_progress},
        {"type": "response.in_progress", "response": in_progress},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": partial_message,
        },
        {"type": "response.content_part.added", **ids, "part": empty_part},
        {"type": "response.output_text.delta", **ids, "delta": "Hello", "logprobs": []},
        {
            "type": "response.output_text.done",
            **ids,
            "text": OUTPUT_TEXT["text"],
            "logprobs": [],
        },
        {"type": "response.content_part.done", **ids, "part": OUTPUT_TEXT},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": OUTPUT_MESSAGE,
        },
        {"type": "response.completed", "response": RESPONSE_FULL},
    ]
    for number, event in enumerate(events):
        validate("ResponseStreamEvent", {**event, "sequence_number": number})


def test_failure_events_valid() -> None:
    failed = {
        **RESPONSE_MINIMAL,
        "status": "failed",
        "output": [],
        "error": {"code": "server_error", "message": "boom"},
    }
    validate(
        "ResponseStreamEvent",
        {"type": "response.failed", "response": failed, "sequence_number": 3},
    )
    error_event = {
        "type": "error",
        "code": None,
        "message": "boom",
        "param": None,
        "sequence_number": 4,
    }
    validate("ResponseStreamEvent", error_event)
    validate("ResponseErrorEvent", error_event)
    rejected("ResponseErrorEvent", without(error_event, "param"))
    rejected("ResponseErrorEvent", without(error_event, "sequence_number"))


def test_event_sequence_number_required() -> None:
    event = {"type": "response.created", "response": RESPONSE_MINIMAL}
    message = rejected("ResponseStreamEvent", event)
    assert "'sequence_number' is a required property" in message


def test_content_part_requires_logprobs() -> None:
    event = {
        "type": "response.content_part.added",
        "item_id": "m",
        "output_index": 0,
        "content_index": 0,
        "sequence_number": 1,
        "part": without(OUTPUT_TEXT, "logprobs"),
    }
    message = rejected("ResponseStreamEvent", event)
    assert "$.part" in message


# ---------------------------------------------------------------- chat completions


def test_chat_completion_valid() -> None:
    validate("CreateChatCompletionResponse", CHAT_COMPLETION)
    minimal = without(without(CHAT_COMPLETION, "usage"), "service_tier")
    validate("CreateChatCompletionResponse", minimal)


@pytest.mark.parametrize("field", ["index", "message", "logprobs", "finish_reason"])
def test_chat_completion_choice_required(field: str) -> None:
    message = rejected(
        "CreateChatCompletionResponse", without(CHAT_COMPLETION, "choices", 0, field)
    )
    assert f"'{field}' is a required property" in message


@pytest.mark.parametrize("field", ["role", "content", "refusal"])
def test_chat_completion_message_required(field: str) -> None:
    rejected(
        "CreateChatCompletionResponse",
        without(CHAT_COMPLETION, "choices", 0, "message", field),
    )


def test_chat_completion_finish_reason_not_nullable() -> None:
    rejected(
        "CreateChatCompletionResponse",
        with_(CHAT_COMPLETION, None, "choices", 0, "finish_reason"),
    )


def test_chat_completion_tool_calls_valid() -> None:
    tool_call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": "{}"},
    }
    body = with_(CHAT_COMPLETION, [tool_call], "choices", 0, "message", "tool_calls")
    body = with_(body, None, "choices", 0, "message", "content")
    body = with_(body, "tool_calls", "choices", 0, "finish_reason")
    validate("CreateChatCompletionResponse", body)
    rejected(
        "CreateChatCompletionResponse",
        without(body, "choices", 0, "message", "tool_calls", 0, "id"),
    )


def test_chat_stream_chunks_valid() -> None:
    validate(
        "CreateChatCompletionStreamResponse",
        chunk({"role": "assistant", "content": "", "refusal": None}),
    )
    validate("CreateChatCompletionStreamResponse", chunk({"content": "Hel"}))
    validate("CreateChatCompletionStreamResponse", chunk({}, "stop"))
    with_logprobs = chunk({"content": "x"})
    with_logprobs["choices"][0]["logprobs"] = None
    validate("CreateChatCompletionStreamResponse", with_logprobs)
    usage_chunk = {
        **chunk({}),
        "choices": [],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    }
    validate("CreateChatCompletionStreamResponse", usage_chunk)
    # nullable: true + $ref (OpenAPI 3.0 style) -> null allowed
    validate("CreateChatCompletionStreamResponse", {**chunk({}), "usage": None})


def test_chat_stream_chunk_rejections() -> None:
    # nullable: true + enum -> null allowed, other strings still rejected
    message = rejected("CreateChatCompletionStreamResponse", chunk({}, "finished"))
    assert "$.choices[0].finish_reason" in message
    # finish_reason must be present (null) on every chunk
    rejected(
        "CreateChatCompletionStreamResponse",
        without(chunk({"content": "x"}), "choices", 0, "finish_reason"),
    )
    rejected(
        "CreateChatCompletionStreamResponse",
        without(chunk({"content": "x"}), "choices", 0, "delta"),
    )
    rejected(
        "CreateChatCompletionStreamResponse",
        with_(chunk({}), "chat.completion", "object"),
    )
    rejected("CreateChatCompletionStreamResponse", {**chunk({}), "usage": {}})


# ---------------------------------------------------------------- errors


def test_error_response_valid() -> None:
    body = {
        "error": {
            "message": "Model 'x' not found",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    validate("ErrorResponse", body)
    validate("ErrorResponse", with_(body, "model_not_found", "error", "code"))
    validate("ErrorResponse", with_(body, "model", "error", "param"))


@pytest.mark.parametrize("field", ["message", "type", "param", "code"])
def test_error_response_required(field: str) -> None:
    body = {"error": {"message": "m", "type": "t", "param": None, "code": None}}
    message = rejected("ErrorResponse", without(body, "error", field))
    assert "$.error" in message


def test_error_response_message_not_nullable() -> None:
    rejected(
        "ErrorResponse",
        {"error": {"message": None, "type": "t", "param": None, "code": None}},
    )


# ---------------------------------------------------------------- normalisation


def test_null_on_the_wire_corrects_only_what_the_document_forbids() -> None:
    # Each corrected key is non-nullable in the raw document and Optional in
    # the openai SDK's model of the same object.
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from openai.types.responses import Response

    sdk = {
        "Response": Response,
        "CreateChatCompletionResponse": ChatCompletion,
        "CreateChatCompletionStreamResponse": ChatCompletionChunk,
    }
    raw = json.loads(openapi.CONTRACT_PATH.read_text(encoding="utf-8"))
    registry = Registry().with_resource(
        openapi.BASE_URI, DRAFT202012.create_resource(raw)
    )
    for schema_name, names in openapi.NULL_ON_THE_WIRE.items():
        for name in names:
            field = sdk[schema_name].model_fields[name]
            assert not field.is_required() and field.default is None, name
            node = openapi._properties_holding(
                raw["components"]["schemas"][schema_name],
                name,
                raw["components"]["schemas"],
            )[name]
            # Raw OpenAPI 3.0 nullability is not JSON Schema: check both ways.
            assert node.get("nullable") is not True, name
            if "$ref" in node:
                node = {"$ref": openapi.BASE_URI + node["$ref"]}
            raw_validator = Draft202012Validator(node, registry=registry)
            assert not raw_validator.is_valid(None), name
    validate("CreateChatCompletionResponse", {**CHAT_COMPLETION, "usage": None})
    rejected(
        "CreateChatCompletionResponse", {**CHAT_COMPLETION, "system_fingerprint": 5}
    )


def test_nullable_allof_member_becomes_nullable_parent() -> None:
    tool_choice = schema("RunObject")["properties"]["tool_choice"]
    assert {"type": "null"} in tool_choice["anyOf"]
    assert "nullable" not in json.dumps(schema("RunObject"))


def test_no_nullable_keyword_left() -> None:
    doc = openapi._document()
    assert '"nullable"' not in json.dumps(doc)
    assert "$recursiveRef" not in json.dumps(doc)


def test_boolean_exclusive_minimum_converted() -> None:
    validate("FineTuneDPOHyperparameters", {"beta": 1})  # True would reject 1
    validate("FineTuneDPOHyperparameters", {"beta": 0.5})
    validate("FineTuneDPOHyperparameters", {"beta": "auto"})
    rejected("FineTuneDPOHyperparameters", {"beta": 0})
    rejected("FineTuneDPOHyperparameters", {"beta": 3})


def test_recursive_ref_resolves_to_enclosing_component() -> None:
    leaf = {"type": "eq", "key": "a", "value": 1}
    nested = {"type": "or", "filters": [leaf, {"type": "and", "filters": [leaf]}]}
    validate("CompoundFilter", nested)
    bad = {"type": "or", "filters": [{"type": "and", "filters": [{"type": "eq"}]}]}
    rejected("CompoundFilter", bad)


def _raw_validator(schema_name: str) -> Draft202012Validator:
    raw = json.loads(openapi.CONTRACT_PATH.read_text(encoding="utf-8"))
    registry = Registry().with_resource(
        openapi.BASE_URI, DRAFT202012.create_resource(raw)
    )
    root = {"$ref": f"{openapi.BASE_URI}#/components/schemas/{schema_name}"}
    return Draft202012Validator(root, registry=registry)


def test_discriminated_oneof_is_anyof() -> None:
    # A plain structured input message is both an EasyInputMessage and an
    # Item/InputMessage: the raw oneOf rejects it, our anyOf accepts it.
    message = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "hi"}],
    }
    raw_errors = list(_raw_validator("InputItem").iter_errors(message))
    assert any("is valid under each of" in e.message for e in raw_errors)
    validate("InputItem", message)
    # Response.instructions may be such a list.
    validate("Response", {**RESPONSE_MINIMAL, "instructions": [message]})
    # Still a real union: garbage is rejected.
    rejected("InputItem", {"type": "message", "role": "robot", "content": 5})


def test_openapi_only_keywords_are_harmless() -> None:
    # format: unixtime / uri / date are annotations, not assertions.
    validate("Model", {**MODEL, "shutdown_date": "not-a-date"})
    validate("Model", {**MODEL, "shutdown_date": None})
    assert "discriminator" in schema("OutputItem")
    assert "anyOf" in schema("OutputItem")


# ---------------------------------------------------------------- API details


def test_unknown_schema_name() -> None:
    with pytest.raises(KeyError, match="close matches"):
        validate("Respons", {})
    assert "Response" in openapi.schema_names()


def test_errors_lists_every_violation_with_path() -> None:
    bad = {"id": 1, "object": "model", "created": "x"}
    found = errors("Model", bad)
    assert len(found) == 3, found
    joined = "\n".join(found)
    assert "$.id: 1 is not of type 'string'" in joined
    assert "$.created" in joined
    assert "'owned_by' is a required property" in joined


def test_validators_are_cached_and_fast() -> None:
    assert openapi._validator("ResponseStreamEvent") is openapi._validator(
        "ResponseStreamEvent"
    )
    validate("ResponseStreamEvent", TEXT_DELTA_EVENT)  # warm up
    start = time.perf_counter()
    for _ in range(2000):
        validate("ResponseStreamEvent", TEXT_DELTA_EVENT)
    # ~0.1 ms each on a laptop; the bound only catches pathological regressions.
    assert time.perf_counter() - start < 10


def test_nullable_wrapper_reports_the_real_error_not_the_null_branch() -> None:
    instance = with_(RESPONSE_FULL, {"effort": "bogus"}, "reasoning")
    message = rejected("Response", instance)
    assert "$.reasoning.effort: 'bogus' is not one of" in message
    assert "is not of type 'null'" not in message
    # Same leaf as jsonschema's own best_match descent for this plain union.
    (error,) = openapi._validator("Response").iter_errors(instance)
    assert best_match([error]).json_path == "$.reasoning.effort"
