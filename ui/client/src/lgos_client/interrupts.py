"""Interrupt questions a paused graph asks, and the answers.

A graph that calls LangGraph's ``interrupt()`` pauses; LGOS ends the
Response with one ``function_call`` named ``lgos_interrupt``
(:data:`INTERRUPT_FUNCTION`) per pending interrupt, whose ``arguments`` are
the interrupt payload as JSON::

    {"question": "...", "choices": ["approve", "reject"], "allow_other": true}

The client asks the user, then sends ONE resume request answering every
call of the batch (:func:`answers_input` encodes the answers)::

    responses.create(model=..., previous_response_id=<paused Response id>,
                     input=[{"type": "function_call_output",
                             "call_id": <exact call id>, "output": <answer>}, ...],
                     stream=True, metadata=<the same>, tools=<the same>)

:class:`InterruptQuestion` is one call read for display (malformed
arguments still give a question that accepts any text);
:class:`PendingPause` holds everything needed to rebuild the resume request
identically (the Chainlit UI persists it before the user is asked, so a
reloaded page can answer). Interrupt calls are not client functions: they
never enter the replayed conversation ledger (:func:`carried_items`).

How a question is shown (Chainlit buttons, Open WebUI's question dialog) is
each UI's own; this module is the shared reading of the payload, the typed
answer's rules and the answer encoding. It imports only the standard library.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EDIT_PLAN_LABEL",
    "FALLBACK_QUESTION",
    "INTERRUPT_FUNCTION",
    "OTHER_ANSWER_LABEL",
    "InterruptQuestion",
    "PendingPause",
    "answers_input",
    "carried_items",
    "interrupt_calls",
    "is_interrupt_call",
]

INTERRUPT_FUNCTION = "lgos_interrupt"
"""The ``function_call`` name LGOS gives a pending interrupt (the server's
``INTERRUPT_FUNCTION_NAME`` in ``langgraph_openai_serve.api.responses.interrupts``;
docs/how-to/interrupts.md)."""

FALLBACK_QUESTION = "The graph paused and is waiting for your answer."
"""The question shown when the payload has no ``question`` string."""

OTHER_ANSWER_LABEL = "Type another answer"
"""Label of the button for a typed answer when the payload names none."""
EDIT_PLAN_LABEL = "Edit plan"
"""Label of that button when the payload carries a ``plan`` to review."""

_PAUSE_VERSION = 1


def is_interrupt_call(item: Mapping[str, Any]) -> bool:
    """Whether an output item is an ``lgos_interrupt`` function call."""
    return item.get("type") == "function_call" and item.get("name") == (
        INTERRUPT_FUNCTION
    )


def interrupt_calls(items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return the ``lgos_interrupt`` calls among output items, unchanged."""
    return [dict(item) for item in items if is_interrupt_call(item)]


def _interrupt_text(value: object) -> str | None:
    """``value`` when it is a string with more than white space, else ``None``."""
    if isinstance(value, str) and value.strip():
        return value
    return None


