"""The Files service's behaviour, independent of HTTP routing."""

from __future__ import annotations

import logging
import re
import secrets
import string
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import obstore
from obstore.store import ObjectStore

from lgos_demo_files.errors import ApiError
from lgos_demo_files.metadata import (
    CursorNotFoundError,
    FileRecord,
    MetadataStore,
    Order,
)
from lgos_demo_files.names import content_type_for, sanitize_filename
from lgos_demo_files.upload import receive_upload

__all__ = [
    "BATCH_DEFAULT_EXPIRY_SECONDS",
    "MAX_EXPIRY_SECONDS",
    "MIN_EXPIRY_SECONDS",
    "UPLOAD_PURPOSES",
    "FilesService",
    "file_object",
    "is_file_id",
    "new_file_id",
]

logger = logging.getLogger(__name__)

UPLOAD_PURPOSES = ("assistants", "batch", "fine-tune", "vision", "user_data")
"""Purposes an upload may declare.

OpenAI's upload schema also lists `evals`, but its file object's `purpose`
has no such value, so a file stored with it could not be described validly.
"""

MIN_EXPIRY_SECONDS = 3600
MAX_EXPIRY_SECONDS = 30 * 24 * 3600
BATCH_DEFAULT_EXPIRY_SECONDS = 30 * 24 * 3600
"""OpenAI's default: `batch` files without `expires_after` expire after 30 days."""

_ID_ALPHABET = string.ascii_letters + string.digits
_ID_LENGTH = 24
_ID_PATTERN = re.compile(r"file-[A-Za-z0-9]{1,64}")
_SWEEP_BATCH = 500
_READ_CHUNK = 256 * 1024


def new_file_id() -> str:
    """Make a fresh `file-` ID with 24 random letters and digits (about 143 bits)."""
    return "file-" + "".join(secrets.choice(_ID_ALPHABET) for _ in range(_ID_LENGTH))


def is_file_id(value: str) -> bool:
    """Whether `value` has the shape of an ID this service hands out."""
    return _ID_PATTERN.fullmatch(value) is not None


def file_object(record: FileRecord) -> dict[str, Any]:
    """Describe a record as OpenAI's `file` object."""
    body: dict[str, Any] = {
        "id": record.id,
        "object": "file",
        "bytes": record.bytes,
        "created_at": record.created_at,
        "filename": record.filename,
        "purpose": record.purpose,
        "status": "processed",
    }
    if record.expires_at is not None:
        body["expires_at"] = record.expires_at
    return body


def _not_found(file_id: str) -> ApiError:
    shown = file_id if is_file_id(file_id) else "(invalid ID)"
    return ApiError(404, f"No such File object: {shown}", param="file_id")


def _check_field(name: str, value: str) -> None:
    if name == "purpose" and value not in UPLOAD_PURPOSES:
        raise ApiError(
            400,
            f"Invalid purpose {value[:64]!r}: expected one of "
            + ", ".join(repr(p) for p in UPLOAD_PURPOSES)
            + ".",
            param="purpose",
            code="invalid_value",
        )
    if name == "expires_after[anchor]" and value != "created_at":
        raise ApiError(
            400,
            "expires_after[anchor] must be 'created_at'.",
            param="expires_after[anchor]",
            code="invalid_value",
        )
    if name == "expires_after[seconds]":
        _expiry_seconds(value)


