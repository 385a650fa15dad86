"""Which values of the OpenAI fields LGOS does not serve ask for nothing.

The rule, on both APIs and for nested fields alike: LGOS refuses a value only
when honouring it would change what the client gets and neither LGOS nor the
graph honours it (a real ``temperature``, ``n: 2``, structured output). Every
other value is accepted, and changes nothing:

- ``null`` (and an object of ``null`` members): absence;
- a value asking for what LGOS does anyway: ``n: 1``, ``include: []``;
- a hint that never changes an answer: ``prompt_cache_key``;
- a request for a part the answer cannot contain: ``include:
  ["reasoning.encrypted_content"]`` or ``reasoning.summary``, since LGOS
  emits no reasoning items;
- a field outside OpenAI's document that a well-known client always sends,
  named one by one with that client (:class:`ClientField`): never a blanket
  "ignore unknown fields".

A request model declares these per field (see
:class:`~langgraph_openai_serve.api.request_fields.StrictModel`); this module holds
the value sets. Rule source: the request schemas of OpenAI's OpenAPI
document; for a field newer than LGOS's copy of it, the newest ``openai``
Python package's types.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import orjson

__all__ = [
    "INCLUDES_NEVER_EMITTED",
    "ClientField",
    "NoOp",
    "NoOps",
    "as_no_op",
    "asks_nothing",
    "entries_of",
    "exactly",
    "hint",
    "string_map",
]


@dataclass(frozen=True, slots=True)
class NoOp:
    """The values of one field that ask for nothing LGOS would have to do.

    Attributes:
        accepts: Whether a JSON value (never ``null``; an object without its
            ``null`` members) is one of them.
        shown: How an error message names them: ``1``, ``"auto" or
            "default"``, ``a string``.
        examples: Accepted values, each sent on the wire by the tests.
        hint: The field never changes an answer, so every value of its JSON
            type is accepted; any other value is a type error
            (``invalid_type``), not a request LGOS cannot honour.

    """

    accepts: Callable[[Any], bool]
    shown: str
    examples: tuple[Any, ...]
    hint: bool = False


@dataclass(frozen=True, slots=True)
class ClientField:
    """A field outside OpenAI's document that a named client always sends.

    It asks nothing of LGOS (bookkeeping the client keeps for itself), so a
    value of the expected shape is dropped; any other value is
    ``invalid_type``. Each entry names the client, so the list stays a list
    of known clients rather than a licence to ignore unknown names.

    Attributes:
        sent_by: The client that sends it (``Codex CLI``).
        value: The shape it has (a :func:`hint`-like :class:`NoOp`).

    """

    sent_by: str
    value: NoOp


NoOps: TypeAlias = Mapping[str, "tuple[Any, ...] | NoOp"]
"""Field name → its accepted values: exact JSON values, or a :class:`NoOp`."""


def _json_key(value: Any) -> bytes:
    # Exact JSON identity: 1, 1.0 and true differ; object key order does not.
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _show(value: Any) -> str:
    return orjson.dumps(value).decode()


def exactly(*values: Any) -> NoOp:
    """Accept exactly these JSON values (``n: 1``, ``service_tier: "auto"``).

    Values compare as JSON: ``true`` and ``1.0`` are not ``1``.
    """
    keys = frozenset(_json_key(value) for value in values)

    def accepts(value: Any) -> bool:
        try:
            return _json_key(value) in keys
        except TypeError:
            return False

    return NoOp(accepts, " or ".join(_show(v) for v in values), tuple(values))


_TYPE_NAMES = {str: "a string", int: "an integer", dict: "an object"}


def hint(kind: type[str] | type[int] | type[dict], example: Any) -> NoOp:
    """Accept any value of one JSON type: a hint that never changes an answer.

    ``kind`` is ``str``, ``int`` (JSON booleans excluded) or ``dict``.
    """

    def accepts(value: Any) -> bool:
        return isinstance(value, kind) and not isinstance(value, bool)

    return NoOp(accepts, _TYPE_NAMES[kind], (example,), hint=True)


def string_map(example: dict[str, str]) -> NoOp:
    """Accept any object of string values (client bookkeeping such as tags)."""

    def accepts(value: Any) -> bool:
        return isinstance(value, dict) and all(
            isinstance(item, str) for item in value.values()
        )

    return NoOp(accepts, "an object of strings", (example,), hint=True)


def entries_of(values: Iterable[str]) -> NoOp:
    """Accept a list (empty too) whose every entry is one of ``values``.

    For ``include``: entries naming parts LGOS never emits ask for nothing.
    """
    allowed = tuple(values)

    def accepts(value: Any) -> bool:
        return isinstance(value, list) and all(entry in allowed for entry in value)

    listed = ", ".join(_show(v) for v in allowed)
    examples = ([], *([entry] for entry in allowed), list(allowed))
    return NoOp(accepts, f"a list of any of {listed}", examples)


def as_no_op(values: tuple[Any, ...] | NoOp) -> NoOp:
    """Return ``values`` as a :class:`NoOp`; a tuple means :func:`exactly` those."""
    return values if isinstance(values, NoOp) else exactly(*values)


def asks_nothing(value: Any, no_op: NoOp | None) -> bool:
    """Whether ``value`` of an unserved field asks for nothing LGOS lacks.

    ``null`` always does; an object is judged without its ``null`` members
    (``{"effort": null}`` asks for no more than ``{}``).
    """
    if value is None:
        return True
    if isinstance(value, dict):
        value = {key: item for key, item in value.items() if item is not None}
    return no_op is not None and no_op.accepts(value)


# OpenAI's ``Includable`` values whose parts LGOS never emits: it runs no file
# search, computer or code interpreter tools, accepts no input images and emits
# no reasoning items. Not here, so refused: ``web_search_call.results`` and
# ``web_search_call.action.sources`` (LGOS emits web_search_call items and
# keeps their sources private) and ``message.output_text.logprobs`` (LGOS
# emits output text but has no token logprobs to add).
INCLUDES_NEVER_EMITTED = (
    "reasoning.encrypted_content",
    "file_search_call.results",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
)
"""``include`` entries naming parts LGOS never emits: accepted as no-ops."""
