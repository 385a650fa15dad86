"""Attachments: a small Files API client and `resolve_file_inputs`.

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

`FilesClient` wraps `AsyncOpenAI(...).files` (no protocol of our own): it
fetches attachments and uploads the files graphs generate.
"""

from __future__ import annotations

import asyncio
import io
import logging
import mimetypes
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import openai
from langchain_core.messages import BaseMessage, HumanMessage
from openai import AsyncOpenAI
from openai.types import FileObject

from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "MAX_DOWNLOAD_BYTES",
    "MAX_TEXT_CHARS",
    "Attachment",
    "FileCache",
    "FileUnavailable",
    "FilesClient",
    "StoredFile",
    "file_ids",
    "guess_mime_type",
    "is_attachment_text",
    "own_text",
    "parse_attachments",
    "render_attachment",
    "resolve_file_inputs",
]

logger = logging.getLogger(__name__)

MAX_TEXT_CHARS: Final = 20_000
"""The most characters of one attachment's text a model call receives."""

MAX_DOWNLOAD_BYTES: Final = 20 * 1024 * 1024
"""Larger attachments are not downloaded; the model gets a note instead."""

HEADING: Final = "## Attachment: "
"""How a readable attachment's text starts in the model input."""

NOTE: Final = "[attachment "
"""How the note for an unreadable or unavailable attachment starts."""

