"""The shared reading of ``lgos_interrupt`` calls and the answers' encoding.

The Chainlit UI's use of the same code (buttons, the saved pause, resuming)
is tested in ``tests/ui/test_chainlit_interrupts.py``; the Open WebUI pipe's
dialog in ``tests/open_webui/test_lgos_pipe.py``.
"""

from __future__ import annotations

import pytest

from lgos_client.interrupts import (
    FALLBACK_QUESTION,
    INTERRUPT_FUNCTION,
    InterruptQuestion,
    answers_input,
    is_interrupt_call,
)


def test_the_function_name_is_lgos_interrupt() -> None:
    assert INTERRUPT_FUNCTION == "lgos_interrupt"
    assert is_interrupt_call({"type": "function_call", "name": "lgos_interrupt"})
    assert not is_interrupt_call({"type": "function_call", "name": "roll_dice"})
    assert not is_interrupt_call({"type": "message", "name": "lgos_interrupt"})


@pytest.mark.parametrize(
    ("arguments", "shown", "hidden"),
    [
        ("not json", f"{FALLBACK_QUESTION}\n\n`not json`", FALLBACK_QUESTION),
        ("[1]", f"{FALLBACK_QUESTION}\n\n`[1]`", FALLBACK_QUESTION),
        ("", FALLBACK_QUESTION, FALLBACK_QUESTION),
        ({"question": "Q"}, FALLBACK_QUESTION, FALLBACK_QUESTION),
    ],
)
def test_arguments_that_are_not_an_object_are_shown_only_when_asked(
    arguments: object, shown: str, hidden: str
) -> None:
    item = {"type": "function_call", "call_id": "x", "arguments": arguments}

    assert InterruptQuestion.from_call(item).question == shown
    question = InterruptQuestion.from_call(item, show_arguments=False)
    assert question.question == hidden
    assert question.call_id == "x"
    assert question.choices == ()
    assert question.accepts_text


def test_choices_must_be_a_list() -> None:
    item = {
        "call_id": "x",
        "arguments": '{"question": "Pick", "choices": "ab", "allow_other": 1}',
    }

    question = InterruptQuestion.from_call(item, show_arguments=False)

    assert question.question == "Pick"
    assert question.choices == ()
    assert question.allow_other is False  # only true itself allows it


def test_answers_are_function_call_outputs_in_their_order() -> None:
    assert answers_input({"c2": "no", "c1": " yes "}) == [
        {"type": "function_call_output", "call_id": "c2", "output": "no"},
        {"type": "function_call_output", "call_id": "c1", "output": " yes "},
    ]
    assert answers_input({}) == []
