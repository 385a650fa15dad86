"""Opaque OpenAI-style identifiers."""

from __future__ import annotations

import os
import threading

__all__ = ["new_id"]

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
