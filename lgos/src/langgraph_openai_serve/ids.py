"""Opaque OpenAI-style identifiers."""

from __future__ import annotations

import os
import threading

__all__ = ["new_id", "uuid4_strings"]

_POOL_BYTES = 4096  # 256 identifiers per read of the system's random source


class _RandomPool:
    """Bytes from ``os.urandom``, read a page at a time.

    Each identifier takes 16 fresh bytes, as a version-4 UUID does, without a
    system call per identifier. Forked children start with an empty pool, so
    parent and child never hand out the same bytes.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bytes = b""
        self._offset = 0

    def take16(self) -> bytes:
        """Return 16 random bytes that no other call returns."""
        with self._lock:
            offset = self._offset
            if offset + 16 > len(self._bytes):
                self._bytes = os.urandom(_POOL_BYTES)
                offset = 0
            self._offset = offset + 16
            return self._bytes[offset : offset + 16]

    def reset(self) -> None:
        """Forget the buffered bytes (in a forked child)."""
        self._lock = threading.Lock()
        self._bytes = b""
        self._offset = 0


_pool = _RandomPool()
os.register_at_fork(after_in_child=_pool.reset)


def new_id(prefix: str) -> str:
    """Return ``<prefix>_<32 hex digits>``, e.g. ``resp_…``, ``msg_…``, ``fc_…``.

    The digits are 128 bits from the operating system's random source
    (``os.urandom``), as in a version-4 UUID.
    """
    return f"{prefix}_{_pool.take16().hex()}"


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def uuid4_strings(count: int) -> list[str]:
    """Return ``count`` random version-4 UUIDs as ``str(uuid.uuid4())`` spells them.

    One read of ``os.urandom`` serves them all; each takes 122 random bits,
    with the version and variant bits set as RFC 4122 requires.
    """
    digits = os.urandom(16 * count).hex()
    out = []
    for start in range(0, 32 * count, 32):
        h = digits[start : start + 32]
        out.append(
            f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"
        )
    return out
