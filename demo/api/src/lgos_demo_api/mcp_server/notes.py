"""The notes the `save_note` and `list_notes` tools keep, in one JSON file.

The file holds `{"notes": [{"id", "title", "text", "created_at"}, ...]}`.
Every call reads it afresh (so notes survive a restart and an edit by hand
shows at once) and a save replaces it atomically: the new content goes to a
temporary file in the same folder, then `os.replace` swaps it in, so a crash
never leaves half a file. Saves in one process are serialised by an asyncio
lock, so concurrent calls never lose a note.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from lgos_demo_api.search.corpus import shorten

__all__ = ["Note", "NoteList", "NoteStore", "NotesError", "SavedNote", "note_title"]

_TITLE_CHARS = 60


class NotesError(RuntimeError):
    """The notes file cannot be read (not JSON, or not the expected shape)."""


class Note(BaseModel):
    """One saved note."""

    id: int = Field(description="The note's number, 1 for the first note saved.")
    title: str = Field(description="A short title.")
    text: str = Field(description="The note itself.")
    created_at: str = Field(description="When it was saved, ISO 8601 in UTC.")


class SavedNote(BaseModel):
    """The result of `save_note`."""

    note: Note = Field(description="The note as saved.")
    text: str = Field(description='A one-line summary, e.g. "Saved note 1: ...".')


class NoteList(BaseModel):
    """The result of `list_notes`."""

    notes: list[Note] = Field(description="The matching notes, newest first.")
    query: str | None = Field(description="The filter applied, if any.")
    text: str = Field(description="A short summary listing the notes.")


class _NotesFile(BaseModel):
    notes: list[Note] = []


def note_title(text: str) -> str:
    """Derive a title from a note: its first line, cut to about 60 characters."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return shorten(" ".join(first.split()), _TITLE_CHARS) or "Untitled"


class NoteStore:
    """Notes kept in a JSON file.

    Usage::

        store = NoteStore(Path(".data/mcp/notes.json"))
        saved = await store.save("5 mi = 8.047 km")
        found = await store.list_notes("km")

    Attributes:
        path: The JSON file (created, with its folder, on the first save).

    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = asyncio.Lock()

    def _read(self) -> list[Note]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        try:
            return _NotesFile.model_validate_json(raw).notes
        except ValidationError as exc:
            raise NotesError(
                f"The notes file {self.path} is unreadable: {exc}"
            ) from exc

    def _write(self, notes: list[Note]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        content = _NotesFile(notes=notes).model_dump_json(indent=2)
        handle, temporary = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(content + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    async def save(self, text: str, title: str | None = None) -> SavedNote:
        """Save a note with the next free ID.

        Args:
            text: The note; surrounding whitespace is dropped.
            title: Its title; derived from the text (`note_title`) when
                missing or blank.

        Returns:
            The saved note and a summary.

        Raises:
            ValueError: If the text is blank.
            NotesError: If the existing file is unreadable.

        """
        body = text.strip()
        if not body:
            raise ValueError("A note needs some text.")
        async with self._lock:
            notes = await asyncio.to_thread(self._read)
            note = Note(
                id=max((n.id for n in notes), default=0) + 1,
                title=(title or "").strip() or note_title(body),
                text=body,
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            )
            await asyncio.to_thread(self._write, [*notes, note])
        return SavedNote(
            note=note,
            text=f"Saved note {note.id}: {json.dumps(body, ensure_ascii=False)}.",
        )

    async def list_notes(self, query: str | None = None) -> NoteList:
        """Return the notes, newest first, optionally filtered.

        Args:
            query: Keep only notes whose title or text contains it (case
                insensitive); None or blank keeps all.

        Returns:
            The notes and a summary ("2 notes: #2 ..., #1 ...").

        Raises:
            NotesError: If the file is unreadable.

        """
        async with self._lock:
            notes = await asyncio.to_thread(self._read)
        wanted = (query or "").strip().casefold()
        found = [
            note
            for note in sorted(notes, key=lambda n: n.id, reverse=True)
            if wanted in f"{note.title}\n{note.text}".casefold()
        ]
        about = (
            f" matching {json.dumps(query.strip(), ensure_ascii=False)}"
            if wanted and query
            else ""
        )
        if not found:
            text = f"No notes{about}."
        else:
            listed = "; ".join(f"#{note.id} {note.text}" for note in found)
            count = f"{len(found)} note{'s' if len(found) != 1 else ''}"
            text = f"{count}{about}: {shorten(listed, 400)}"
        return NoteList(notes=found, query=query if wanted else None, text=text)
