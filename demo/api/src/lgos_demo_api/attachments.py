"""Attachments as model input: `resolve_file_inputs` and reading them back.

LGOS hands a graph declaring `GraphFeature.FILE_INPUTS` each attachment as a
LangChain file block, `{"type": "file", "file_id": "file-..."}`, inside a
`HumanMessage`. The IDs point into an external OpenAI-compatible Files API
(the demo's `lgos_demo_files` service); LGOS stores no files itself.

The demo graphs keep those blocks in their state and call
`resolve_file_inputs` right before each model call that should read the
attachments. It downloads each file once per run (through a `FileCache` kept
in the run's context) and replaces its block with model input:

- text, Markdown, CSV, JSON and other text files: the decoded text under a
  `## Attachment: <name>` heading, cut to `MAX_TEXT_CHARS`;
- PDF: the text of its pages, extracted with `pypdf`;
- anything else: a short note, `[attachment photo.png: image/png, 5120
  bytes — not readable]`;
- an unknown or expired ID, an oversized file or an unreachable service: a
  note saying so, so the run carries on and the model can tell the user.

Every attachment becomes plain text, which works with the offline model and
any OpenAI-compatible provider. PDFs are not forwarded as native file blocks
to OpenAI: the IDs belong to the demo's Files service, not to the provider,
so forwarding would mean re-sending the bytes inline on every call.

The offline models read the result back with `parse_attachments` and
`own_text`, so they answer from exactly what a real model would see. The
downloads go through `lgos_demo_api.files_client.FilesClient`.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from langchain_core.messages import BaseMessage, HumanMessage

from lgos_demo_api.files_client import (
    NOTE,
    FetchResult,
    FilesClient,
    FileUnavailable,
    StoredFile,
)

__all__ = [
    "HEADING",
    "MAX_TEXT_CHARS",
    "Attachment",
    "FileCache",
    "file_ids",
    "is_attachment_text",
    "own_text",
    "parse_attachments",
    "render_attachment",
    "resolve_file_inputs",
]

MAX_TEXT_CHARS: Final = 20_000
"""The most characters of one attachment's text a model call receives."""

HEADING: Final = "## Attachment: "
"""How a readable attachment's text starts in the model input."""

_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-ndjson",
        "application/javascript",
        "application/sql",
    }
)
_FENCE_LANGUAGES = {
    "text/csv": "csv",
    "text/markdown": "markdown",
    "application/json": "json",
}


class FileCache:
    """Remembers what one run fetched, so each attachment downloads once.

    A graph creates one per run (e.g. as a field of its runtime context,
    which LGOS builds for every request) and passes it to every
    `resolve_file_inputs` call of the run. Concurrent fetches of the same ID
    share one download. Failures are remembered too.

    Attributes:
        tenant: The run's caller's tenant (`files_tenant(request)`), for
            which every download acts: the run reads only that tenant's
            files. None for the Files key's own (default) tenant.

    """

    def __init__(self, tenant: str | None = None) -> None:
        self.tenant = tenant
        self._results: dict[str, FetchResult] = {}
        self._texts: dict[tuple[str, int], str] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def fetch(self, files: FilesClient | None, file_id: str) -> FetchResult:
        """Return the attachment, downloading it on first use.

        Args:
            files: The Files API client; None means none is configured.
            file_id: The attachment's ID.

        Returns:
            The file or why it is unavailable.

        """
        if file_id in self._results:
            return self._results[file_id]
        async with self._locks.setdefault(file_id, asyncio.Lock()):
            if file_id not in self._results:
                if files is None:
                    result: FetchResult = FileUnavailable.because(
                        file_id, "no Files API is configured"
                    )
                else:
                    result = await files.fetch(file_id, tenant=self.tenant)
                self._results[file_id] = result
        return self._results[file_id]

    async def text(
        self, files: FilesClient | None, file_id: str, max_chars: int
    ) -> str:
        """Return the model input for an attachment (see `render_attachment`)."""
        key = (file_id, max_chars)
        if key not in self._texts:
            result = await self.fetch(files, file_id)
            if isinstance(result, FileUnavailable):
                self._texts[key] = result.note
            else:
                self._texts[key] = await asyncio.to_thread(
                    render_attachment, result, max_chars
                )
        return self._texts[key]


def _block_file_id(block: Any) -> str | None:
    if not isinstance(block, dict) or block.get("type") != "file":
        return None
    file_id = block.get("file_id")
    if file_id is None and block.get("source_type") == "id":
        file_id = block.get("id")  # LangChain's older file block shape
    return str(file_id) if file_id else None


