"""MessageBuilder builds exactly what LangChain's constructors build."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import field_validator

from langgraph_openai_serve.api.responses.input_items import input_messages
from langgraph_openai_serve.api.responses.responses_request import ResponseCreateRequest
from langgraph_openai_serve.api.unvalidated_messages import (
    MessageBuilder,
    ai_message,
    human_message,
    system_message,
)

BLOCKS = [
    {"type": "text", "text": "see", "annotations": [{"type": "url_citation"}]},
    {"type": "file", "file_id": "file-1"},
]
CASES: list[tuple[MessageBuilder[Any], type[BaseMessage], dict[str, Any]]] = [
    (human_message, HumanMessage, {"content": "hi"}),
    (human_message, HumanMessage, {"content": list(BLOCKS), "name": "ann"}),
    (ai_message, AIMessage, {"content": "ok"}),
    (
        ai_message,
        AIMessage,
        {"content": list(BLOCKS), "id": "msg_1", "additional_kwargs": {"phase": "x"}},
    ),
    (system_message, SystemMessage, {"content": "be brief"}),
    (
        system_message,
        SystemMessage,
        {"content": "rules", "additional_kwargs": {"__openai_role__": "developer"}},
    ),
]


@pytest.mark.parametrize(("build", "cls", "values"), CASES)
def test_built_messages_equal_constructed_ones(
    build: MessageBuilder[Any], cls: type[BaseMessage], values: dict[str, Any]
) -> None:
    fields = {k: v for k, v in values.items() if k != "content"}
    built = build(values["content"], **fields)
    made = cls(**values)
    assert type(built) is cls
    assert built == made
    assert built.__dict__ == made.__dict__
    assert built.model_fields_set == made.model_fields_set
    assert built.model_dump() == made.model_dump()
    assert dumpd(built) == dumpd(made)
    serde = JsonPlusSerializer()
    assert serde.dumps_typed(built) == serde.dumps_typed(made)
    assert serde.loads_typed(serde.dumps_typed(built)) == made


def test_each_message_gets_its_own_containers() -> None:
    first, second = ai_message("a"), ai_message("b")
    first.additional_kwargs["x"] = 1
    first.tool_calls.append({"name": "t", "args": {}, "id": "c", "type": "tool_call"})
    assert second.additional_kwargs == {}
    assert second.tool_calls == []
    assert ai_message("c").response_metadata == {}


def test_a_class_that_validates_differently_falls_back_to_its_constructor(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Shouting(HumanMessage):
        @field_validator("content")
        @classmethod
        def _upper(cls, value: Any) -> Any:
            return value.upper() if isinstance(value, str) else value

    build = MessageBuilder(Shouting)
    with caplog.at_level(logging.WARNING):
        message = build("quiet")
    assert message.content == "QUIET"
    assert "differs from its constructor" in caplog.text


def test_decoded_conversation_equals_constructed_messages() -> None:
    request = ResponseCreateRequest.model_validate(
        {
            "model": "m",
            "instructions": "be brief",
            "input": [
                {"role": "developer", "content": "rules"},
                {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                {
                    "type": "message",
                    "role": "assistant",
                    "id": "msg_1",
                    "phase": "final_answer",
                    "content": [{"type": "output_text", "text": "hello"}],
                },
                {"role": "user", "content": "again"},
            ],
        }
    )
    assert input_messages(request) == [
        SystemMessage("be brief"),
        SystemMessage("rules", additional_kwargs={"__openai_role__": "developer"}),
        HumanMessage([{"type": "text", "text": "hi"}]),
        AIMessage(
            [
                {
                    "type": "text",
                    "text": "hello",
                    "annotations": [],
                    "id": "msg_1",
                    "phase": "final_answer",
                }
            ],
            id="msg_1",
            additional_kwargs={"phase": "final_answer"},
        ),
        HumanMessage("again"),
    ]
