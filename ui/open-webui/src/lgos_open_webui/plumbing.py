"""What every part of the pipe shares: its logger, SDK objects read as dicts."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

log = logging.getLogger("lgos_pipe")
"""The pipe's logger (Open WebUI's log shows its warnings)."""


def to_dict(value: Any) -> dict[str, Any]:
    """Return a pydantic object as JSON data (no ``None`` fields), a mapping as a dict.

    Anything else gives ``{}``.
    """
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    return dict(value) if isinstance(value, Mapping) else {}
