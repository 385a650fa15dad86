"""Ask a paused run's questions in the chat: the question message and its buttons.

:func:`ask_next` shows the first unanswered question of the pending pause
(its choices as buttons, or the buttons put back on the question's message
in a resumed thread); :func:`record_answer` keeps an answer and marks the
question answered. Resuming the run once every question has its answer is
the app's job (:mod:`lgos_chainlit.app`).

A question looks like one: its message has a question-mark icon instead of
the avatar, its choices are buttons whose IDs start with
:data:`CHOICE_ID_PREFIX` (``public/lgos.css`` draws them as solid buttons and
hides the copy and feedback icons of question messages), and a question that
also takes typed answers gets a button for that too (:data:`WRITE_ACTION`,
"Edit plan" for a plan to review): it answers nothing, it says where to type
(:func:`prompt_typing`).

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

from typing import Any

import chainlit as cl
from chainlit.step import StepDict
from chainlit.types import ThreadDict

from lgos_chainlit.chat_state import save_chat
from lgos_chainlit.rendering import render_answered, render_question
from lgos_chainlit.session import ChatSession
from lgos_client.interrupts import EDIT_PLAN_LABEL, InterruptQuestion

__all__ = [
    "ANSWER_ACTION",
    "CHOICE_ID_PREFIX",
    "QUESTION_ICON",
    "QUESTION_KEY",
    "WRITE_ACTION",
    "WRITE_ID_PREFIX",
    "adopt_question",
    "ask_next",
    "clear_question",
    "prompt_typing",
    "record_answer",
]

QUESTION_KEY = "lgos_question"
"""User-session key of the question on screen: its call ID and message."""
ANSWER_ACTION = "lgos_answer"
"""Name of the answer buttons' action."""
WRITE_ACTION = "lgos_write"
"""Name of the "type another answer" (or "Edit plan") button's action."""
CHOICE_ID_PREFIX = "lgos-choice-"
"""Start of the answer buttons' element IDs (styled by ``public/lgos.css``)."""
WRITE_ID_PREFIX = "lgos-write-"
"""Start of the typed-answer button's element ID."""
QUESTION_ICON = "message-circle-question"
"""Lucide icon shown instead of the avatar on question messages."""
TYPING_HINT = "Type your answer in the message box below, then send it."
PLAN_EDIT_HINT = (
    "Type how the plan should change in the message box below (for example "
    "“remove 2” or “add a question about costs”), then send it."
)


async def clear_question() -> dict[str, Any] | None:
    """Remove the buttons of the question on screen; return what it showed.

    Returns:
        ``{"call_id", "message"}`` of a live question message, else ``None``.

    """
    shown = cl.user_session.get(QUESTION_KEY)
    cl.user_session.set(QUESTION_KEY, None)
    # A resumed thread's user session comes from its metadata, where the
    # message was saved as null: only a live message has buttons to remove.
    if not isinstance(shown, dict) or not isinstance(shown.get("message"), cl.Message):
        return None
    message: cl.Message = shown["message"]
    await message.remove_actions()
    message.actions = []
    return shown


async def ask_next(
    session: ChatSession, *, reminder: bool = False, history: ThreadDict | None = None
) -> None:
    """Show the first unanswered question of the pending pause.

    The question message's ID is saved before it is shown. In a resumed
    chat (``history`` given) whose question message is in the history, the
    buttons go back on that message instead of a new one.
    """
    pause = session.conversation.pending
    if pause is None:
        return
    question = pause.next_question()
    if question is None:
        return
    await clear_question()
    shown = session.shown_question
    step = _history_step(history, shown, question.call_id)
    content = render_question(
        question.question,
        position=pause.position(question.call_id),
        total=len(pause.calls),
        choices=question.choices,
        accepts_text=question.accepts_text,
        reminder=reminder and step is None,
    )
    if step is not None:
        message = _history_message(step, content)
        message.actions = _actions(pause.response_id, question, message.id)
        for action in message.actions:
            await action.send(for_id=message.id)
    else:
        message = cl.Message(content=content, metadata={"icon": QUESTION_ICON})
        message.actions = _actions(pause.response_id, question, message.id)
        session.shown_question = {"call_id": question.call_id, "message_id": message.id}
        await save_chat(session)
        await message.send()
    cl.user_session.set(QUESTION_KEY, {"call_id": question.call_id, "message": message})


