"""Opaque OpenAI-style identifiers."""

from __future__ import annotations

import uuid

__all__ = ["new_id"]


def new_id(prefix: str) -> str:
    """Return ``<prefix>_<32 hex digits>``, e.g. ``resp_…``, ``msg_…``, ``fc_…``."""
    return f"{prefix}_{uuid.uuid4().hex}"
