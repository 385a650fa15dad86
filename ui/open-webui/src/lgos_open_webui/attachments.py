"""Attachments in: the user's files read, uploaded, sent as ``input_file`` parts.

The bytes are read from Open WebUI's upload folder, uploaded once to the
Files service (the store remembers each file's ID) and sent with the user's
turn; a model without the ``file_inputs`` feature gets none.
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI, OpenAIError

from lgos_client.extension import ModelCapabilities
from lgos_open_webui.events import EventEmitter, status_event
from lgos_open_webui.history import StateStore
from lgos_open_webui.plumbing import log

FILE_INPUTS_FEATURE = "file_inputs"


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file the user attached in Open WebUI, as stored in its upload folder."""

    id: str
    name: str
    mime_type: str
    path: Path | None

    def read(self) -> bytes:
        """Return the file's bytes (``OSError`` when it cannot be read)."""
        if self.path is None:
            raise OSError(f"no stored file for {self.name}")
        return self.path.read_bytes()


_NOT_ATTACHMENTS = {"collection", "web_search_results", "filesystem", "chat", "url"}


def attachments_from(items: object, upload_dir: Path | None = None) -> list[Attachment]:
    """Read Open WebUI's file items (``__files__`` or a message's ``files``).

    Each item is ``{"type": "file", "id", "name", "file": {"id", "filename",
    "path", "meta": {"content_type", ...}}, ...}``; the bytes are at
    ``file.path`` (Open WebUI's local storage) or, failing that, at
    ``<upload_dir>/<id>_<filename>``. Knowledge collections, web results and
    other non-file items are skipped; each file is listed once.
    """
    found: list[Attachment] = []
    seen: set[str] = set()
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, Mapping) or item.get("type") in _NOT_ATTACHMENTS:
            continue
        file = item.get("file")
        file = file if isinstance(file, Mapping) else {}
        meta = file.get("meta")
        meta = meta if isinstance(meta, Mapping) else {}
        file_id = str(item.get("id") or file.get("id") or "")
        if not file_id or file_id in seen:
            continue
        seen.add(file_id)
        name = str(
            item.get("name") or meta.get("name") or file.get("filename") or file_id
        )
        path: Path | None = None
        stored = file.get("path")
        if isinstance(stored, str) and stored and Path(stored).is_file():
            path = Path(stored)
        elif upload_dir is not None:
            path = next(iter(sorted(upload_dir.glob(f"{file_id}_*"))), None)
        mime = meta.get("content_type") or item.get("content_type")
        found.append(
            Attachment(
                id=file_id,
                name=name,
                mime_type=str(mime or _guess_type(name)),
                path=path,
            )
        )
    return found


def _guess_type(name: str) -> str:
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def user_content(text: str, file_ids: Sequence[str]) -> str | list[dict[str, Any]]:
    """Return a user turn's ``content``: the text, an ``input_file`` per file."""
    if not file_ids:
        return text
    return [
        {"type": "input_text", "text": text},
        *({"type": "input_file", "file_id": file_id} for file_id in file_ids),
    ]


def upload_folder() -> Path:
    """Return Open WebUI's upload folder, under its ``DATA_DIR``."""
    return Path(os.environ.get("DATA_DIR") or ".") / "uploads"


async def upload_attachments(
    attachments: Sequence[Attachment],
    store: StateStore | None,
    emit: EventEmitter,
    files: AsyncOpenAI | None,
) -> list[str]:
    """Upload attachments to the Files service; return their file IDs.

    Each Open WebUI file is uploaded once (``purpose="user_data"``); the
    ID is remembered in the store. A file that cannot be read or
    uploaded is left out, with a status line saying so.
    """
    file_ids: list[str] = []
    for attachment in attachments:
        known = store.upload(attachment.id) if store else None
        if known:
            file_ids.append(known)
            continue
        if files is None:
            await emit(status_event(f"Not attached: {attachment.name} (no Files API)"))
            continue
        try:
            created = await files.files.create(
                file=(attachment.name, attachment.read(), attachment.mime_type),
                purpose="user_data",
            )
        except (OSError, OpenAIError) as error:
            log.warning("uploading %s failed: %s", attachment.name, error)
            await emit(status_event(f"Not attached: {attachment.name} ({error})"))
            continue
        if store:
            store.save_upload(attachment.id, created.id)
        file_ids.append(created.id)
        await emit(status_event(f"Attached {attachment.name}"))
    return file_ids


async def complete_user_turn(
    model: ModelCapabilities,
    ledger: list[dict[str, Any]],
    metadata: Mapping[str, Any] | None,
    items: object,
    store: StateStore | None,
    emit: EventEmitter,
    files: AsyncOpenAI | None,
) -> str | list[dict[str, Any]] | None:
    """Complete the ledger's last user message: its own text, its files.

    Open WebUI may have rewritten that message (file context, retrieved
    text); the text the user typed is in ``metadata.user_message``. The
    files attached to it are uploaded and sent as ``input_file`` parts.
    Returns the content sent (``None`` without a last user message).
    """
    if not ledger or ledger[-1].get("role") != "user":
        return None
    message = (metadata or {}).get("user_message")
    text = ledger[-1].get("content")
    if isinstance(message, Mapping) and isinstance(message.get("content"), str):
        text = message["content"]
        items = message.get("files") or []
    attachments = attachments_from(items, upload_folder())
    if attachments and FILE_INPUTS_FEATURE not in model.features:
        names = ", ".join(a.name for a in attachments)
        await emit(status_event(f"{model.id} takes no attachments: {names}"))
        attachments = []
    file_ids = await upload_attachments(attachments, store, emit, files)
    if not isinstance(text, str):
        return None  # already the content of a stored turn
    content = user_content(text, file_ids)
    ledger[-1] = {"role": "user", "content": content}
    return content
