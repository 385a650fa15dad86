"""Stream a `multipart/form-data` upload straight into the object store.

The body is parsed as it arrives (python-multipart's push parser); the file
part's bytes go to an obstore writer in chunks, and the size limit is checked
on every chunk, so an oversized upload is refused long before it could fill
memory or disk. Any failure aborts the writer, which leaves no object behind.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from lgos_demo_files.errors import ApiError

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

__all__ = [
    "DRAIN_LIMIT",
    "FIELD_NAMES",
    "ReceivedUpload",
    "multipart_boundary",
    "receive_upload",
]

FIELD_NAMES = frozenset({"purpose", "expires_after[anchor]", "expires_after[seconds]"})
"""The text fields `POST /v1/files` accepts besides `file`."""

MAX_FIELD_BYTES = 1024
MAX_PARTS = 8
MAX_HEADER_BYTES = 16 * 1024
MAX_HEADERS_PER_PART = 8
WRITE_CHUNK = 1024 * 1024

DRAIN_LIMIT = 16 * 1024 * 1024
"""Bytes of an oversized upload still read (and discarded) before the 413.

Reading a little further lets ordinary clients, which send the whole body
before they read the answer, receive the 413 instead of a reset connection.
"""


class _TooLargeError(Exception):
    pass


@dataclass(slots=True)
class ReceivedUpload:
    """What arrived: the text fields, and the file part's name, type and size."""

    fields: dict[str, str]
    filename: str
    content_type: str | None
    size: int


@dataclass(slots=True)
class _Part:
    headers: dict[str, bytes] = field(default_factory=dict)
    name: str = ""
    is_file: bool = False
    data: bytearray = field(default_factory=bytearray)


