"""Interrupts in the UI's conversation logic: parsing, pausing, resuming.

Pure parts (:mod:`lgos_client.interrupts`) are tested directly; the pause
and resume flow of :class:`Conversation` runs against the demo API
in-process (offline model), so LGOS itself checks every request, including
the ledger replayed after a paused turn finished.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import AsyncOpenAI

from lgos_chainlit.ledger import Conversation
from lgos_chainlit.responses_request import build_request
from lgos_chainlit.turn_listener import TurnListener
from lgos_client.interrupts import (
    FALLBACK_QUESTION,
    InterruptQuestion,
    PendingPause,
    carried_items,
    interrupt_calls,
)

pytestmark = pytest.mark.anyio

PARALLEL = {"lgos_settings": '{"parallel_review":true}'}


def call(call_id: str, arguments: Any) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": "lgos_interrupt",
        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        "status": "completed",
    }


# --- parsing ---------------------------------------------------------------


def test_question_with_choices_and_other() -> None:
    question = InterruptQuestion.from_call(
        call(
            "c1",
            {
                "question": "Refund?",
                "choices": ["approve", "reject", "approve", "", 3, True],
                "allow_other": True,
                "reviewer": "manager",
            },
        )
    )
    assert question.call_id == "c1"
    assert question.question == "Refund?"
    assert question.choices == ("approve", "reject", "3")
    assert question.allow_other and question.accepts_text
    assert question.payload["reviewer"] == "manager"
    assert question.answer_for(" APPROVE ") == "approve"
    assert question.answer_for("Only half") == "Only half"
    assert question.answer_for("   ") is None


def test_choices_only_and_free_text_only() -> None:
    strict = InterruptQuestion.from_call(
        call("c1", {"question": "Pick", "choices": ["Start research", "Answer now"]})
    )
    assert not strict.accepts_text
    assert strict.answer_for("start research") == "Start research"
    assert strict.answer_for("something else") is None
    # No choices: any text answers, whatever allow_other says.
    open_question = InterruptQuestion.from_call(
        call("c2", {"question": "Why?", "allow_other": False})
    )
    assert open_question.choices == ()
    assert open_question.accepts_text
    assert open_question.answer_for("Because") == "Because"


@pytest.mark.parametrize(
    ("arguments", "question"),
    [
        ("not json", f"{FALLBACK_QUESTION}\n\n`not json`"),
        ('["a list"]', f'{FALLBACK_QUESTION}\n\n`["a list"]`'),
        ("", FALLBACK_QUESTION),
        ({"choices": ["yes"], "allow_other": True}, FALLBACK_QUESTION),
        ({"question": 42}, FALLBACK_QUESTION),
    ],
)
def test_malformed_payloads_still_ask(arguments: Any, question: str) -> None:
    parsed = InterruptQuestion.from_call(call("c1", arguments))
    assert parsed.question == question
    assert parsed.accepts_text


def test_only_interrupt_calls_are_picked_and_none_are_carried() -> None:
    items = [
        {"type": "message", "role": "assistant", "phase": "commentary", "content": []},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {
            "type": "function_call",
            "call_id": "f1",
            "name": "roll_dice",
            "arguments": "{}",
        },
        call("c1", {"question": "Q"}),
    ]
    assert [c["call_id"] for c in interrupt_calls(items)] == ["c1"]
    assert [i["type"] for i in carried_items(items)] == ["message", "web_search_call"]


# --- the pause and the resume request ---------------------------------------


def pause() -> PendingPause:
    return PendingPause(
        response_id="resp_lg_1",
        calls=[call("c1", {"question": "A?"}), call("c2", {"question": "B?"})],
        metadata={"lgos_settings": '{"parallel_review":true}'},
        tools=[{"type": "web_search"}],
        mark=2,
        carried=[{"type": "web_search_call", "id": "ws_1", "status": "completed"}],
    )


def test_answers_are_collected_then_sent_in_call_order() -> None:
    pending = pause()
    assert pending.next_question() is not None
    assert pending.next_question().call_id == "c1"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="no answer for c1, c2"):
        pending.resume_input()
    pending.record("c2", "no")
    assert pending.next_question().call_id == "c1"  # type: ignore[union-attr]
    assert not pending.complete
    pending.record("c1", "yes")
    assert pending.complete and pending.next_question() is None
    assert pending.position("c2") == 2
    with pytest.raises(KeyError):
        pending.record("c3", "x")
    assert pending.resume_input() == [
        {"type": "function_call_output", "call_id": "c1", "output": "yes"},
        {"type": "function_call_output", "call_id": "c2", "output": "no"},
    ]
    assert build_request(
        model="approval",
        input=pending.resume_input(),
        metadata=pending.metadata,
        tools=pending.tools,
        previous_response_id=pending.response_id,
    ) == {
        "model": "approval",
        "previous_response_id": "resp_lg_1",
        "input": pending.resume_input(),
        "stream": True,
        "store": False,
        "metadata": {"lgos_settings": '{"parallel_review":true}'},
        "tools": [{"type": "web_search"}],
    }


def test_pause_round_trips_through_json() -> None:
    pending = pause()
    pending.record("c1", "yes")
    data = json.loads(json.dumps(pending.to_json()))
    restored = PendingPause.from_json(data)
    assert restored == pending
    # Unusable data gives no pause (never a half-built request).
    assert PendingPause.from_json(None) is None
    assert PendingPause.from_json({**data, "version": 2}) is None
    assert PendingPause.from_json({**data, "calls": []}) is None
    assert PendingPause.from_json({**data, "calls": [{"type": "message"}]}) is None
    assert PendingPause.from_json({**data, "mark": "2"}) is None
    stale = PendingPause.from_json({**data, "answers": {"c9": "x", "c2": 3}})
    assert stale is not None and stale.answers == {}


def test_conversation_state_round_trips() -> None:
    conversation = Conversation(
        model="approval",
        items=[
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
        ],
        pending=pause(),
    )
    data = json.loads(json.dumps(conversation.to_json()))
    restored = Conversation.from_json(data, model="approval")
    assert restored == conversation
    # Another model's ledger is never replayed; a pause past the ledger is dropped.
    assert Conversation.from_json(data, model="chat") == Conversation(model="chat")
    short = {**data, "items": data["items"][:2]}
    assert Conversation.from_json(short, model="approval").pending is None


# --- against the demo API ----------------------------------------------------


@pytest.fixture
def client(demo_client: AsyncOpenAI) -> AsyncOpenAI:
    """The OpenAI SDK on the in-process offline demo (root conftest)."""
    return demo_client


class Seen(TurnListener):
    def __init__(self) -> None:
        self.statuses: list[str] = []
        self.text = ""

    async def on_text(self, text: str) -> None:
        self.text += text

    async def on_response(self, result: Any) -> None:
        self.statuses.append("paused" if result.paused else result.status)


async def test_pause_resume_then_an_ordinary_turn(client: AsyncOpenAI) -> None:
    conversation = Conversation(model="approval")
    seen = Seen()
    paused = await conversation.ask(client, "Refund order 42", listener=seen)
    assert paused.paused and paused.response_id
    pending = conversation.pending
    assert pending is not None
    assert conversation.items == [{"role": "user", "content": "Refund order 42"}]
    [question] = pending.questions
    assert question.choices == ("approve", "reject")
    with pytest.raises(RuntimeError):
        await conversation.ask(client, "another turn")
    with pytest.raises(ValueError):
        await conversation.resume(client)

    pending.record(question.call_id, "approve")
    done = await conversation.resume(client, listener=seen)
    assert done.status == "completed" and not done.paused
    assert conversation.pending is None
    assert "**Approved.**" in seen.text
    assert seen.statuses == ["paused", "completed"]
    # The ledger holds the user turn and the answer, no interrupt call.
    assert [i.get("type", "message") for i in conversation.items] == [
        "message",
        "message",
    ]
    assert not interrupt_calls(conversation.items)

    # A later turn replays that ledger; LGOS accepts it and pauses again.
    again = await conversation.ask(client, "Refund order 43")
    assert again.paused
    assert conversation.pending is not None and conversation.pending.mark == 2


async def test_parallel_interrupts_are_answered_in_one_resume(
    client: AsyncOpenAI,
) -> None:
    conversation = Conversation(model="approval")
    paused = await conversation.ask(client, "Refund order 42", metadata=PARALLEL)
    pending = conversation.pending
    assert paused.paused and pending is not None
    assert pending.metadata == PARALLEL
    reviewers = [q.payload["reviewer"] for q in pending.questions]
    assert sorted(reviewers) == ["finance", "manager"]
    for question in pending.questions:
        pending.record(question.call_id, f"{question.payload['reviewer']} says go")
    seen = Seen()
    done = await conversation.resume(client, listener=seen)
    assert done.status == "completed"
    assert "finance: “finance says go”" in seen.text
    assert "manager: “manager says go”" in seen.text


async def test_a_stale_pause_is_dropped_with_its_turn(client: AsyncOpenAI) -> None:
    conversation = Conversation(model="approval")
    await conversation.ask(client, "Refund order 42")
    pending = conversation.pending
    assert pending is not None
    saved = pending.to_json()
    pending.record(pending.call_ids[0], "approve")
    await conversation.resume(client)
    assert len(conversation.items) == 2

    # Replaying the same (now finished) pause conflicts: the turn is removed.
    stale = Conversation.from_json(
        {
            "version": 1,
            "model": "approval",
            "items": [
                *conversation.items,
                {"role": "user", "content": "Refund order 42"},
            ],
            "pending": {**saved, "mark": 2, "answers": {pending.call_ids[0]: "x"}},
        },
        model="approval",
    )
    assert stale.pending is not None
    result = await stale.resume(client)
    assert result.status == "error"
    assert result.http_status == 409
    assert result.error_code == "interrupt_state_conflict"
    assert not result.retryable
    assert stale.pending is None
    assert len(stale.items) == 2
