"""The demo's client of an OpenAI-compatible Files API (the `lgos_demo_files` service).

`FilesClient` wraps `AsyncOpenAI(...).files` (no protocol of our own): it
downloads the attachments clients send as file IDs and uploads the files
graphs generate. A download that fails becomes a `FileUnavailable` carrying
the note the model reads instead, so a run never fails because of an
attachment. The Files API's file object has no media type, so
`guess_mime_type` infers one.

Turning downloads into model input is `lgos_demo_api.attachments`.
"""

from __future__ import annotations

import logging
import mimetypes
import re
from dataclasses import dataclass
from typing import Final

import openai
from openai import AsyncOpenAI
from openai.types import FileObject

from langgraph_openai_serve import GraphRequest
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "DEFAULT_SCOPE",
    "MAX_DOWNLOAD_BYTES",
    "NOTE",
    "PROJECT_HEADER",
    "FetchResult",
    "FileUnavailable",
    "FilesClient",
    "StoredFile",
    "files_tenant",
    "guess_mime_type",
]

logger = logging.getLogger(__name__)

MAX_DOWNLOAD_BYTES: Final = 20 * 1024 * 1024
"""Larger attachments are not downloaded; the model gets a note instead."""

NOTE: Final = "[attachment "
"""How the note for an unreadable or unavailable attachment starts."""

DEFAULT_SCOPE: Final = "default"
"""LGOS's scope for callers without a tenant: the Files service's default tenant."""

PROJECT_HEADER: Final = "OpenAI-Project"
"""The header naming the tenant a Files request acts for."""

_FILE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
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

    @classmethod
    def because(cls, file_id: str, reason: str) -> FileUnavailable:
        """Build the note for an attachment that is not available.

        Args:
            file_id: The ID the client sent.
            reason: Why, e.g. `the Files API could not be reached`.

        Returns:
            `[attachment <file_id>: not available — <reason>]`.

        """
        return cls(file_id, f"{NOTE}{file_id}: not available — {reason}]")


FetchResult = StoredFile | FileUnavailable
"""What fetching one attachment gives."""


def files_tenant(request: GraphRequest) -> str | None:
    """Return the Files tenant a run reads and writes files as.

    It is the run's server-trusted scope (`GraphRequest.scope`: the tenant of
    the caller's LGOS key, or `default` for a key without one and for a
    server without keys), so a caller reaches only its own tenant's files.

    Args:
        request: The run's request.

    Returns:
        The tenant to name in the `OpenAI-Project` header, or None for the
        default scope: the service key's own tenant, which needs no header
        (so a Files API that knows nothing of tenants keeps working).

    """
    return None if request.scope == DEFAULT_SCOPE else request.scope


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

    Both act for a tenant: with `tenant` given, the request carries it in an
    `OpenAI-Project` header, which the demo's Files service honours from its
    service key only (the key this client is built with); the service then
    shows only that tenant's files, so another tenant's file is "not found".

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

    async def fetch(self, file_id: str, *, tenant: str | None = None) -> FetchResult:
        """Download one attachment.

        Args:
            file_id: The ID from the file block.
            tenant: The tenant the caller belongs to (see `files_tenant`);
                None for the key's own (default) tenant.

        Returns:
            The file, or a `FileUnavailable` explaining why not: an ID that is
            not a Files API ID, file not found (unknown, expired, deleted, or
            another tenant's: the Files API does not tell them apart), a file
            over `max_download_bytes`, or a failing service.

        """
        if not _FILE_ID.fullmatch(file_id):
            return FileUnavailable.because(
                file_id[:64], "this is not a Files API file ID"
            )
        headers = _tenant_headers(tenant)
        try:
            meta = await self.client.files.retrieve(file_id, extra_headers=headers)
            if meta.bytes > self.max_download_bytes:
                name = meta.filename or file_id
                return FileUnavailable(
                    file_id,
                    f"{NOTE}{name}: {meta.bytes} bytes — too large to read "
                    f"(the limit is {self.max_download_bytes} bytes)]",
                )
            content = await self.client.files.content(file_id, extra_headers=headers)
        except openai.NotFoundError:
            return FileUnavailable.because(
                file_id,
                "file not found: the Files API has no such file for you; it may "
                "have expired or been deleted",
            )
        except openai.APIStatusError as error:
            logger.warning("Files API answered %s for %s", error.status_code, file_id)
            return FileUnavailable.because(
                file_id, f"the Files API answered HTTP {error.status_code}"
            )
        except openai.APIConnectionError:
            logger.warning("Files API unreachable while fetching %s", file_id)
            return FileUnavailable.because(
                file_id, "the Files API could not be reached"
            )
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
        tenant: str | None = None,
    ) -> FileObject:
        """Store a generated file.

        Args:
            data: The bytes.
            filename: The name to store it under.
            mime_type: Its media type, sent as the part's `Content-Type`.
            purpose: The Files API purpose (`user_data` or `assistants`).
            tenant: The tenant that will own the file (see `files_tenant`),
                so that the caller can download it; None for the key's own.

        Returns:
            The Files API's file object (its `id` is what clients display).

        Raises:
            openai.APIError: When the Files API refuses the upload or cannot
                be reached.

        """
        return await self.client.files.create(
            file=(filename, data, mime_type),
            purpose=purpose,  # type: ignore[arg-type]
            extra_headers=_tenant_headers(tenant),
        )


def _tenant_headers(tenant: str | None) -> dict[str, str] | None:
    return None if tenant is None else {PROJECT_HEADER: tenant}
