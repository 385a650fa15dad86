"""Ask a paused run's questions in the chat: the question message and its buttons.

:func:`ask_next` shows the first unanswered question of the pending pause
(its choices as buttons, or the buttons put back on the question's message
in a resumed thread); :func:`record_answer` keeps an answer and marks the
question answered. Resuming the run once every question has its answer is
the app's job (:mod:`lgos_chainlit.app`).

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

from typing import Any

import chainlit as cl
from chainlit.step import StepDict
from chainlit.types import ThreadDict

from lgos_chainlit.chat_state import save_chat
from lgos_chainlit.interrupts import InterruptQuestion
from lgos_chainlit.rendering import render_answered, render_question
from lgos_chainlit.session import ChatSession

__all__ = [
    "ANSWER_ACTION",
    "QUESTION_KEY",
    "ask_next",
    "clear_question",
    "record_answer",
]

QUESTION_KEY = "lgos_question"
"""User-session key of the question on screen: its call ID and message."""
ANSWER_ACTION = "lgos_answer"
"""Name of the answer buttons' action."""


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
    actions = [
        cl.Action(
            name=ANSWER_ACTION,
            label=choice,
            tooltip=f"Answer “{choice}”",
            payload={
                "response_id": pause.response_id,
                "call_id": question.call_id,
                "answer": choice,
            },
        )
        for choice in question.choices
    ]
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
        message = cl.Message(id=step.get("id"), content=content, actions=actions)
        created = step.get("createdAt")
        if created:
            message.created_at = created
        message.parent_id = step.get("parentId")
        for action in actions:
            await action.send(for_id=message.id)
    else:
        message = cl.Message(content=content, actions=actions)
        session.shown_question = {"call_id": question.call_id, "message_id": message.id}
        await save_chat(session)
        await message.send()
    cl.user_session.set(QUESTION_KEY, {"call_id": question.call_id, "message": message})


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