def file_ids(messages: Iterable[BaseMessage]) -> list[str]:
    """Return the file IDs the messages' file blocks carry, first use first."""
    found: dict[str, None] = {}
    for message in messages:
        if isinstance(message.content, list):
            for block in message.content:
                if (file_id := _block_file_id(block)) is not None:
                    found.setdefault(file_id)
    return list(found)


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _is_text_type(mime_type: str) -> bool:
    return mime_type.startswith("text/") or mime_type in _TEXT_TYPES


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _pdf_text(data: bytes) -> tuple[str, int] | None:
    """Extract a PDF's text; None when it cannot be parsed."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PyPdfError, ValueError, KeyError, TypeError, OSError):
        return None
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    return text, len(pages)


def render_attachment(file: StoredFile, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Turn a downloaded attachment into model input.

    A readable file becomes::

        ## Attachment: sales.csv

        Type text/csv, 120 bytes.

        ```csv
        month,revenue
        ...
        ```

    (PDFs add `, 3 pages`; a text cut to `max_chars` says how much is shown.)
    Other files become `[attachment <name>: <mime>, <n> bytes — not
    readable]`.

    Args:
        file: The downloaded file.
        max_chars: The most characters of text to include.

    Returns:
        The text that replaces the file block.

    """
    pages: int | None = None
    if file.mime_type == "application/pdf":
        extracted = _pdf_text(file.data)
        if extracted is None or not extracted[0]:
            reason = "no text could be extracted from this PDF"
            return (
                f"{NOTE}{file.filename}: {file.mime_type}, {file.size} bytes — "
                f"not readable: {reason}]"
            )
        text, pages = extracted
    elif _is_text_type(file.mime_type):
        text = _decode(file.data)
    else:
        return (
            f"{NOTE}{file.filename}: {file.mime_type}, {file.size} bytes — "
            "not readable]"
        )
    facts = f"Type {file.mime_type}, {file.size} bytes"
    if pages is not None:
        facts += f", {pages} page" + ("" if pages == 1 else "s")
    facts += "."
    if len(text) > max_chars:
        cut = text.rfind("\n", 0, max_chars)
        shown = text[: cut if cut > max_chars // 2 else max_chars]
        facts += f" Showing the first {len(shown)} of {len(text)} characters."
        text = shown
    fence = _fence(text)
    language = _FENCE_LANGUAGES.get(file.mime_type, "text")
    return (
        f"{HEADING}{file.filename}\n\n{facts}\n\n"
        f"{fence}{language}\n{text.rstrip()}\n{fence}"
    )


async def resolve_file_inputs(
    messages: Sequence[BaseMessage],
    files: FilesClient | None,
    *,
    cache: FileCache | None = None,
    max_chars: int = MAX_TEXT_CHARS,
) -> list[BaseMessage]:
    """Replace the file blocks of one model call's input with their content.

    Call it on the exact messages of a model call, right before the call;
    keep the unresolved messages (with their file IDs) in the graph state.
    Each file block becomes a text block (see `render_attachment`), in
    place; messages without file blocks are returned unchanged.

    Args:
        messages: The model input.
        files: The Files API client; None turns every attachment into a
            "no Files API is configured" note.
        cache: The run's `FileCache`, so a file downloads once per run; a
            fresh one (this call only) when omitted.
        max_chars: The most characters of one attachment's text.

    Returns:
        New messages; the input is not modified.

    """
    ids = file_ids(messages)
    if not ids:
        return list(messages)
    cache = cache if cache is not None else FileCache()
    texts = await asyncio.gather(*(cache.text(files, i, max_chars) for i in ids))
    replacement = dict(zip(ids, texts, strict=True))
    resolved: list[BaseMessage] = []
    for message in messages:
        if not isinstance(message.content, list) or not any(
            _block_file_id(block) for block in message.content
        ):
            resolved.append(message)
            continue
        content: list[str | dict[str, Any]] = []
        for block in message.content:
            file_id = _block_file_id(block)
            if file_id is None:
                content.append(block)
            else:
                content.append({"type": "text", "text": replacement[file_id]})
        resolved.append(message.model_copy(update={"content": content}))
    return resolved


def is_attachment_text(text: str) -> bool:
    """Tell whether a text block is a resolved attachment or its note."""
    return text.startswith((HEADING, NOTE))


def own_text(message: BaseMessage) -> str:
    """Return a message's text without resolved attachments.

    For offline stand-ins that read what the user typed: `message.text`
    would also include every attachment's text.
    """
    if isinstance(message.content, str):
        return message.content
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, str):
            text = block
        elif isinstance(block, dict) and block.get("type") == "text":
            text = str(block.get("text", ""))
        else:
            continue
        if not is_attachment_text(text):
            parts.append(text)
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A resolved attachment read back from model input.

    Attributes:
        name: The filename (or file ID for a note).
        mime_type: The media type ("" for a note).
        text: The attachment's text, or the whole note.
        readable: False for notes (unreadable or unavailable files).
        pages: The page count of a PDF, else None.

    """

    name: str
    mime_type: str
    text: str
    readable: bool
    pages: int | None = None


_RENDERED = re.compile(
    r"\A## Attachment: (?P<name>.+)\n\nType (?P<mime>\S+), \d+ bytes"
    r"(?:, (?P<pages>\d+) pages?)?\.[^\n]*\n\n(?P<fence>`{3,})\S*\n"
    r"(?P<text>.*)\n(?P=fence)\Z",
    re.DOTALL,
)
_NOTED = re.compile(r"\A\[attachment (?P<name>[^:]+):")


def parse_attachments(messages: Iterable[BaseMessage]) -> list[Attachment]:
    """Read the resolved attachments back out of model input.

    The offline models use it to answer from what `resolve_file_inputs`
    produced, exactly as a real model would see it.

    Args:
        messages: Model input after `resolve_file_inputs`.

    Returns:
        Every attachment, in order of appearance.

    """
    found: list[Attachment] = []
    for message in messages:
        if not isinstance(message, HumanMessage) or isinstance(message.content, str):
            continue
        for block in message.content:
            if not isinstance(block, dict) or block.get("type") != "text":
                continue
            text = str(block.get("text", ""))
            if match := _RENDERED.match(text):
                pages = match.group("pages")
                found.append(
                    Attachment(
                        match.group("name"),
                        match.group("mime"),
                        match.group("text"),
                        True,
                        int(pages) if pages else None,
                    )
                )
            elif match := _NOTED.match(text):
                found.append(Attachment(match.group("name"), "", text, False))
    return found
