"""Where file bytes live: an obstore store chosen by `DEMO_FILES_STORAGE_URL`.

Object keys are file IDs the service generated itself (`file-` and 24
letters or digits), never anything a client sent, so no upload can name a
path outside the store.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from obstore.store import LocalStore, MemoryStore, ObjectStore, S3Store

__all__ = ["open_store"]


def open_store(url: str) -> ObjectStore:
    """Build the object store a storage URL names.

    Args:
        url: A directory path (relative paths resolve against the working
            directory; created when missing), a `file:///absolute/dir` URL,
            an `s3://bucket/optional/prefix` URL (region, endpoint and
            credentials come from `AWS_*` environment variables, as obstore's
            `S3Store` reads them) or `memory://`.

    Returns:
        The store; no network request is made.

    Raises:
        ValueError: The URL has another scheme, or names no bucket.

    """
    text = url.strip()
    if not text:
        msg = "DEMO_FILES_STORAGE_URL is empty."
        raise ValueError(msg)
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "memory":
        return MemoryStore()
    if scheme in ("s3", "s3a"):
        if not parts.netloc:
            msg = f"Storage URL {url!r} names no bucket (s3://bucket/prefix)."
            raise ValueError(msg)
        return S3Store.from_url(text)
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            msg = f"Storage URL {url!r} names a remote host; use file:///path."
            raise ValueError(msg)
        return _local(Path(unquote(parts.path)))
    # A bare path; "C:\\..." style drive letters parse as one-letter schemes.
    if scheme and len(scheme) > 1:
        msg = (
            f"Unsupported storage URL {url!r}: use a directory path, file:///dir, "
            "s3://bucket/prefix or memory://."
        )
        raise ValueError(msg)
    return _local(Path(text))


def _local(path: Path) -> LocalStore:
    directory = path.expanduser().resolve()
    directory.mkdir(parents=True, exist_ok=True)
    return LocalStore(directory, mkdir=True)