_FILE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
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
_EXTENSION_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".txt": "text/plain",
    ".log": "text/plain",
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
    ".pdf": "application/pdf",
    ".png": "image/png",
}
_MAGIC = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"PK\x03\x04", "application/zip"),
)
_FENCE_LANGUAGES = {
    "text/csv": "csv",
    "text/markdown": "markdown",
    "application/json": "json",
}


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A downloaded attachment.

    Attributes:
        file_id: Its Files API ID.
        filename: The name it was uploaded under.
        mime_type: Its media type (see `guess_mime_type`).
        data: Its bytes.

    """

    file_id: str
    filename: str
    mime_type: str
    data: bytes

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return len(self.data)

    @property
    def is_csv(self) -> bool:
        """Whether the file is CSV (by media type or name)."""
        return self.mime_type == "text/csv" or self.filename.lower().endswith(".csv")


@dataclass(frozen=True, slots=True)
class FileUnavailable:
    """An attachment that could not be downloaded.

    Attributes:
        file_id: The ID the client sent.
        note: What the model is told instead, e.g. `[attachment file-x: not
            available — the Files API has no such file; it may have expired or
            been deleted]`.

    """

    file_id: str
    note: str


FetchResult = StoredFile | FileUnavailable
"""What fetching one attachment gives."""


def _unavailable(file_id: str, reason: str) -> FileUnavailable:
    return FileUnavailable(file_id, f"{NOTE}{file_id}: not available — {reason}]")


def guess_mime_type(filename: str, data: bytes, declared: str | None = None) -> str:
    """Decide an attachment's media type.

    The Files API's file object has no media type, so it is inferred: a
    known signature in the bytes (PDF, PNG, JPEG, GIF, ZIP) wins, then the
    filename's extension, then the type the content was served with (unless
    generic), and finally UTF-8 text without NUL bytes counts as
    `text/plain`.

    Args:
        filename: The name the file was uploaded under.
        data: Its bytes.
        declared: The `Content-Type` it was downloaded with, if any.

    Returns:
        A media type such as `text/csv` or `application/octet-stream`.

    """
    for signature, kind in _MAGIC:
        if data.startswith(signature):
            return kind
    extension = ("." + filename.rsplit(".", 1)[-1].lower()) if "." in filename else ""
    if extension in _EXTENSION_TYPES:
        return _EXTENSION_TYPES[extension]
    guessed, _ = mimetypes.guess_type(filename, strict=False)
    if guessed:
        return guessed
    declared = (declared or "").split(";", 1)[0].strip().lower()
    if declared and declared != "application/octet-stream":
        return declared
    if b"\x00" not in data[:8192]:
        try:
            data[:8192].decode("utf-8")
        except UnicodeDecodeError as error:
            # A multi-byte character cut at the sample's end is still text.
            if error.start < len(data[:8192]) - 3:
                return "application/octet-stream"
        return "text/plain"
    return "application/octet-stream"


class FilesClient:
    """The demo's client of an OpenAI-compatible Files API.

    A thin layer over the OpenAI SDK's `files` resource: `fetch` downloads an
    attachment (metadata and content) and turns every failure into a
    `FileUnavailable`; `upload` stores a generated file.

    Args:
        client: The SDK client whose `files` resource is used (tests pass
            one whose `http_client` reaches an in-process Files API).
        max_download_bytes: Larger files are not downloaded.

    """

    def __init__(
        self, client: AsyncOpenAI, *, max_download_bytes: int = MAX_DOWNLOAD_BYTES
    ) -> None:
        self.client = client
        self.max_download_bytes = max_download_bytes

    @classmethod
    def from_settings(cls, settings: DemoApiSettings) -> FilesClient:
        """Build the client for `files_base_url` and `files_api_key`.

        Args:
            settings: The demo settings.

        Returns:
            A client with a 30-second timeout and one retry.

        """
        return cls(
            AsyncOpenAI(
                base_url=settings.files_base_url,
                api_key=settings.files_api_key.get_secret_value(),
                timeout=30.0,
                max_retries=1,
            )
        )

    async def fetch(self, file_id: str) -> FetchResult:
        """Download one attachment.

        Args:
            file_id: The ID from the file block.

        Returns:
            The file, or a `FileUnavailable` explaining why not: an ID that is
            not a Files API ID, no such file (unknown, expired or deleted), a
            file over `max_download_bytes`, or a failing service.

        """
        if not _FILE_ID.fullmatch(file_id):
            return _unavailable(file_id[:64], "this is not a Files API file ID")
        try:
            meta = await self.client.files.retrieve(file_id)
            if meta.bytes > self.max_download_bytes:
                name = meta.filename or file_id
                return FileUnavailable(
                    file_id,
                    f"{NOTE}{name}: {meta.bytes} bytes — too large to read "
                    f"(the limit is {self.max_download_bytes} bytes)]",
                )
            content = await self.client.files.content(file_id)
        except openai.NotFoundError:
            return _unavailable(
                file_id,
                "the Files API has no such file; it may have expired or been deleted",
            )
        except openai.APIStatusError as error:
            logger.warning("Files API answered %s for %s", error.status_code, file_id)
            return _unavailable(
                file_id, f"the Files API answered HTTP {error.status_code}"
            )
        except openai.APIConnectionError:
            logger.warning("Files API unreachable while fetching %s", file_id)
            return _unavailable(file_id, "the Files API could not be reached")
        data = content.content
        filename = meta.filename or file_id
        declared = content.response.headers.get("content-type")
        return StoredFile(
            file_id, filename, guess_mime_type(filename, data, declared), data
        )

    async def upload(
        self,
        data: bytes,
        *,
        filename: str,
        mime_type: str,
        purpose: str = "user_data",
    ) -> FileObject:
        """Store a generated file.

        Args:
            data: The bytes.
            filename: The name to store it under.
            mime_type: Its media type, sent as the part's `Content-Type`.
            purpose: The Files API purpose (`user_data` or `assistants`).

        Returns:
            The Files API's file object (its `id` is what clients display).

        Raises:
            openai.APIError: When the Files API refuses the upload or cannot
                be reached.

        """
        return await self.client.files.create(
            file=(filename, data, mime_type),
            purpose=purpose,  # type: ignore[arg-type]
        )


class FileCache:
    """Remembers what one run fetched, so each attachment downloads once.

    A graph creates one per run (e.g. as a field of its runtime context,
    which LGOS builds for every request) and passes it to every
    `resolve_file_inputs` call of the run. Concurrent fetches of the same ID
    share one download. Failures are remembered too.
    """

    def __init__(self) -> None:
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
                    result: FetchResult = _unavailable(
                        file_id, "no Files API is configured"
                    )
                else:
                    result = await files.fetch(file_id)
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
