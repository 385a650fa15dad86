"""Interrupt questions: how Open WebUI asks them, and the answers read back.

The questions are read by lgos_client.interrupts (InterruptQuestion, as the
Chainlit UI reads them); what is here is how Open WebUI asks them: its
``request:user_input`` dialog, or a note in the transcript answered by the
next message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lgos_client.interrupts import InterruptQuestion


def questions_of(calls: Sequence[Mapping[str, Any]]) -> list[InterruptQuestion]:
    """Read a pause's ``lgos_interrupt`` calls as questions, in their order.

    Arguments that are not a JSON object give the fallback question alone
    (the Chainlit UI also shows them as code).
    """
    return [InterruptQuestion.from_call(call, show_arguments=False) for call in calls]


def card_text(question: str) -> str:
    """Return a question's Markdown as Open WebUI's question card shows it.

    The card shows plain text, so a block quote (the request the question
    is about, as ``> …`` lines) would show its ``>`` markers: each quoted
    line becomes the line in quotation marks instead. Other text is kept.
    """
    lines = []
    for line in question.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(">"):
            quoted = stripped[1:].strip()
            line = f"“{quoted}”" if quoted else ""
        lines.append(line)
    return "\n".join(lines)


def user_input_request(questions: Sequence[InterruptQuestion]) -> dict[str, Any]:
    """Open WebUI's ``request:user_input`` event asking ``questions`` at once."""
    many = len(questions) > 1
    return {
        "type": "request:user_input",
        "data": {
            "questions": [
                {
                    "id": f"q{index}",
                    "header": f"Question {index + 1} of {len(questions)}"
                    if many
                    else "Question",
                    "question": card_text(question.question),
                    "options": [
                        {"label": choice, "description": f"Answer {choice!r}"}
                        for choice in question.choices
                    ],
                    "allow_other": question.accepts_text,
                }
                for index, question in enumerate(questions)
            ],
            "allow_other": any(question.accepts_text for question in questions),
            "timeout_ms": 240_000,
        },
    }


def answers_from_user_input(
    questions: Sequence[InterruptQuestion], reply: object
) -> dict[str, str] | None:
    """Return the answers (by call ID) of a ``request:user_input`` reply.

    ``None`` when the user cancelled, the dialog timed out, the browser left,
    or an answer is missing or not allowed.
    """
    if not isinstance(reply, Mapping) or reply.get("status") != "answered":
        return None
    given = reply.get("answers")
    if not isinstance(given, Mapping):
        return None
    answers: dict[str, str] = {}
    for index, question in enumerate(questions):
        answer = given.get(f"q{index}")
        if not isinstance(answer, Mapping):
            return None
        if answer.get("type") == "option":
            text = str(answer.get("label") or "")
        else:
            text = str(answer.get("text") or "")
        value = question.answer_for(text)
        if value is None:
            return None
        answers[question.call_id] = value
    return answers


def pause_note(questions: Sequence[InterruptQuestion]) -> str:
    """Return the transcript text of a question left unanswered."""
    lines = []
    for question in questions:
        lines.append(question.question)
        if question.choices:
            options = ", ".join(f"**{choice}**" for choice in question.choices)
            more = " or your own answer" if question.accepts_text else ""
            lines.append(f"\nAnswer {options}{more}.")
    lines.append("\n*Reply in this chat to answer; the graph is waiting.*")
    return "\n".join(lines)
