"""Request pieces shared by the Responses and Chat Completions adapters."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from langgraph_openai_serve.errors import InvalidRequestError

__all__ = [
    "METADATA_KEY_MAX",
    "METADATA_PAIRS_MAX",
    "METADATA_VALUE_MAX",
    "RESERVED_METADATA_PREFIX",
    "Metadata",
    "SafetyIdentifier",
    "StrictModel",
    "ToolParameters",
    "check_metadata",
]

METADATA_PAIRS_MAX = 16
METADATA_KEY_MAX = 64
METADATA_VALUE_MAX = 512
RESERVED_METADATA_PREFIX = "lgos_"
_KNOWN_LGOS_KEYS = frozenset({"lgos_settings", "lgos_run_id"})


class StrictModel(BaseModel):
    """Base for OpenAI request shapes: unknown fields are rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


Metadata = Annotated[dict[str, str], Field(max_length=METADATA_PAIRS_MAX)]

SafetyIdentifier = Annotated[str, Field(max_length=64)]
"""OpenAI's ``safety_identifier``: at most 64 characters."""

_MAX_SCHEMA_DEPTH = 64


def _depth(value: Any, limit: int) -> int:
    stack = [(value, 1)]
    deepest = 0
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
    return deepest


def _bounded_schema(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is not None and _depth(value, _MAX_SCHEMA_DEPTH) > _MAX_SCHEMA_DEPTH:
        msg = f"nests deeper than {_MAX_SCHEMA_DEPTH} levels"
        raise ValueError(msg)
    return value


ToolParameters = Annotated[dict[str, Any] | None, AfterValidator(_bounded_schema)]
"""A function's JSON Schema, nested at most 64 levels deep."""


def check_metadata(metadata: dict[str, str] | None) -> dict[str, str]:
    """Apply OpenAI's metadata limits and LGOS's reserved prefix.

    Rule source: OpenAI's ``Metadata`` schema (16 pairs, keys up to 64 and
    values up to 512 characters); LGOS reserves keys starting ``lgos_``.

    Returns:
        The metadata, or an empty dict when None.

    Raises:
        InvalidRequestError: 400 with ``param="metadata"`` or
            ``metadata.<key>``.

    """
    if not metadata:
        return {}
    if len(metadata) > METADATA_PAIRS_MAX:
        raise InvalidRequestError(
            f"metadata may hold at most {METADATA_PAIRS_MAX} pairs.",
            param="metadata",
        )
    for key, value in metadata.items():
        if len(key) > METADATA_KEY_MAX:
            raise InvalidRequestError(
                f"metadata keys may be at most {METADATA_KEY_MAX} characters.",
                param="metadata",
            )
        if len(value) > METADATA_VALUE_MAX:
            raise InvalidRequestError(
                f"metadata values may be at most {METADATA_VALUE_MAX} characters.",
                param=f"metadata.{key}",
            )
        if key.startswith(RESERVED_METADATA_PREFIX) and key not in _KNOWN_LGOS_KEYS:
            raise InvalidRequestError(
                f"The metadata key '{key}' uses the reserved 'lgos_' prefix.",
                param=f"metadata.{key}",
            )
    return metadata
