"""API keys: parse them, keep only their digests, match a presented key.

A key is any run of visible ASCII characters (no spaces); a key may name a
tenant, which becomes the checkpoint scope of its requests
(:mod:`langgraph_openai_serve.api.auth`). Two sources, used together:

* a text of entries (``LGOS_API_KEYS``): entries separated by commas or
  newlines, each ``KEY`` or ``KEY TENANT``;
* a key file (``LGOS_API_KEY_FILE``): one entry per line, the same
  ``KEY`` or ``KEY TENANT``; blank lines and lines starting with ``#`` are
  skipped. The file is read again when it changes (checked at most once per
  ``check_interval`` seconds, on the next request) or when
  :meth:`ApiKeys.reload` is called (``lgos serve`` calls it on ``SIGHUP``).

Only SHA-256 digests of the keys are kept, and a presented key is compared
with every one of them by :func:`hmac.compare_digest`, so neither the time
an answer takes nor a log line tells anything about the keys. Error
messages name the source and the line number, never a line's text.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ApiKeyError", "ApiKeyMatch", "ApiKeys", "parse_key_entries"]

logger = logging.getLogger(__name__)

KEY_FILE_CHECK_SECONDS = 1.0
"""How often, at most, a request checks whether the key file changed."""


class ApiKeyError(ValueError):
    """Keys that cannot be used: a malformed entry or an unreadable key file.

    The message names the source and line, never the text of the entry.
    """


@dataclass(frozen=True, slots=True)
class ApiKeyMatch:
    """What a matched key grants.

    Attributes:
        tenant: The tenant the key names, or None for a key without one.

    """

    tenant: str | None


def _visible(text: str) -> bool:
    """Whether ``text`` is non-empty visible ASCII (``!`` to ``~``)."""
    return bool(text) and all("!" <= char <= "~" for char in text)


def _parse_entry(entry: str, where: str) -> tuple[str, str | None]:
    fields = entry.split()
    if len(fields) > 2 or not all(_visible(field) for field in fields):
        msg = (
            f"{where}: expected 'KEY' or 'KEY TENANT' "
            "(visible ASCII characters, no spaces inside either)."
        )
        raise ApiKeyError(msg)
    return fields[0], fields[1] if len(fields) == 2 else None


def _add(keys: dict[str, str | None], key: str, tenant: str | None, where: str) -> None:
    if key in keys and keys[key] != tenant:
        msg = f"{where}: this key is listed before with another tenant."
        raise ApiKeyError(msg)
    keys[key] = tenant


def parse_key_entries(
    text: str, *, source: str = "LGOS_API_KEYS", file: bool = False
) -> dict[str, str | None]:
    """Parse key entries into ``{key: tenant or None}``.

    Args:
        text: The entries: separated by commas or newlines (a setting), or
            one per line with ``#`` comments (``file=True``).
        source: How error messages name the text (a setting or a path).
        file: Parse as a key file: one entry per line, ``#`` comments.

    Raises:
        ApiKeyError: An entry is not ``KEY`` or ``KEY TENANT``, or a key is
            listed twice with different tenants; the message names the
            entry's position (``LGOS_API_KEYS entry 2``, ``keys.txt line
            3``), not its text.

    """
    keys: dict[str, str | None] = {}
    if file:
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                where = f"{source} line {number}"
                _add(keys, *_parse_entry(stripped, where), where)
        return keys
    entries = [e.strip() for e in text.replace("\n", ",").split(",")]
    for number, entry in enumerate((e for e in entries if e), start=1):
        where = f"{source} entry {number}"
        _add(keys, *_parse_entry(entry, where), where)
    return keys


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).digest()


def _file_signature(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


class ApiKeys:
    """The keys an API accepts, from code, a setting and a key file.

    Usage::

        keys = ApiKeys({"sk-alpha": "acme", "sk-ops": None}, key_file="keys.txt")
        keys.match("sk-alpha")  # ApiKeyMatch(tenant="acme")
        keys.match("nope")  # None

    Args:
        keys: Keys that never change: ``{key: tenant or None}``, or an
            iterable of keys without tenants.
        key_file: A key file (see the module description), read now and
            again whenever it changes or :meth:`reload` is called.
        check_interval: Seconds between checks of the key file for changes
            (made by :meth:`match`); 0 checks on every call.

    Raises:
        ApiKeyError: A key is malformed, a key is listed twice with
            different tenants, or the key file cannot be read or parsed.

    """

    def __init__(
        self,
        keys: Mapping[str, str | None] | Iterable[str] = (),
        *,
        key_file: str | os.PathLike[str] | None = None,
        check_interval: float = KEY_FILE_CHECK_SECONDS,
    ) -> None:
        fixed = keys if isinstance(keys, Mapping) else dict.fromkeys(keys)
        self._fixed: dict[str, str | None] = {}
        for number, (key, tenant) in enumerate(fixed.items(), start=1):
            where = f"key {number}"
            entry = key if tenant is None else f"{key} {tenant}"
            _add(self._fixed, *_parse_entry(entry, where), where)
        self.key_file = Path(key_file) if key_file is not None else None
        self.check_interval = check_interval
        self._signature: tuple[int, int, int] | None = None
        self._checked = time.monotonic()
        self._entries: tuple[tuple[bytes, str | None], ...] = ()
        self._install(self._read_file())

    def __repr__(self) -> str:
        """Say how many keys there are, never which."""
        return f"ApiKeys({len(self._entries)} keys, key_file={self.key_file})"

    def __len__(self) -> int:
        """Return the number of distinct keys accepted now."""
        return len(self._entries)

    def _read_file(self) -> dict[str, str | None]:
        """Return the fixed keys plus the key file's, recording its signature.

        Raises:
            ApiKeyError: The file cannot be read or parsed, or it gives a
                fixed key another tenant.

        """
        keys = dict(self._fixed)
        if self.key_file is None:
            return keys
        signature = _file_signature(self.key_file)
        try:
            text = self.key_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            msg = f"Cannot read the API key file {self.key_file}: {reason}."
            raise ApiKeyError(msg) from None
        source = str(self.key_file)
        for key, tenant in parse_key_entries(text, source=source, file=True).items():
            _add(keys, key, tenant, f"{source} (a key of LGOS_API_KEYS)")
        self._signature = signature
        return keys

    def _install(self, keys: Mapping[str, str | None]) -> None:
        self._entries = tuple((_digest(k), tenant) for k, tenant in keys.items())

    def reload(self, reason: str = "reload") -> bool:
        """Read the key file again now; keep the current keys if it is broken.

        Args:
            reason: Said in the log line (``"SIGHUP"``, ``"file changed"``).

        Returns:
            True when the keys were replaced, False when there is no key
            file or it could not be used (logged as an error, without any
            key text; the previous keys stay in force).

        """
        self._checked = time.monotonic()
        if self.key_file is None:
            return False
        try:
            keys = self._read_file()
        except ApiKeyError as exc:
            # Remember the broken version: it is reported once, not on every
            # check, and a fixed file (a new signature) is read again.
            self._signature = _file_signature(self.key_file)
            logger.error(
                "API keys not reloaded (%s); the previous keys stay: %s", reason, exc
            )
            return False
        self._install(keys)
        logger.info(
            "API keys reloaded from %s (%s): %d keys", self.key_file, reason, len(keys)
        )
        return True

    def refresh(self) -> None:
        """Reload the key file if it changed; checks at most once per interval."""
        if self.key_file is None:
            return
        now = time.monotonic()
        if now - self._checked < self.check_interval:
            return
        self._checked = now
        if _file_signature(self.key_file) != self._signature:
            self.reload("file changed")

    def match(self, key: str) -> ApiKeyMatch | None:
        """Return what ``key`` grants, or None when it is not an accepted key.

        Checks the key file for changes first (:meth:`refresh`). Compares
        the key's digest with every stored digest in constant time, without
        stopping at a match.
        """
        self.refresh()
        presented = _digest(key)
        found: ApiKeyMatch | None = None
        for digest, tenant in self._entries:
            if hmac.compare_digest(digest, presented):
                found = ApiKeyMatch(tenant)
        return found
