"""Responses stream events to Open WebUI events: text, status, sources, files.

:class:`Translator` turns a streamed (or polled) run into the answer's text
and Open WebUI's ``status`` and ``source`` events; :func:`files_event` shows
a file under the answer.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lgos_client.items import answer_texts, is_answer_message, message_text
from lgos_client.stream import (
    AnswerDelta,
    ItemDone,
    StreamDecoder,
    StreamEnd,
    StreamError,
)

EventEmitter = Callable[[dict[str, Any]], Awaitable[Any]]
"""Open WebUI's ``__event_emitter__`` (and ``__event_call__``)."""


async def ignore_event(_event: dict[str, Any]) -> None:
    """Drop an event: the emitter when Open WebUI gives none."""
    return None


def status_event(description: str, *, done: bool = False) -> dict[str, Any]:
    """Return an Open WebUI ``status`` event (the line above the answer)."""
    return {
        "type": "status",
        "data": {"description": description, "done": done, "hidden": False},
    }


def source_event(url: str, title: str | None) -> dict[str, Any]:
    """Return an Open WebUI ``source`` event for one cited URL."""
    name = title or url
    return {
        "type": "source",
        "data": {
            "source": {"name": name, "url": url},
            "document": [name],
            # external: Open WebUI keeps the title as the name of a URL source
            "metadata": [{"source": url, "name": name, "external": True}],
        },
    }


Action = tuple[Literal["text"], str] | tuple[Literal["event"], dict[str, Any]]


@dataclass(slots=True)
class Translator:
    """Turns Responses stream events (as dicts) into transcript text and events.

    Only ``final_answer`` messages (or messages without a phase) reach the
    transcript; each completed commentary message becomes a ``status`` event,
    each search or server tool call one too; each ``url_citation`` annotation
    of a final message a ``source`` event (once per URL). The terminal
    Response is kept in :attr:`response`.
    """

    decoder: StreamDecoder = field(default_factory=StreamDecoder)
    sources: list[str] = field(default_factory=list)
    wrote_text: bool = False
    response: dict[str, Any] | None = None
    error: str | None = None
    _need_break: bool = False

    def _text(self, text: str) -> list[Action]:
        if not text:
            return []
        actions: list[Action] = []
        if self._need_break and self.wrote_text:
            actions.append(("text", "\n\n"))
        self._need_break = False
        self.wrote_text = True
        actions.append(("text", text))
        return actions

    def _status(self, text: str) -> list[Action]:
        return [("event", status_event(text))]

    def item_done(self, item: Mapping[str, Any]) -> list[Action]:
        """Events for one completed output item (streamed or polled)."""
        kind = item.get("type")
        if kind == "message" and item.get("phase") == "commentary":
            text = message_text(item, refusal=True).strip()
            return self._status(text) if text else []
        if kind == "message":
            self._need_break = True
            return self.citations(item)
        if kind == "web_search_call":
            action = item.get("action")
            query = action.get("query") if isinstance(action, Mapping) else None
            failed = item.get("status") == "failed"
            text = f"Searched: {query}" if query else "Searched the web"
            return self._status(text + (" (failed)" if failed else ""))
        if kind == "custom_tool_call":
            return self._status(f"Ran {item.get('name')}")
        return []

    def citations(self, item: Mapping[str, Any]) -> list[Action]:
        """Return a ``source`` event per new ``url_citation`` of a message.

        The citations are read as the Chainlit UI reads them
        (:func:`lgos_client.items.answer_texts`).
        """
        actions: list[Action] = []
        for part in answer_texts([item]):
            for citation in part.citations:
                if citation.url not in self.sources:
                    self.sources.append(citation.url)
                    actions.append(
                        ("event", source_event(citation.url, citation.title))
                    )
        return actions

    def feed(self, event: Mapping[str, Any]) -> list[Action]:
        """Translate one stream event (decoded by :class:`StreamDecoder`)."""
        update = self.decoder.feed(event)
        if isinstance(update, AnswerDelta):
            return self._text(update.text)  # refusal text included
        if isinstance(update, ItemDone):
            return self.item_done(update.item)
        if isinstance(update, StreamEnd):
            response = update.response
            self.response = dict(response) if isinstance(response, Mapping) else None
            if update.status == "failed":
                error = (self.response or {}).get("error") or {}
                self.error = str(error.get("message") or "the run failed")
        elif isinstance(update, StreamError):
            self.error = update.message or "stream error"
        return []

    def replay(self, response: Mapping[str, Any]) -> list[Action]:
        """Actions for a whole Response (a polled background run)."""
        actions: list[Action] = []
        for item in response.get("output") or ():
            if not isinstance(item, Mapping):
                continue
            if item.get("type") == "message" and is_answer_message(item):
                actions.extend(self._text(message_text(item, refusal=True)))
            actions.extend(self.item_done(item))
        return actions


TEXT_TYPES = frozenset(
    {"application/json", "application/csv", "application/xml", "application/x-ndjson"}
)
"""Media types besides ``text/*`` whose content Open WebUI's file view shows."""

SHOWN_TEXT_LIMIT = 1_000_000
"""Bytes of a text file put in its ``files`` entry at most (the chat keeps it)."""


def shown_text(mime_type: str, data: bytes) -> str | None:
    """Return the text of a file Open WebUI can show in its file view, or None.

    Text media types (``text/*``, :data:`TEXT_TYPES`) up to
    :data:`SHOWN_TEXT_LIMIT` bytes that decode as UTF-8 (a byte-order mark
    dropped); anything else (images, PDFs, archives, a large or binary file)
    has none.
    """
    kind = mime_type.lower().split(";", 1)[0].strip()
    if not (kind.startswith("text/") or kind in TEXT_TYPES):
        return None
    if len(data) > SHOWN_TEXT_LIMIT:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def files_event(name: str, mime_type: str, data: bytes) -> dict[str, Any]:
    """Open WebUI's ``files`` event showing a file under the answer.

    Open WebUI keeps the message's files with the chat (so the file is shown
    again after a reload) and draws ``image`` files inline; the content goes
    as a ``data:`` URL, since the Files service's URLs need its key. Other
    files show as a chip that opens Open WebUI's file view, whose *Content*
    tab shows ``file.data.content``: a text file's text (:func:`shown_text`)
    goes there, with its ``size`` in bytes.
    """
    url = f"data:{mime_type};base64,{base64.b64encode(data).decode()}"
    kind = "image" if mime_type.lower().startswith("image/") else "file"
    entry: dict[str, Any] = {
        "type": kind,
        "url": url,
        "name": name,
        "content_type": mime_type,
        "size": len(data),
    }
    text = shown_text(mime_type, data) if kind == "file" else None
    if text is not None:
        entry["file"] = {"data": {"content": text}}
    return {"type": "files", "data": {"files": [entry]}}
