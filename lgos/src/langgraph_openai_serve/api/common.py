"""Request pieces shared by the Responses and Chat Completions adapters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from langgraph_openai_serve.errors import InvalidRequestError

__all__ = [
    "GRAPH_OWNS",
    "METADATA_KEY_MAX",
    "METADATA_PAIRS_MAX",
    "METADATA_VALUE_MAX",
    "RESERVED_METADATA_PREFIX",
    "UNSUPPORTED_PARAMETER",
    "Metadata",
    "SafetyIdentifier",
    "StrictModel",
    "ToolParameters",
    "check_metadata",
    "check_stream_options",
    "unsupported_message",
]

METADATA_PAIRS_MAX = 16
METADATA_KEY_MAX = 64
METADATA_VALUE_MAX = 512
RESERVED_METADATA_PREFIX = "lgos_"
_KNOWN_LGOS_KEYS = frozenset({"lgos_settings", "lgos_run_id"})


GRAPH_OWNS = "graphs choose their own model settings"
"""Why generation controls (``temperature``, ``max_output_tokens``, ...) are refused."""

UNSUPPORTED_PARAMETER = "unsupported_parameter"
"""The pydantic error type (and OpenAI error code) of a refused OpenAI field."""


def _json_key(value: Any) -> bytes:
    # Exact JSON identity: 1, 1.0 and true differ; object key order does not.
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _asks_nothing(value: Any, no_ops: tuple[Any, ...]) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):  # {"effort": null} asks for no more than {}
        value = {key: item for key, item in value.items() if item is not None}
    try:
        key = _json_key(value)
    except TypeError:
        return False
    return any(key == _json_key(no_op) for no_op in no_ops)


def unsupported_message(param: str, reason: str, no_ops: tuple[Any, ...] = ()) -> str:
    """Return the message of a 400 ``unsupported_parameter`` error for ``param``.

    ``no_ops`` are the values accepted anyway (listed after ``null``).
    """
    accepted = "".join(f" or {orjson.dumps(v).decode()}" for v in no_ops)
    return (
        f"Unsupported parameter: '{param}' ({reason}). Omit it, or send null{accepted}."
    )


def _drop_absent_openai_fields(
    not_served: Mapping[str, str], no_ops: Mapping[str, tuple[Any, ...]]
) -> Callable[[Any, Any], Any]:
    def drop(cls: Any, data: Any) -> Any:
        if not isinstance(data, dict) or not_served.keys().isdisjoint(data):
            return data
        kept = dict(data)
        for name in not_served.keys() & data.keys():
            value = kept.pop(name)
            if not _asks_nothing(value, no_ops.get(name, ())):
                raise PydanticCustomError(
                    UNSUPPORTED_PARAMETER,
                    "{reason}",
                    {
                        "field": name,
                        "reason": not_served[name],
                        "no_ops": no_ops.get(name, ()),
                    },
                )
            if value is not None and name in cls.model_fields:
                kept[name] = value  # a no-op value the model keeps, to echo it
        return kept

    return drop


class StrictModel(BaseModel):
    """Base for OpenAI request shapes: unknown fields are rejected.

    A subclass that mirrors an OpenAI schema lists the fields OpenAI defines
    there and LGOS does not serve in ``openai_not_served`` (name → why), and,
    for some, ``openai_no_op_values``: the JSON values that ask for exactly
    what LGOS does anyway (``n: 1``, ``include: []``,
    ``truncation: "disabled"``). Before validation such a field is dropped as
    if omitted when its value is ``null``, an object of nulls, or a no-op
    value; any other value fails with the error type
    ``unsupported_parameter`` (``ctx["field"]`` names the field). A model
    that also declares such a field keeps a no-op value in it instead of
    dropping it, so that the value can be echoed (``service_tier: "auto"``
    on a Response). Names that OpenAI does not define stay
    ``extra_forbidden`` (``unknown_parameter``).

    Rule source: the request schemas of OpenAI's OpenAPI document
    (``CreateResponse``, ``CreateChatCompletionRequest`` and their parts),
    checked by ``tests/contract/test_request_fields.py``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    openai_not_served: ClassVar[Mapping[str, str]] = {}
    openai_no_op_values: ClassVar[Mapping[str, tuple[Any, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "openai_not_served" in cls.__dict__ and cls.openai_not_served:
            # Only models with such fields pay for the check (a per-instance
            # validator), so ordinary input items validate at full speed.
            check = _drop_absent_openai_fields(
                cls.openai_not_served, cls.openai_no_op_values
            )
            validator = model_validator(mode="before")(check)
            cls._drop_absent_openai_fields = validator  # type: ignore[attr-defined]


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


def check_stream_options(stream: bool | None, stream_options: object) -> None:
    """Refuse ``stream_options`` without ``stream: true``, as OpenAI does.

    Raises:
        InvalidRequestError: 400 with ``param="stream_options"``.

    """
    if stream_options is not None and not stream:
        raise InvalidRequestError(
            "stream_options may only be set when stream is true.",
            param="stream_options",
        )


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