@dataclass(frozen=True, slots=True)
class InterruptQuestion:
    """One ``lgos_interrupt`` call, read for the user.

    Attributes:
        call_id: The call ID its answer must repeat exactly.
        question: Markdown shown to the user.
        choices: Answers offered as buttons (strings, in order, no repeats).
        allow_other: Whether the payload allows an answer outside ``choices``.
        payload: The parsed arguments (``{}`` when they are not a JSON
            object); keys other than the three above are kept for display.

    """

    call_id: str
    question: str
    choices: tuple[str, ...] = ()
    allow_other: bool = False
    payload: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_call(
        cls, call: Mapping[str, Any], *, show_arguments: bool = True
    ) -> InterruptQuestion:
        """Read a call; malformed arguments still give an answerable question.

        Args:
            call: An ``lgos_interrupt`` ``function_call`` item (a mapping with
                ``call_id`` and ``arguments``, a JSON string).
            show_arguments: Whether arguments that are not a JSON object are
                shown after :data:`FALLBACK_QUESTION` (as inline code); the
                Open WebUI pipe shows the fallback alone.

        Returns:
            The question. Arguments that are not a JSON object (or not a
            string) give :data:`FALLBACK_QUESTION` with no choices; a payload
            without a ``question`` string gives it too. Either accepts any
            text. ``choices`` keeps the strings and numbers of a ``choices``
            list, as strings, without blanks or repeats.

        """
        raw = call.get("arguments")
        arguments = raw if isinstance(raw, str) else ""
        try:
            payload = json.loads(arguments) if arguments else {}
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            text = _interrupt_text(arguments) if show_arguments else None
            return cls(
                call_id=str(call.get("call_id", "")),
                question=f"{FALLBACK_QUESTION}\n\n`{text}`"
                if text
                else FALLBACK_QUESTION,
            )
        choices: list[str] = []
        raw_choices = payload.get("choices")
        if isinstance(raw_choices, list):
            for choice in raw_choices:
                if isinstance(choice, str | int | float) and not isinstance(
                    choice, bool
                ):
                    label = str(choice)
                    if label.strip() and label not in choices:
                        choices.append(label)
        return cls(
            call_id=str(call.get("call_id", "")),
            question=_interrupt_text(payload.get("question")) or FALLBACK_QUESTION,
            choices=tuple(choices),
            allow_other=payload.get("allow_other") is True,
            payload=payload,
        )

    @property
    def accepts_text(self) -> bool:
        """Whether a typed answer is allowed (``allow_other``, or no choices)."""
        return self.allow_other or not self.choices

    @property
    def other_label(self) -> str | None:
        """Label of a button offering a typed answer next to the choices.

        ``None`` when there are no choices (typing is the only way) or a
        typed answer is not allowed. The payload's ``other_label`` string
        names it; else a payload with a ``plan`` list (a plan to review)
        gets "Edit plan", any other "Type another answer".
        """
        if not (self.choices and self.allow_other):
            return None
        label = _interrupt_text(self.payload.get("other_label"))
        if label is not None:
            return " ".join(label.split())
        if isinstance(self.payload.get("plan"), list):
            return EDIT_PLAN_LABEL
        return OTHER_ANSWER_LABEL

    def answer_for(self, text: str) -> str | None:
        """Return the answer a typed ``text`` gives (``None``: not allowed).

        A text equal to a choice (ignoring case and outer spaces) answers with
        that choice exactly; any other non-blank text is sent unchanged when
        :attr:`accepts_text`.
        """
        stripped = text.strip()
        for choice in self.choices:
            if stripped.casefold() == choice.strip().casefold():
                return choice
        if self.accepts_text and stripped:
            return text
        return None