def adopt_question(session: ChatSession, history: ThreadDict) -> None:
    """Make a resumed thread's question message this chat's own, sending nothing.

    Reopening a thread may connect twice, and the first connection can put
    its buttons on the question just before it ends. A click on them reaches
    the second connection, possibly before :func:`ask_next` runs there. With
    the message adopted at once, that click (or the next :func:`ask_next`)
    finds a live message: it removes those buttons, whose IDs are the same in
    every connection (see :func:`_actions`), and marks the question answered.
    """
    pause = session.conversation.pending
    question = pause.next_question() if pause is not None else None
    if pause is None or question is None:
        return
    step = _history_step(history, session.shown_question, question.call_id)
    if step is None:
        return
    message = _history_message(step, str(step.get("output") or ""))
    message.actions = _actions(pause.response_id, question, message.id)
    for action in message.actions:
        # Possibly on screen already: an update of the message must not
        # send them a second time.
        action.forId = message.id
    cl.user_session.set(QUESTION_KEY, {"call_id": question.call_id, "message": message})


def _history_message(step: StepDict, content: str) -> cl.Message:
    """Rebuild the question message ``step`` of a resumed thread (sends nothing)."""
    message = cl.Message(
        id=step.get("id"), content=content, metadata={"icon": QUESTION_ICON}
    )
    created = step.get("createdAt")
    if created:
        message.created_at = created
    message.parent_id = step.get("parentId")
    return message


def _actions(
    response_id: str, question: InterruptQuestion, message_id: str
) -> list[cl.Action]:
    """Build the question's buttons: one per choice, then one for a typed answer.

    The IDs derive from the question message's ID and the button's place, so
    every connection of a chat names the buttons on one message alike and can
    remove the ones another connection showed (Chainlit removes by ID).
    """
    payload = {"response_id": response_id, "call_id": question.call_id}
    actions = [
        cl.Action(
            id=f"{CHOICE_ID_PREFIX}{message_id}-{index}",
            name=ANSWER_ACTION,
            label=choice,
            tooltip=f"Answer “{choice}”",
            payload={**payload, "answer": choice},
        )
        for index, choice in enumerate(question.choices)
    ]
    other = question.other_label
    if other is not None:
        actions.append(
            cl.Action(
                id=f"{WRITE_ID_PREFIX}{message_id}",
                name=WRITE_ACTION,
                label=other,
                icon="pencil",
                tooltip="Type it in the message box",
                payload=payload,
            )
        )
    return actions


async def prompt_typing(session: ChatSession, payload: dict[str, Any]) -> bool:
    """Say on the question's message where to type its answer.

    The answer of the "Edit plan" (or "Type another answer") button: the
    question stays open, with its buttons, and its hint now tells the user
    to type in the message box.

    Returns:
        Whether the button belongs to the question on screen.

    """
    pause = session.conversation.pending
    question = pause.next_question() if pause is not None else None
    shown = cl.user_session.get(QUESTION_KEY)
    if (
        pause is None
        or question is None
        or payload.get("response_id") != pause.response_id
        or payload.get("call_id") != question.call_id
        or not isinstance(shown, dict)
        or shown.get("call_id") != question.call_id
        or not isinstance(shown.get("message"), cl.Message)
    ):
        return False
    message: cl.Message = shown["message"]
    message.content = render_question(
        question.question,
        position=pause.position(question.call_id),
        total=len(pause.calls),
        choices=question.choices,
        accepts_text=True,
        hint=PLAN_EDIT_HINT if question.other_label == EDIT_PLAN_LABEL else TYPING_HINT,
    )
    await message.update()
    return True


def _history_step(
    history: ThreadDict | None, shown: dict[str, str] | None, call_id: str
) -> StepDict | None:
    """Find the resumed thread's message that asked ``call_id``, if any."""
    if history is None or shown is None or shown.get("call_id") != call_id:
        return None
    for step in history.get("steps", []):
        if step.get("id") == shown.get("message_id"):
            return step
    return None


async def record_answer(
    session: ChatSession, question: InterruptQuestion, text: str
) -> bool:
    """Keep one answer, show it on the question's message, ask the next one.

    Returns:
        Whether every question of the batch now has its answer (the run can
        be resumed); ``False`` when nothing is pending.

    Raises:
        KeyError: ``question`` is not a question of the pending pause.

    """
    pause = session.conversation.pending
    if pause is None:
        return False
    pause.record(question.call_id, text)
    shown = await clear_question()
    session.shown_question = None
    if shown is not None and shown["call_id"] == question.call_id:
        message: cl.Message = shown["message"]
        message.content = render_answered(
            question.question,
            text,
            position=pause.position(question.call_id),
            total=len(pause.calls),
        )
        await message.update()
    await save_chat(session)
    if not pause.complete:
        await ask_next(session)
        return False
    return True
