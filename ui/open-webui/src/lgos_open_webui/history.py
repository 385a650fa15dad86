"""The chat's ledger: Open WebUI's history plus the stored output items.

Open WebUI keeps only the visible text of each answer, so every completed
answer's output items (commentary, searches, the answer with its
annotations) are stored under a hash of the text shown, per chat, in a small
SQLite file (:class:`StateStore`), and replayed unchanged when that text
comes back in the history (:func:`ledger_input`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lgos_client.ledger import answer_key


def content_text(content: object) -> str:
    """Return the text of an Open WebUI message's ``content`` (its text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text") or "")
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return ""


# Open WebUI 0.12.4 prefixes a user message that had files with a list of
# them (for its own built-in file tools); the graphs get the files as
# input_file parts instead.
_FILE_CONTEXT = re.compile(r"\A\s*<attached_files>.*?</attached_files>\s*", re.S)


def strip_file_context(text: str) -> str:
    """Remove Open WebUI's ``<attached_files>`` preamble from a user text."""
    return _FILE_CONTEXT.sub("", text, count=1)


def default_state_path() -> Path:
    """Return the ledger's default file, under Open WebUI's ``DATA_DIR``."""
    return Path(os.environ.get("DATA_DIR") or ".") / "lgos" / "ledger.sqlite3"


class StateStore:
    """Per chat: each answer's output items and a pending pause, in SQLite."""

    def __init__(self, path: Path) -> None:
        """Open (and create) the store at ``path``."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS answers (chat_id TEXT, key TEXT, "
                "record TEXT, PRIMARY KEY (chat_id, key))"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS pauses (chat_id TEXT PRIMARY KEY, "
                "pause TEXT)"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS uploads (owui_id TEXT PRIMARY KEY, "
                "file_id TEXT)"
            )

    @contextlib.contextmanager
    def _db(self):
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:
                yield db
        finally:
            db.close()

    def save_answer(self, chat_id: str, text: str, record: Mapping[str, Any]) -> None:
        """Keep what an answer (shown as ``text``) stands for in the ledger."""
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?)",
                (chat_id, answer_key(text), json.dumps(record)),
            )

    def answer(self, chat_id: str, text: str) -> dict[str, Any] | None:
        """Return the record saved for an answer shown as ``text``, if any."""
        with self._db() as db:
            row = db.execute(
                "SELECT record FROM answers WHERE chat_id = ? AND key = ?",
                (chat_id, answer_key(text)),
            ).fetchone()
        return json.loads(row[0]) if row else None

    def save_pause(self, chat_id: str, pause: Mapping[str, Any] | None) -> None:
        """Keep (or, with ``None``, forget) the chat's pending pause."""
        with self._db() as db:
            if pause is None:
                db.execute("DELETE FROM pauses WHERE chat_id = ?", (chat_id,))
            else:
                db.execute(
                    "INSERT OR REPLACE INTO pauses VALUES (?, ?)",
                    (chat_id, json.dumps(pause)),
                )

    def save_upload(self, owui_id: str, file_id: str) -> None:
        """Remember the Files API ID an Open WebUI file was uploaded as."""
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO uploads VALUES (?, ?)", (owui_id, file_id)
            )

    def upload(self, owui_id: str) -> str | None:
        """Return the Files API ID of an Open WebUI file already uploaded."""
        with self._db() as db:
            row = db.execute(
                "SELECT file_id FROM uploads WHERE owui_id = ?", (owui_id,)
            ).fetchone()
        return str(row[0]) if row else None

    def pause(self, chat_id: str) -> dict[str, Any] | None:
        """Return the chat's pending pause, if any."""
        with self._db() as db:
            row = db.execute(
                "SELECT pause FROM pauses WHERE chat_id = ?", (chat_id,)
            ).fetchone()
        return json.loads(row[0]) if row else None


Lookup = Callable[[str], "dict[str, Any] | None"]


def ledger_input(
    messages: Sequence[Mapping[str, Any]], lookup: Lookup | None = None
) -> list[dict[str, Any]]:
    """Build the Responses ``input`` for Open WebUI's ``messages``.

    User messages become ``{"role": "user", "content": text}``. An assistant
    message whose text ``lookup`` knows is replaced by its stored output items,
    unchanged (commentary, searches, the answer with its annotations); an
    answer recorded as a pause note (the question a graph asked) is dropped
    together with the user's reply that answered it. Unknown assistant text
    is replayed as a plain assistant message. System messages are not sent
    (graphs own their instructions). A record's ``user`` (the content its
    turn was sent with, ``input_file`` parts included) replaces the text of
    the user message before it; Open WebUI's ``<attached_files>`` preamble
    is removed from user texts.
    """
    items: list[dict[str, Any]] = []
    skip_next_user = False
    last_user: int | None = None
    for message in messages:
        role = message.get("role")
        text = content_text(message.get("content"))
        if role == "user":
            if skip_next_user:
                skip_next_user = False
                continue
            last_user = len(items)
            items.append({"role": "user", "content": strip_file_context(text)})
        elif role == "assistant":
            record = lookup(text) if lookup else None
            if record and record.get("user") is not None and last_user is not None:
                items[last_user] = {"role": "user", "content": record["user"]}
            last_user = None
            if record and record.get("kind") == "pause":
                skip_next_user = True
                continue
            if record and isinstance(record.get("items"), list):
                items.extend(record["items"])
            elif text.strip():
                items.append({"role": "assistant", "content": text})
    return items