class _Events:
    """Collects the parser's callbacks as a list of events to act on."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self._field = bytearray()
        self._value = bytearray()
        self.finished = False

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": lambda: self.events.append(("begin", None)),
            "on_header_field": lambda d, s, e: self._field.extend(d[s:e]),
            "on_header_value": lambda d, s, e: self._value.extend(d[s:e]),
            "on_header_end": self._header_end,
            "on_headers_finished": lambda: self.events.append(("headers", None)),
            "on_part_data": lambda d, s, e: self.events.append(("data", d[s:e])),
            "on_part_end": lambda: self.events.append(("end", None)),
            "on_end": self._end,
        }

    def _header_end(self) -> None:
        name = bytes(self._field).decode("latin-1").strip().lower()
        self.events.append(("header", (name, bytes(self._value).strip())))
        self._field.clear()
        self._value.clear()

    def _end(self) -> None:
        self.finished = True

    def take(self) -> list[tuple[str, Any]]:
        events, self.events = self.events, []
        return events


def multipart_boundary(content_type: str | None) -> bytes:
    """Return the boundary of a `multipart/form-data` Content-Type, or 400."""
    kind, options = parse_options_header(
        content_type.encode("latin-1", errors="replace") if content_type else None
    )
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise ApiError(
            400,
            "Uploads must be sent as multipart/form-data with a boundary.",
            code="invalid_content_type",
        )
    return boundary


async def receive_upload(
    chunks: AsyncIterator[bytes],
    boundary: bytes,
    *,
    open_writer: Callable[[], AbstractAsyncContextManager[Any]],
    max_bytes: int,
    check_field: Callable[[str, str], None],
    check_complete: Callable[[dict[str, str]], None],
) -> ReceivedUpload:
    """Parse an upload, streaming the `file` part through `open_writer()`.

    Args:
        chunks: The request body, as it arrives.
        boundary: The multipart boundary.
        open_writer: Opens the object writer (an async context manager whose
            exit commits on success and aborts on an exception); called once,
            when the `file` part starts.
        max_bytes: Largest accepted file; one byte more is a 413.
        check_field: Validates each text field as soon as it is complete
            (raising `ApiError`), so a bad `purpose` stops the upload early.
        check_complete: Validates all fields once the body ended, before the
            object is committed.

    Returns:
        The fields and the file's metadata; the object is committed.

    Raises:
        ApiError: 400 for a malformed or incomplete body, unknown or repeated
            fields, or a missing file; 413 for a file over `max_bytes`.

    """
    try:
        parser = MultipartParser(
            boundary,
            max_header_count=MAX_HEADERS_PER_PART,
            max_header_size=MAX_HEADER_BYTES,
        )
    except (MultipartParseError, ValueError) as exc:
        raise ApiError(400, f"Invalid multipart boundary: {exc}") from None
    events = _Events()
    parser.callbacks = events.callbacks()
    try:
        async with AsyncExitStack() as stack:
            received = await _consume(
                chunks,
                parser,
                events,
                stack,
                open_writer=open_writer,
                max_bytes=max_bytes,
                check_field=check_field,
            )
            check_complete(received.fields)
    except _TooLargeError:
        await _drain(chunks)
        raise ApiError(
            413,
            f"The file is larger than this service accepts ({max_bytes} bytes).",
            param="file",
            code="file_too_large",
        ) from None
    return received


async def _consume(
    chunks: AsyncIterator[bytes],
    parser: MultipartParser,
    events: _Events,
    stack: AsyncExitStack,
    *,
    open_writer: Callable[[], AbstractAsyncContextManager[Any]],
    max_bytes: int,
    check_field: Callable[[str, str], None],
) -> ReceivedUpload:
    fields: dict[str, str] = {}
    part: _Part | None = None
    writer: Any = None
    buffer = bytearray()
    size = 0
    parts = 0
    file_part: _Part | None = None

    async for chunk in chunks:
        try:
            parser.write(chunk)
        except MultipartParseError as exc:
            raise ApiError(400, f"The multipart body is malformed: {exc}") from None
        for kind, value in events.take():
            if kind == "begin":
                parts += 1
                if parts > MAX_PARTS:
                    raise ApiError(400, "Too many parts in the multipart body.")
                part = _Part()
            elif part is None:
                raise ApiError(400, "The multipart body is malformed.")
            elif kind == "header":
                name, raw = value
                part.headers[name] = raw
            elif kind == "headers":
                _classify(part, fields, file_part is not None)
                if part.is_file:
                    file_part = part
                    writer = await stack.enter_async_context(open_writer())
            elif kind == "data":
                if part.is_file:
                    size += len(value)
                    if size > max_bytes:
                        raise _TooLargeError
                    buffer.extend(value)
                    if len(buffer) >= WRITE_CHUNK:
                        await writer.write(bytes(buffer))
                        buffer.clear()
                else:
                    part.data.extend(value)
                    if len(part.data) > MAX_FIELD_BYTES:
                        message = f"The field '{part.name}' is too long."
                        raise ApiError(400, message, param=part.name)
            elif kind == "end":
                if part.is_file:
                    if buffer:
                        await writer.write(bytes(buffer))
                        buffer.clear()
                else:
                    text = _decode_field(part)
                    check_field(part.name, text)
                    fields[part.name] = text
                part = None

    if not events.finished:
        raise ApiError(400, "The multipart body ended before its closing boundary.")
    if file_part is None:
        raise ApiError(400, "Missing the 'file' part (a file upload).", param="file")
    filename = _options(file_part).get(b"filename", b"")
    content_type = file_part.headers.get("content-type")
    return ReceivedUpload(
        fields=fields,
        filename=filename.decode("utf-8", errors="replace"),
        content_type=None
        if content_type is None
        else content_type.decode("latin-1", errors="replace"),
        size=size,
    )


def _options(part: _Part) -> dict[bytes, bytes]:
    disposition = part.headers.get("content-disposition")
    if disposition is None:
        raise ApiError(400, "A multipart part has no Content-Disposition header.")
    kind, options = parse_options_header(disposition)
    if kind != b"form-data" or not options.get(b"name"):
        raise ApiError(400, "A multipart part is not a named form-data field.")
    return options


def _classify(part: _Part, fields: dict[str, str], have_file: bool) -> None:
    options = _options(part)
    part.name = options[b"name"].decode("utf-8", errors="replace")
    if part.name == "file":
        # A part without a filename (curl's `-F file=<path`, or httpx given an
        # empty name) is still the file; it gets the fallback name.
        if have_file:
            raise ApiError(400, "Send exactly one 'file' part.", param="file")
        part.is_file = True
        return
    if part.name not in FIELD_NAMES:
        raise ApiError(
            400,
            f"Unrecognized request argument supplied: {part.name}",
            param=part.name,
            code="unknown_parameter",
        )
    if part.name in fields:
        raise ApiError(400, f"'{part.name}' was sent twice.", param=part.name)


def _decode_field(part: _Part) -> str:
    try:
        return bytes(part.data).decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(
            400, f"The field '{part.name}' is not valid UTF-8.", param=part.name
        ) from None


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    read = 0
    async for chunk in chunks:
        read += len(chunk)
        if read > DRAIN_LIMIT:
            return