@dataclass(slots=True)
class PendingPause:
    """A paused run waiting for answers: enough to resume it identically.

    Attributes:
        response_id: The paused Response's ID (``previous_response_id``).
        calls: The ``lgos_interrupt`` items exactly as received.
        metadata: The paused request's metadata (``lgos_settings`` included),
            sent again unchanged: LGOS does not remember settings.
        tools: The paused request's ``tools``, sent again unchanged.
        mark: Ledger length before the paused turn's user message; the turn
            is removed from there if the run cannot go on.
        carried: Output items of the paused Responses other than function
            calls (commentary, searches), appended to the ledger with the
            final answer so the conversation stays replayable.
        answers: Answers given so far, by call ID.

    """

    response_id: str
    calls: list[dict[str, Any]]
    metadata: dict[str, str] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)
    mark: int = 0
    carried: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)

    @property
    def questions(self) -> list[InterruptQuestion]:
        """Every call as a question, in the order LGOS sent them."""
        return [InterruptQuestion.from_call(call) for call in self.calls]

    @property
    def call_ids(self) -> list[str]:
        """The call IDs of the batch, in order."""
        return [str(call.get("call_id", "")) for call in self.calls]

    def next_question(self) -> InterruptQuestion | None:
        """Return the first question without an answer (``None``: all have one)."""
        for question in self.questions:
            if question.call_id not in self.answers:
                return question
        return None

    def position(self, call_id: str) -> int:
        """1-based position of a call in the batch (0 when unknown)."""
        ids = self.call_ids
        return ids.index(call_id) + 1 if call_id in ids else 0

    @property
    def complete(self) -> bool:
        """Whether every call of the batch has an answer."""
        return all(call_id in self.answers for call_id in self.call_ids)

    def record(self, call_id: str, answer: str) -> None:
        """Keep the answer to one call of the batch.

        Raises:
            KeyError: ``call_id`` is not a call of this batch.

        """
        if call_id not in self.call_ids:
            raise KeyError(call_id)
        self.answers[call_id] = answer

    def resume_input(self) -> list[dict[str, str]]:
        """One ``function_call_output`` per call, in the batch's order.

        Raises:
            ValueError: Some call has no answer yet.

        """
        missing = [c for c in self.call_ids if c not in self.answers]
        if missing:
            raise ValueError(f"no answer for {', '.join(missing)}")
        return answers_input({c: self.answers[c] for c in self.call_ids})

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict (for the thread's metadata)."""
        return {
            "version": _PAUSE_VERSION,
            "response_id": self.response_id,
            "calls": [dict(call) for call in self.calls],
            "metadata": dict(self.metadata),
            "tools": [dict(tool) for tool in self.tools],
            "mark": self.mark,
            "carried": [dict(item) for item in self.carried],
            "answers": dict(self.answers),
        }

    @classmethod
    def from_json(cls, data: object) -> PendingPause | None:
        """Read :meth:`to_json`'s output; ``None`` when it is not usable."""
        if not isinstance(data, Mapping) or data.get("version") != _PAUSE_VERSION:
            return None
        response_id = data.get("response_id")
        calls = data.get("calls")
        if not isinstance(response_id, str) or not isinstance(calls, list) or not calls:
            return None
        if not all(isinstance(c, Mapping) and is_interrupt_call(c) for c in calls):
            return None
        metadata = data.get("metadata") or {}
        tools = data.get("tools") or []
        carried = data.get("carried") or []
        answers = data.get("answers") or {}
        mark = data.get("mark")
        if not (
            isinstance(metadata, Mapping)
            and isinstance(tools, list)
            and isinstance(carried, list)
            and isinstance(answers, Mapping)
            and isinstance(mark, int)
        ):
            return None
        pause = cls(
            response_id=response_id,
            calls=[dict(c) for c in calls],
            metadata={str(k): str(v) for k, v in metadata.items()},
            tools=[dict(t) for t in tools if isinstance(t, Mapping)],
            mark=mark,
            carried=[dict(i) for i in carried if isinstance(i, Mapping)],
        )
        ids = set(pause.call_ids)
        pause.answers = {
            str(k): v for k, v in answers.items() if k in ids and isinstance(v, str)
        }
        return pause


def answers_input(answers: Mapping[str, str]) -> list[dict[str, str]]:
    """Encode interrupt answers as the resume request's ``input`` items.

    Args:
        answers: The answer text by call ID, in the batch's order (the order
            LGOS sent the ``lgos_interrupt`` calls in).

    Returns:
        One ``{"type": "function_call_output", "call_id": ..., "output":
        ...}`` per answer, in that order; the call ID is repeated exactly, the
        answer sent unchanged (LGOS resumes the interrupt with that string).

    """
    return [
        {"type": "function_call_output", "call_id": call_id, "output": answer}
        for call_id, answer in answers.items()
    ]


def carried_items(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Output items of a paused Response that belong in the ledger later.

    Function calls are left out: the ``lgos_interrupt`` calls are answered by
    the resume request, not replayed, and a client call next to them would
    have no output.
    """
    return [dict(item) for item in items if item.get("type") != "function_call"]
