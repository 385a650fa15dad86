"""Decode a streamed Responses run into typed updates each chat UI renders.

A streamed request (``stream=True``) yields server-sent events; a
:class:`StreamDecoder` reads them one at a time (SDK event models or plain
dicts alike) and returns what each one means for a chat, as a
:data:`StreamUpdate`:

- :class:`AnswerDelta`: text (or refusal text) of the final answer grew;
- :class:`CommentaryDelta`: a ``phase == "commentary"`` message grew
  (commentary never reaches the answer);
- :class:`ItemAdded` / :class:`ItemDone`: an output item started / finished;
- :class:`StreamEnd`: the terminal event (``response.completed``,
  ``response.incomplete`` or ``response.failed``) with its Response;
- :class:`StreamError`: an ``error`` event.

The phase of a message is announced by its ``response.output_item.added``
event, before its text deltas (which carry only the ``item_id``), so the
decoder remembers each message's phase. Rendering stays in each UI: the
Chainlit UI turns updates into steps and messages, the Open WebUI pipe into
transcript text and status events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lgos_client.items import output_item_to_input

__all__ = [
    "TERMINAL_EVENTS",
    "AnswerDelta",
    "CommentaryDelta",
    "FinishedStatus",
    "ItemAdded",
    "ItemDone",
    "StreamDecoder",
    "StreamEnd",
    "StreamError",
    "StreamUpdate",
]

FinishedStatus = Literal["completed", "incomplete", "failed"]
"""The statuses of a response that ended (not rejected, not cut off)."""

TERMINAL_EVENTS: dict[str, FinishedStatus] = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}
"""The stream events that end a run, with the status each one ends it in."""


@dataclass(frozen=True, slots=True)
class AnswerDelta:
    """A piece of the final answer: ``output_text`` (or ``refusal``) text."""

    text: str
    refusal: bool = False


@dataclass(frozen=True, slots=True)
class CommentaryDelta:
    """A commentary message grew; ``text`` is all of it so far."""

    item_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ItemAdded:
    """An output item started (``response.output_item.added``), JSON-ready."""

    item: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ItemDone:
    """An output item finished (``response.output_item.done``), JSON-ready.

    ``phase`` is the message's phase as its ``added`` event announced it
    (``None`` for other items and messages without a phase).
    """

    item: dict[str, Any]
    phase: str | None


@dataclass(frozen=True, slots=True)
class StreamEnd:
    """The terminal event: how the run ended, and its Response unchanged.

    ``response`` is what the event carried (an SDK ``Response`` or a dict).
    """

    status: FinishedStatus
    response: Any


@dataclass(frozen=True, slots=True)
class StreamError:
    """An ``error`` event: its ``message`` and ``code`` (``None`` when absent)."""

    message: str | None
    code: str | None


StreamUpdate = (
    AnswerDelta | CommentaryDelta | ItemAdded | ItemDone | StreamEnd | StreamError
)


def _event_field(event: object, name: str) -> Any:
    """Read a field of an event given as an SDK model or as a mapping."""
    if isinstance(event, Mapping):
        return event.get(name)
    return getattr(event, name, None)


@dataclass(slots=True)
class StreamDecoder:
    """The state of one stream: each message's phase, each commentary's text.

    Attributes:
        phases: The ``phase`` of each message item seen, by item ID.
        commentary: The text so far of each commentary message, by item ID.

    """

    phases: dict[str, str | None] = field(default_factory=dict)
    commentary: dict[str, str] = field(default_factory=dict)

    def feed(self, event: object) -> StreamUpdate | None:
        """Decode one event (an SDK event model or a dict).

        Returns:
            What the event means, or ``None`` for an event no chat shows
            (``response.created``, a refusal delta of commentary, …).

        """
        kind = _event_field(event, "type")
        if kind == "response.output_item.added":
            item = output_item_to_input(_event_field(event, "item") or {})
            if item.get("type") == "message":
                phase = item.get("phase")
                self.phases[str(item.get("id"))] = (
                    phase if isinstance(phase, str) else None
                )
            return ItemAdded(item)
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            item_id = str(_event_field(event, "item_id"))
            delta = str(_event_field(event, "delta") or "")
            refusal = kind == "response.refusal.delta"
            if self.phases.get(item_id) == "commentary":
                if refusal:
                    return None
                text = self.commentary.get(item_id, "") + delta
                self.commentary[item_id] = text
                return CommentaryDelta(item_id, text)
            return AnswerDelta(delta, refusal=refusal)
        if kind == "response.output_item.done":
            item = output_item_to_input(_event_field(event, "item") or {})
            return ItemDone(item, self.phases.get(str(item.get("id") or "")))
        if isinstance(kind, str) and kind in TERMINAL_EVENTS:
            return StreamEnd(TERMINAL_EVENTS[kind], _event_field(event, "response"))
        if kind == "error":
            message = _event_field(event, "message")
            code = _event_field(event, "code")
            return StreamError(
                str(message) if message else None,
                code if isinstance(code, str) else None,
            )
        return None
