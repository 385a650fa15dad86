"""lgos_client.items: output items as both chat UIs read them."""

from typing import Any

import pytest
from openai.types.responses import ResponseOutputMessage

from lgos_client.items import (
    AnswerText,
    UrlCitation,
    answer_texts,
    is_answer_message,
    message_phase,
    message_text,
    output_item_to_input,
    refusal_text,
)


def message_item(item_id: str, text: str, phase: str | None = "final_answer") -> Any:
    """A completed assistant message item, as LGOS emits it."""
    content = [{"type": "output_text", "text": text, "annotations": []}]
    item = {"id": item_id, "type": "message", "role": "assistant"}
    item |= {"status": "completed", "content": content}
    return item if phase is None else {**item, "phase": phase}


def test_output_item_to_input_dumps_sdk_models_without_nulls() -> None:
    item = ResponseOutputMessage.model_validate(message_item("msg_1", "hi"))

    assert output_item_to_input(item) == message_item("msg_1", "hi")
    assert output_item_to_input({"type": "x"}) == {"type": "x"}
    with pytest.raises(TypeError):
        output_item_to_input(42)


def test_the_answer_is_final_answer_messages_and_messages_without_a_phase() -> None:
    commentary = message_item("c", "Thinking", phase="commentary")
    final = message_item("a", "Hi")
    plain = message_item("p", "!", phase=None)

    assert message_phase(commentary) == "commentary"
    assert message_phase(plain) is None
    assert [is_answer_message(i) for i in (commentary, final, plain)] == [
        False,
        True,
        True,
    ]
    assert not is_answer_message({"type": "function_call", "name": "f"})
    assert [part.text for part in answer_texts([commentary, final, plain])] == [
        "Hi",
        "!",
    ]


def test_message_text_joins_output_text_and_refusals_only_when_asked() -> None:
    item = {
        "type": "message",
        "content": [
            {"type": "output_text", "text": "Sorry: "},
            {"type": "refusal", "refusal": "no."},
            "junk",
            {"type": "output_text", "text": 3},
        ],
    }

    assert message_text(item) == "Sorry: "
    assert message_text(item, refusal=True) == "Sorry: no."
    assert message_text({"type": "message"}) == ""
    assert refusal_text([item]) == "no."


def test_answer_texts_keep_usable_url_citations() -> None:
    good = {
        "type": "url_citation",
        "url": "https://x",
        "title": "",
        "start_index": 3,
        "end_index": 5,
    }
    bad = {"type": "url_citation", "url": "https://y", "start_index": "3"}
    item = message_item("a", "Hi [1]")
    item["content"][0]["annotations"] = [good, bad, "junk"]

    assert answer_texts([item]) == [
        AnswerText("Hi [1]", (UrlCitation("https://x", "https://x", 3, 5),))
    ]
