"""Responses output items, read the same way by both chat UIs.

An output item of a Response (``response.output``, or the ``item`` of an
``output_item.added``/``done`` stream event) arrives as an SDK pydantic model
or, in the Open WebUI pipe, as a dict. :func:`output_item_to_input` turns it
into the JSON-ready dict the client ledger replays unchanged as ``input``.

The final answer is told from commentary by a message's ``phase`` (OpenAI's
Responses ``phase`` field, which LGOS sets on every message it emits):
``final_answer`` messages, and messages without a phase, are the answer;
``commentary`` messages are progress, never part of the answer.
:func:`answer_texts` and :func:`refusal_text` read the answer of a list of
items; :func:`message_text` reads one message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

__all__ = [
    "AnswerText",
    "UrlCitation",
    "answer_texts",
    "is_answer_message",
    "message_phase",
    "message_text",
    "output_item_to_input",
    "refusal_text",
]


def output_item_to_input(item: object) -> dict[str, Any]:
    """Turn one ``response.output`` item into a ledger entry, unchanged.

    Args:
        item: An SDK output item (a pydantic model) or a mapping.

    Returns:
        The item as a JSON-ready dict (``None`` fields left out of a model;
        a mapping is copied as it is).

    Raises:
        TypeError: ``item`` is neither a mapping nor a pydantic model.

    """
    if isinstance(item, Mapping):
        return dict(item)
    if isinstance(item, BaseModel):
        return item.model_dump(mode="json", exclude_none=True)
    raise TypeError(f"cannot replay output item {item!r}")


def message_phase(item: Mapping[str, Any]) -> str | None:
    """Return the ``phase`` of a message item (``None`` when absent)."""
    phase = item.get("phase")
    return phase if isinstance(phase, str) else None


def is_answer_message(item: Mapping[str, Any]) -> bool:
    """Whether ``item`` is a message of the final answer.

    A ``message`` item (an item without ``type`` counts as one) whose
    ``phase`` is ``final_answer`` or absent; commentary is not.
    """
    return item.get("type", "message") == "message" and message_phase(item) in (
        None,
        "final_answer",
    )


def _item_content_parts(item: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = item.get("content")
    if not isinstance(content, list):
        return []
    return [part for part in content if isinstance(part, Mapping)]


def message_text(item: Mapping[str, Any], *, refusal: bool = False) -> str:
    """Join the text parts of a message item, in order ('' when it has none).

    Args:
        item: A message item, JSON-ready.
        refusal: Also join the ``refusal`` parts (as the Open WebUI pipe
            shows a refusal in the transcript); by default only the
            ``output_text`` parts count.

    """
    texts = []
    for part in _item_content_parts(item):
        kind = part.get("type")
        if kind == "output_text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif refusal and kind == "refusal" and isinstance(part.get("refusal"), str):
            texts.append(part["refusal"])
    return "".join(texts)


@dataclass(frozen=True, slots=True)
class UrlCitation:
    """A ``url_citation`` annotation; ``end_index`` is inclusive (OpenAI's rule)."""

    url: str
    title: str
    start_index: int
    end_index: int

    @classmethod
    def from_annotation(cls, annotation: Mapping[str, Any]) -> UrlCitation | None:
        """Read an annotation dict; ``None`` unless it is a usable url_citation.

        Usable: a non-empty ``url`` and integer ``start_index``/``end_index``;
        a missing or empty ``title`` becomes the URL.
        """
        if annotation.get("type") != "url_citation":
            return None
        url, start, end = (
            annotation.get("url"),
            annotation.get("start_index"),
            annotation.get("end_index"),
        )
        if not isinstance(url, str) or not url:
            return None
        if not isinstance(start, int) or not isinstance(end, int):
            return None
        title = annotation.get("title")
        return cls(url, title if isinstance(title, str) and title else url, start, end)


@dataclass(frozen=True, slots=True)
class AnswerText:
    """One ``output_text`` part of an answer, with its citations."""

    text: str
    citations: tuple[UrlCitation, ...] = ()


def answer_texts(items: Iterable[Mapping[str, Any]]) -> list[AnswerText]:
    """Return the answer's ``output_text`` parts with their ``url_citation``s.

    Only messages of the final answer count (see :func:`is_answer_message`);
    commentary is left out, and so are refusals.
    """
    texts = []
    for item in items:
        if not is_answer_message(item):
            continue
        for part in _item_content_parts(item):
            if part.get("type") != "output_text" or not isinstance(
                part.get("text"), str
            ):
                continue
            annotations = part.get("annotations")
            citations = tuple(
                citation
                for annotation in (annotations if isinstance(annotations, list) else [])
                if isinstance(annotation, Mapping)
                and (citation := UrlCitation.from_annotation(annotation)) is not None
            )
            texts.append(AnswerText(part["text"], citations))
    return texts


def refusal_text(items: Iterable[Mapping[str, Any]]) -> str:
    """Join the ``refusal`` parts of the answer messages ('' when none)."""
    return "".join(
        part["refusal"]
        for item in items
        if is_answer_message(item)
        for part in _item_content_parts(item)
        if part.get("type") == "refusal" and isinstance(part.get("refusal"), str)
    )