def _expiry_seconds(value: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        seconds = -1
    else:
        seconds = int(text)
    if not MIN_EXPIRY_SECONDS <= seconds <= MAX_EXPIRY_SECONDS:
        raise ApiError(
            400,
            "expires_after[seconds] must be a whole number between "
            f"{MIN_EXPIRY_SECONDS} and {MAX_EXPIRY_SECONDS}.",
            param="expires_after[seconds]",
            code="invalid_value",
        )
    return seconds


def _check_complete(fields: dict[str, str]) -> None:
    if "purpose" not in fields:
        raise ApiError(400, "Missing required parameter: 'purpose'.", param="purpose")
    has_anchor = "expires_after[anchor]" in fields
    has_seconds = "expires_after[seconds]" in fields
    if has_anchor != has_seconds:
        missing = "seconds" if has_anchor else "anchor"
        raise ApiError(
            400,
            f"Missing required parameter: 'expires_after[{missing}]'.",
            param=f"expires_after[{missing}]",
        )


class FilesService:
    """Uploads, lists, reads and deletes files; expires them.

    Every file belongs to the tenant that uploaded it. Each method takes the
    caller's tenant and sees only that tenant's files: another tenant's file
    is answered exactly as a file that does not exist (404, same message),
    so nothing tells a caller that it exists.

    Args:
        store: Where file bytes live (keys are file IDs).
        metadata: Where file records live; must be open.
        max_bytes: Largest accepted upload.
        clock: Returns the current Unix time (tests pass a fake one).

    """

    def __init__(
        self,
        *,
        store: ObjectStore,
        metadata: MetadataStore,
        max_bytes: int,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.metadata = metadata
        self.max_bytes = max_bytes
        self._clock = clock

    def now(self) -> int:
        """Return the current Unix time in whole seconds."""
        return int(self._clock())

    async def create(
        self, chunks: AsyncIterator[bytes], boundary: bytes, *, tenant: str
    ) -> FileRecord:
        """Store an upload streamed as multipart chunks and record it.

        Args:
            chunks: The request body as it arrives.
            boundary: The multipart boundary.
            tenant: The uploader's tenant, which owns the file.

        Returns:
            The new record.

        Raises:
            ApiError: Invalid fields (400), a file over the limit (413).

        """
        file_id = new_file_id()

        def open_writer() -> AbstractAsyncContextManager[Any]:
            return obstore.open_writer_async(
                self.store, file_id, buffer_size=5 * 1024 * 1024
            )

        received = await receive_upload(
            chunks,
            boundary,
            open_writer=open_writer,
            max_bytes=self.max_bytes,
            check_field=_check_field,
            check_complete=_check_complete,
        )
        filename = sanitize_filename(received.filename)
        purpose = received.fields["purpose"]
        created_at = self.now()
        expires_at: int | None = None
        if "expires_after[seconds]" in received.fields:
            seconds = _expiry_seconds(received.fields["expires_after[seconds]"])
            expires_at = created_at + seconds
        elif purpose == "batch":
            expires_at = created_at + BATCH_DEFAULT_EXPIRY_SECONDS
        record = FileRecord(
            id=file_id,
            filename=filename,
            purpose=purpose,
            bytes=received.size,
            content_type=content_type_for(received.content_type, filename),
            created_at=created_at,
            expires_at=expires_at,
            tenant=tenant,
        )
        try:
            await self.metadata.insert(record)
        except BaseException:
            await self._delete_bytes(file_id)
            raise
        return record

    async def list(
        self,
        *,
        purpose: str | None,
        limit: int,
        order: Order,
        after: str | None,
        tenant: str,
    ) -> tuple[list[FileRecord], bool]:
        """List the tenant's unexpired files in creation order, a page at a time.

        Returns:
            The page's records and whether more follow.

        Raises:
            ApiError: `after` is not a file ID of the tenant's (400).

        """
        if after is not None and not is_file_id(after):
            raise ApiError(400, "'after' must be a file ID.", param="after")
        try:
            page = await self.metadata.list(
                now=self.now(),
                purpose=purpose,
                limit=limit,
                order=order,
                after=after,
                tenant=tenant,
            )
        except CursorNotFoundError:
            raise ApiError(
                400, f"No file {after} to list after.", param="after"
            ) from None
        return page.records, page.has_more

    async def get(self, file_id: str, *, tenant: str) -> FileRecord:
        """Return the live record of one of the tenant's files.

        Raises:
            ApiError: 404 when the file is unknown, expired or another
                tenant's.

        """
        if not is_file_id(file_id):
            raise _not_found(file_id)
        record = await self.metadata.get(file_id, tenant=tenant)
        if record is None:
            raise _not_found(file_id)
        if record.expired(self.now()):
            await self._expire(record)
            raise _not_found(file_id)
        return record

    async def open_content(
        self, file_id: str, *, tenant: str
    ) -> tuple[FileRecord, int, AsyncIterator[bytes]]:
        """Open one of the tenant's live files: its record, size, and bytes as a stream.

        Raises:
            ApiError: 404 as for :meth:`get`, or when the bytes are missing.

        """
        record = await self.get(file_id, tenant=tenant)
        try:
            result = await obstore.get_async(self.store, record.id)
        except FileNotFoundError:
            logger.warning("File %s has a record but no stored bytes.", record.id)
            raise _not_found(file_id) from None
        size = int(result.meta["size"])

        async def chunks() -> AsyncIterator[bytes]:
            async for chunk in result.stream(min_chunk_size=_READ_CHUNK):
                yield bytes(chunk)

        return record, size, chunks()

    async def delete(self, file_id: str, *, tenant: str) -> FileRecord:
        """Delete one of the tenant's files, record and bytes.

        Raises:
            ApiError: 404 when the file is unknown, expired or another
                tenant's (another tenant's file is left alone).

        """
        if not is_file_id(file_id):
            raise _not_found(file_id)
        record = await self.metadata.delete(file_id, tenant=tenant)
        if record is None:
            raise _not_found(file_id)
        await self._delete_bytes(record.id)
        if record.expired(self.now()):
            raise _not_found(file_id)
        return record

    async def sweep(self) -> int:
        """Delete every expired file; return how many were deleted."""
        deleted = 0
        while True:
            records = await self.metadata.delete_expired(self.now(), _SWEEP_BATCH)
            for record in records:
                await self._delete_bytes(record.id)
            deleted += len(records)
            if len(records) < _SWEEP_BATCH:
                return deleted

    async def _expire(self, record: FileRecord) -> None:
        if await self.metadata.delete(record.id) is not None:
            await self._delete_bytes(record.id)

    async def _delete_bytes(self, file_id: str) -> None:
        try:
            await obstore.delete_async(self.store, file_id)
        except FileNotFoundError:
            pass
        except Exception:
            logger.exception("Could not delete the stored bytes of %s.", file_id)
