"""Filenames, content types and download headers, made safe."""

from __future__ import annotations

import mimetypes
import re
import unicodedata
from urllib.parse import quote

__all__ = [
    "DEFAULT_CONTENT_TYPE",
    "FALLBACK_FILENAME",
    "MAX_FILENAME_BYTES",
    "content_disposition",
    "content_type_for",
    "sanitize_filename",
]

MAX_FILENAME_BYTES = 255
"""Longest stored filename, in UTF-8 bytes (a common filesystem limit)."""

FALLBACK_FILENAME = "file"
"""The name of an upload whose name sanitises to nothing."""

DEFAULT_CONTENT_TYPE = "application/octet-stream"

# Longest extension kept whole when a name is shortened (".tar.gz" counts as ".gz").
_MAX_EXTENSION_CHARS = 16

# Unicode categories removed from names: controls (NUL, CR, LF, ...), format
# characters (bidi overrides, zero-width joiners), line/paragraph separators
# and lone surrogates.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})

_TOKEN = r"[A-Za-z0-9!#$&^_.+-]{1,127}"
_MEDIA_TYPE = re.compile(
    rf"{_TOKEN}/{_TOKEN}"
    rf"(?:\s*;\s*{_TOKEN}=(?:{_TOKEN}|\"[A-Za-z0-9 !#-\[\]-~]{{0,127}}\"))*"
)


def sanitize_filename(raw: str) -> str:
    r"""Return a filename that is safe to store, list and send back.

    The result has no path (only the last `/` or `\` separated part is
    kept, as browsers do), no control or invisible format characters, no
    leading dots or surrounding blanks, no trailing dots, and at most
    `MAX_FILENAME_BYTES` UTF-8 bytes (the extension is kept when the stem is
    shortened). A name that sanitises to nothing becomes `FALLBACK_FILENAME`.

    Args:
        raw: The name the client sent.

    """
    text = unicodedata.normalize("NFC", raw)
    text = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch in "\t\n\r\v\f" or unicodedata.category(ch) not in _DROPPED_CATEGORIES
    )
    segments = [s for s in re.split(r"[/\\]", text) if s.strip(" .")]
    name = segments[-1] if segments else ""
    name = re.sub(r" {2,}", " ", name).strip(" ").lstrip(".").rstrip(". ")
    if not name:
        return FALLBACK_FILENAME
    return _shorten(name)


def _shorten(name: str) -> str:
    if len(name.encode("utf-8")) <= MAX_FILENAME_BYTES:
        return name
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem or len(extension) > _MAX_EXTENSION_CHARS:
        stem, extension = name, ""
    suffix = f".{extension}" if extension else ""
    budget = MAX_FILENAME_BYTES - len(suffix.encode("utf-8"))
    encoded = stem.encode("utf-8")[:budget]
    stem = encoded.decode("utf-8", errors="ignore").rstrip(". ")
    return f"{stem or FALLBACK_FILENAME}{suffix}"


def content_type_for(header: str | None, filename: str) -> str:
    """Choose the content type to record for an upload.

    Args:
        header: The part's `Content-Type` header, if any. Kept (lowercased
            type and subtype) when it is a well-formed media type.
        filename: The sanitised filename, used to guess a type otherwise.

    Returns:
        A media type; `application/octet-stream` when nothing better is known.

    """
    if header is not None:
        value = header.strip()
        if len(value) <= 255 and _MEDIA_TYPE.fullmatch(value):
            media, sep, params = value.partition(";")
            return media.strip().lower() + (f";{params}" if sep else "")
    guessed, _ = mimetypes.guess_type(filename, strict=False)
    return guessed or DEFAULT_CONTENT_TYPE


def content_disposition(filename: str) -> str:
    """Build an `attachment` Content-Disposition naming `filename` safely.

    The plain `filename` parameter carries an ASCII-only copy (anything else,
    quotes and backslashes become `_`); `filename*` carries the exact name,
    percent-encoded as RFC 6266 and RFC 5987 describe.
    """
    ascii_name = "".join(
        ch if " " <= ch <= "~" and ch not in '"\\' else "_" for ch in filename
    )
    encoded = quote(filename, safe="")
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{encoded}"
