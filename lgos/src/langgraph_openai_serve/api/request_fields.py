"""Request pieces shared by the Responses and Chat Completions adapters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from langgraph_openai_serve.api.tolerance import (
    ClientField,
    NoOp,
    NoOps,
    as_no_op,
    asks_nothing,
)
from langgraph_openai_serve.errors import InvalidRequestError

__all__ = [
    "FIELD_TYPE",
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
"""Why model settings no graph declares (``verbosity``, ``logit_bias``) are refused."""

UNSUPPORTED_PARAMETER = "unsupported_parameter"
"""The pydantic error type (and OpenAI error code) of a refused OpenAI field."""

FIELD_TYPE = "lgos_field_type"
"""The pydantic error type of a hint or client field of the wrong JSON type
(OpenAI error code ``invalid_type``); ``ctx``: ``field``, ``expected``,
``sent_by`` (the client, for a client field, else None)."""


def unsupported_message(param: str, reason: str, accepted: str = "") -> str:
    """Return the message of a 400 ``unsupported_parameter`` error for ``param``.

    ``accepted`` names the values accepted anyway besides ``null``
    (:attr:`NoOp.shown <langgraph_openai_serve.api.tolerance.NoOp.shown>`).
    """
    also = f" or {accepted}" if accepted else ""
    return f"Unsupported parameter: '{param}' ({reason}). Omit it, or send null{also}."


def _field_type_error(name: str, no_op: NoOp, sent_by: str | None) -> Exception:
    return PydanticCustomError(
        FIELD_TYPE,
        "expected {expected}",
        {"field": name, "expected": no_op.shown, "sent_by": sent_by},
    )


def _drop_tolerated_fields(
    not_served: Mapping[str, str],
    no_ops: Mapping[str, NoOp],
    clients: Mapping[str, ClientField],
) -> Callable[[Any, Any], Any]:
    names = frozenset(not_served) | frozenset(clients)

    def drop(cls: Any, data: Any) -> Any:
        if not isinstance(data, dict) or names.isdisjoint(data):
            return data
        kept = dict(data)
        for name in names & data.keys():
            value = kept.pop(name)
            if name in clients:
                client = clients[name]
                if not asks_nothing(value, client.value):
                    raise _field_type_error(name, client.value, client.sent_by)
                continue
            no_op = no_ops.get(name)
            if asks_nothing(value, no_op):
                if value is not None and name in cls.model_fields:
                    kept[name] = value  # a no-op value the model keeps, to echo it
                continue
            if no_op is not None and no_op.hint:
                raise _field_type_error(name, no_op, None)
            raise PydanticCustomError(
                UNSUPPORTED_PARAMETER,
                "{reason}",
                {
                    "field": name,
                    "reason": not_served[name],
                    "accepted": no_op.shown if no_op else "",
                },
            )
        return kept

    return drop


class StrictModel(BaseModel):
    """Base for OpenAI request shapes: unknown fields are rejected.

    A subclass that mirrors an OpenAI schema declares, per field, what LGOS
    tolerates of the fields it does not serve (rule:
    :mod:`~langgraph_openai_serve.api.tolerance`):

    - ``openai_not_served``: the fields OpenAI defines there that LGOS does
      not serve, name → why;
    - ``openai_no_op_values``: for some of them, the values that ask for
      nothing LGOS lacks: a tuple of exact JSON values (``n: (1,)``) or a
      :class:`~langgraph_openai_serve.api.tolerance.NoOp` (a hint of any
      string, ``include`` entries LGOS never emits);
    - ``client_fields``: names outside OpenAI's document that a named,
      well-known client always sends
      (:class:`~langgraph_openai_serve.api.tolerance.ClientField`).

    Before validation such a field is dropped as if omitted when its value
    is ``null``, an object of ``null`` members, or accepted; an unaccepted
    value fails with the error type ``unsupported_parameter`` (a hint or
    client field of the wrong type: ``lgos_field_type``, shown as
    ``invalid_type``), ``ctx["field"]`` naming the field. Names that OpenAI
    does not define and no client field covers stay ``extra_forbidden``
    (``unknown_parameter``). A model that also declares such a field keeps
    an accepted value in it instead of dropping it, so that the value can be
    echoed (``service_tier: "auto"`` on a Response).

    Rule source: the request schemas of OpenAI's OpenAPI document
    (``CreateResponse``, ``CreateChatCompletionRequest`` and their parts),
    checked by ``tests/contract/test_request_fields.py``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    openai_not_served: ClassVar[Mapping[str, str]] = {}
    openai_no_op_values: ClassVar[NoOps] = {}
    client_fields: ClassVar[Mapping[str, ClientField]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declares = any(
            name in cls.__dict__ for name in ("openai_not_served", "client_fields")
        )
        if declares and (cls.openai_not_served or cls.client_fields):
            # Only models with such fields pay for the check (a per-instance
            # validator), so ordinary input items validate at full speed.
            no_ops = {
                name: as_no_op(values)
                for name, values in cls.openai_no_op_values.items()
            }
            check = _drop_tolerated_fields(
                cls.openai_not_served, no_ops, cls.client_fields
            )
            validator = model_validator(mode="before")(check)
            cls._drop_tolerated_fields = validator  # type: ignore[attr-defined]


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
