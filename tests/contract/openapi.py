"""Validate JSON objects against OpenAI's published OpenAPI document.

Usage from any test::

    from tests.contract.openapi import validate, errors, strip_extensions

    validate("Response", body)                          # raises AssertionError
    validate("Model", model, extensions=("lgos",))      # drop our own extension
    assert errors("ErrorResponse", body) == []

``schema_name`` is a key of ``#/components/schemas`` in the document
(``Response``, ``ResponseStreamEvent``, ``CreateChatCompletionStreamResponse``, ...).

The document (``/work/shared/contracts/openai-openapi.json``, override with the
``OPENAI_OPENAPI_PATH`` environment variable) says ``openapi: 3.1.0`` but still
contains OpenAPI 3.0 constructs.  It is loaded and normalised once
(:func:`_document`) into plain JSON Schema Draft 2020-12, registered in a
``referencing.Registry`` under :data:`BASE_URI`, and one
``Draft202012Validator`` is built per schema name (:func:`_validator`), so the
helpers are cheap to call thousands of times.

Normalisations (see :func:`_normalise`), all applied only to schema positions
(``properties`` values, ``items``, ``allOf``/``anyOf``/``oneOf`` members, ...),
never to ``example``/``x-*`` payloads or to property *names*:

* ``nullable: true`` (OpenAPI 3.0) means "null is also allowed":

  - with ``$ref``/``allOf``/``anyOf``/``oneOf``/``not`` the schema becomes
    ``{"anyOf": [<original>, {"type": "null"}]}``;
  - otherwise ``type: X`` becomes ``type: [X, "null"]`` and ``None`` is added
    to an ``enum``;
  - an ``allOf`` member that is nothing but ``{nullable: true}`` (the document
    uses ``allOf: [{$ref: X}, {nullable: true}]``) makes the parent nullable
    and is removed;
  - ``nullable: false`` and a bare ``{nullable: true}`` are simply dropped.

* ``oneOf`` + ``discriminator.propertyName`` becomes ``anyOf``.  The
  discriminator already makes the branches mutually exclusive on the wire
  (OpenAI picks the branch by the ``type`` value), but several branches are
  open objects, so an instance can structurally satisfy two of them (e.g. the
  annotation / output-item unions) and a strict ``oneOf`` would then reject a
  perfectly valid object.  ``oneOf`` *without* a discriminator is kept as is.

* OpenAPI 3.0 boolean ``exclusiveMinimum``/``exclusiveMaximum`` become the
  2020-12 numeric form (Python would otherwise compare numbers with ``True``).

* ``$recursiveRef: "#"`` (2019-09, used by ``CompoundFilter``) becomes a
  ``$ref`` to the enclosing component; ``$recursiveAnchor`` is dropped.

* A few top-level keys of the objects LGOS sends are ``null`` on OpenAI's
  wire, and typed ``Optional`` by the ``openai`` SDK, though the document
  types them without null: ``usage`` and ``user`` of a Response (OpenAI sends
  ``"usage": null`` on ``response.created`` and ``"user": null`` when no
  user was given), its newer ``prompt_cache_options``, and a chat
  completion's ``usage`` and ``system_fingerprint`` (and a chunk's
  ``system_fingerprint``). LGOS sends every key, ``null`` where nothing
  gives a value, so these accept null too (:data:`NULL_ON_THE_WIRE`; ``user``
  is declared in ``ModelResponseProperties``, which the request schemas
  share). Nothing else is relaxed.

* OpenAPI-only keywords (``discriminator``, ``example``, ``x-*``,
  ``deprecated``, ...) are left in place: Draft 2020-12 ignores unknown
  keywords.  ``format`` (``unixtime``, ``uri``, ``date``, ...) is an
  annotation only: no format checker is configured.

Speed and messages: every discriminated ``anyOf`` gets a private
``x-contract-dispatch`` map (discriminator value -> branch indices).  The
validator's ``anyOf`` first tries the selected branch (a valid
``ResponseStreamEvent`` costs ~0.1 ms instead of trying ~60 branches), and
error messages follow the selected branch instead of guessing.  The verdict
is always the stock Draft 2020-12 ``anyOf`` verdict.
"""

from __future__ import annotations

import copy
import difflib
import heapq
import json
import os
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, relevance
from jsonschema.validators import extend
from referencing import Registry
from referencing.jsonschema import DRAFT202012

__all__ = [
    "BASE_URI",
    "CONTRACT_PATH",
    "NULL_ON_THE_WIRE",
    "errors",
    "schema",
    "schema_names",
    "strip_extensions",
    "validate",
]

CONTRACT_PATH = Path(
    os.environ.get("OPENAI_OPENAPI_PATH", "/work/shared/contracts/openai-openapi.json")
)

# Must be a hierarchical (http-like) URI: urllib's urljoin does not resolve
# "#/components/..." against e.g. a "urn:" base, and referencing uses urljoin.
BASE_URI = "https://contracts.invalid/openai-openapi.json"

_SCHEMA_PREFIX = "#/components/schemas/"

# Keywords whose value is a map of name -> subschema.
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
# Keywords whose value is a single subschema.
_SUBSCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)
# Keywords whose value is a list of subschemas.
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
# Keywords that make a schema "composite": nullability must wrap, not widen.
_COMPOSITE = ("$ref", "allOf", "anyOf", "oneOf", "not")
# Keywords with no validation effect (used to spot bare {nullable: true}).
_ANNOTATIONS = frozenset(
    {
        "nullable",
        "description",
        "title",
        "default",
        "example",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)

_MAX_MESSAGE = 300

NULL_ON_THE_WIRE: dict[str, tuple[str, ...]] = {
    "Response": ("usage", "user", "prompt_cache_options"),
    "CreateChatCompletionResponse": ("usage", "system_fingerprint"),
    "CreateChatCompletionStreamResponse": ("system_fingerprint",),
}
"""Top-level keys that may be null though the document says otherwise."""

# Private keyword added next to every discriminated anyOf: which branch(es)
# each discriminator value selects.  Used only to go fast on valid instances
# and to pick the right branch for error messages; never changes the verdict.
_DISPATCH = "x-contract-dispatch"


# --------------------------------------------------------------------------
# Loading and normalisation
# --------------------------------------------------------------------------


def _is_bare_nullable(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and node.get("nullable") is True
        and all(k in _ANNOTATIONS or k.startswith("x-") for k in node)
    )


def _normalise(node: Any, component: str) -> Any:
    """Return a Draft 2020-12 version of one (sub)schema; see module doc."""
    if not isinstance(node, dict):
        return node  # boolean schemas
    node = dict(node)

    nullable = node.pop("nullable", False) is True

    # allOf: [{$ref: X}, {nullable: true}]  ->  nullable parent, allOf: [{$ref: X}]
    if isinstance(node.get("allOf"), list) and any(
        _is_bare_nullable(m) for m in node["allOf"]
    ):
        nullable = True
        node["allOf"] = [m for m in node["allOf"] if not _is_bare_nullable(m)]
        if not node["allOf"]:
            del node["allOf"]

    # Recurse into subschemas.
    for key in _SUBSCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            node[key] = {n: _normalise(s, component) for n, s in node[key].items()}
    for key in _SUBSCHEMA_ONE:
        if key in node:
            node[key] = _normalise(node[key], component)
    for key in _SUBSCHEMA_LISTS:
        if isinstance(node.get(key), list):
            node[key] = [_normalise(s, component) for s in node[key]]

    # 2019-09 recursion -> plain $ref to the enclosing component.
    node.pop("$recursiveAnchor", None)
    if node.get("$recursiveRef") == "#":
        del node["$recursiveRef"]
        node["$ref"] = _SCHEMA_PREFIX + component

    # OpenAPI 3.0 boolean exclusive bounds -> 2020-12 numeric form.
    for exclusive, bound in (
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ):
        value = node.get(exclusive)
        if isinstance(value, bool):
            del node[exclusive]
            if value and bound in node:
                node[exclusive] = node.pop(bound)

    # Discriminated oneOf -> anyOf (documented choice, see module docstring).
    discriminator = node.get("discriminator")
    if (
        isinstance(discriminator, dict)
        and discriminator.get("propertyName")
        and "oneOf" in node
        and "anyOf" not in node
    ):
        node["anyOf"] = node.pop("oneOf")

    if not nullable:
        return node
    if any(key in node for key in _COMPOSITE):
        return {"anyOf": [node, {"type": "null"}]}
    if "type" in node:
        types = node["type"] if isinstance(node["type"], list) else [node["type"]]
        if "null" not in types:
            node["type"] = [*types, "null"]
    if isinstance(node.get("enum"), list) and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


def _discriminator_values(
    branch: Any, prop: str, schemas: dict[str, Any], depth: int = 0
) -> set[str] | None:
    """Discriminator values a union branch accepts, or None if unknown."""
    if not isinstance(branch, dict) or depth > 10:
        return None
    ref = branch.get("$ref")
    if isinstance(ref, str):
        target = schemas.get(ref.removeprefix(_SCHEMA_PREFIX))
        return _discriminator_values(target, prop, schemas, depth + 1)
    spec = branch.get("properties", {}).get(prop)
    if isinstance(spec, dict):
        if isinstance(spec.get("enum"), list):
            return {v for v in spec["enum"] if isinstance(v, str)}
        if isinstance(spec.get("const"), str):
            return {spec["const"]}
    for member in branch.get("allOf", ()):
        found = _discriminator_values(member, prop, schemas, depth + 1)
        if found is not None:
            return found
    if isinstance(branch.get("anyOf"), list):
        union: set[str] = set()
        for member in branch["anyOf"]:
            if member == {"type": "null"}:
                continue
            found = _discriminator_values(member, prop, schemas, depth + 1)
            if found is None:
                return None
            union |= found
        return union
    return None


def _add_dispatch(node: Any, schemas: dict[str, Any]) -> None:
    """Annotate every discriminated anyOf below ``node`` with _DISPATCH."""
    if isinstance(node, list):
        for item in node:
            _add_dispatch(item, schemas)
        return
    if not isinstance(node, dict):
        return
    for key in _SUBSCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            for sub in node[key].values():
                _add_dispatch(sub, schemas)
    for key in (*_SUBSCHEMA_ONE, *_SUBSCHEMA_LISTS):
        if key in node:
            _add_dispatch(node[key], schemas)
    discriminator = node.get("discriminator")
    if (
        isinstance(discriminator, dict)
        and isinstance(discriminator.get("propertyName"), str)
        and isinstance(node.get("anyOf"), list)
    ):
        prop = discriminator["propertyName"]
        values: dict[str, list[int]] = {}
        complete = True
        for index, branch in enumerate(node["anyOf"]):
            found = _discriminator_values(branch, prop, schemas)
            if found is None:
                complete = False
                continue
            for value in sorted(found):
                values.setdefault(value, []).append(index)
        node[_DISPATCH] = {"property": prop, "values": values, "complete": complete}


def _properties_holding(
    node: dict[str, Any], name: str, schemas: dict[str, Any]
) -> dict[str, Any]:
    """The ``properties`` map that declares ``name``, through allOf and refs."""
    if name in node.get("properties", {}):
        return node["properties"]
    for member in node.get("allOf", ()):
        ref = member.get("$ref")
        target = schemas[ref.removeprefix(_SCHEMA_PREFIX)] if ref else member
        try:
            return _properties_holding(target, name, schemas)
        except KeyError:
            continue
    raise KeyError(name)


def _allow_null(schemas: dict[str, Any]) -> None:
    """Let the keys of :data:`NULL_ON_THE_WIRE` be null (see module doc)."""
    for schema_name, names in NULL_ON_THE_WIRE.items():
        for name in names:
            properties = _properties_holding(schemas[schema_name], name, schemas)
            properties[name] = {"anyOf": [properties[name], {"type": "null"}]}


@cache
def _document() -> dict[str, Any]:
    """Load the OpenAPI document once and normalise every component schema."""
    with CONTRACT_PATH.open(encoding="utf-8") as f:
        raw = json.load(f)
    schemas = {
        name: _normalise(s, name) for name, s in raw["components"]["schemas"].items()
    }
    _allow_null(schemas)
    for s in schemas.values():
        _add_dispatch(s, schemas)
    return {"components": {"schemas": schemas}}


_stock_any_of = Draft202012Validator.VALIDATORS["anyOf"]


def _any_of(validator: Any, any_of: list[Any], instance: Any, schema_: Any):
    """``anyOf`` that first tries the branch a discriminator value selects.

    Pure fast path: if the selected branch accepts the instance, the anyOf is
    satisfied (as it would be by the stock implementation); otherwise the
    stock implementation runs and produces the usual errors.
    """
    dispatch = schema_.get(_DISPATCH) if isinstance(schema_, dict) else None
    if dispatch is not None and isinstance(instance, dict):
        value = instance.get(dispatch["property"])
        if isinstance(value, str):
            for index in dispatch["values"].get(value, ()):
                branch_errors = validator.descend(
                    instance, any_of[index], schema_path=index
                )
                if next(branch_errors, None) is None:
                    return
    yield from _stock_any_of(validator, any_of, instance, schema_)


_ContractValidator = extend(Draft202012Validator, {"anyOf": _any_of})


@cache
def _registry() -> Registry:
    resource = DRAFT202012.create_resource(_document())
    return Registry().with_resource(BASE_URI, resource)


def schema_names() -> list[str]:
    """All component schema names in the document."""
    return list(_document()["components"]["schemas"])


def schema(schema_name: str) -> dict[str, Any]:
    """The normalised ``#/components/schemas/<schema_name>`` (do not mutate)."""
    schemas = _document()["components"]["schemas"]
    try:
        return schemas[schema_name]
    except KeyError:
        close = difflib.get_close_matches(schema_name, schemas, n=5, cutoff=0.6)
        raise KeyError(
            f"no schema {schema_name!r} in {CONTRACT_PATH}; close matches: {close}"
        ) from None


@cache
def _validator(schema_name: str) -> Any:
    schema(schema_name)  # fail early with a helpful KeyError
    root = {"$ref": f"{BASE_URI}{_SCHEMA_PREFIX}{schema_name}"}
    return _ContractValidator(root, registry=_registry())


# --------------------------------------------------------------------------
# Extensions
# --------------------------------------------------------------------------


def _strip(obj: Any, keys: frozenset[str]) -> Any:
    if isinstance(obj, Mapping):
        return {k: _strip(v, keys) for k, v in obj.items() if k not in keys}
    if isinstance(obj, list | tuple):
        return [_strip(v, keys) for v in obj]
    return copy.deepcopy(obj)


def strip_extensions(obj: Any, keys: Iterable[str] = ("lgos",)) -> Any:
    """Deep copy of ``obj`` without the extension ``keys``.

    The keys are removed from *every* dict in the structure, not only the top
    level: a ``Model`` carries ``lgos`` at the top, a ``ListModelsResponse``
    inside each ``data`` entry.  The input is never mutated.
    """
    if isinstance(keys, str):
        keys = (keys,)
    return _strip(obj, frozenset(keys))


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _shorten(text: str, limit: int = _MAX_MESSAGE) -> str:
    if len(text) <= limit:
        return text
    return f"{text[: limit - 25]} ...[{len(text)} chars]"


def _select_branch(
    error: ValidationError,
) -> tuple[list[ValidationError] | None, str | None]:
    """Follow the discriminator of a failed discriminated ``anyOf``.

    Returns ``(errors of the selected branch, note)``; ``([], None)`` when the
    union is not discriminated (caller falls back to the plain best match) and
    ``(None, note)`` when the discriminator value itself is the problem.
    """
    schema_ = error.schema if isinstance(error.schema, dict) else {}
    dispatch = schema_.get(_DISPATCH)
    if (
        error.validator != "anyOf"
        or not dispatch
        or not isinstance(error.instance, dict)
    ):
        return [], None
    prop, values = dispatch["property"], dispatch["values"]
    if prop not in error.instance:
        if dispatch["complete"]:
            return None, f"missing discriminator property {prop!r}"
        return [], None
    value = error.instance[prop]
    indices = values.get(value) if isinstance(value, str) else None
    if not indices:
        if dispatch["complete"]:
            allowed = _shorten(repr(sorted(values)), 300)
            close = (
                difflib.get_close_matches(value, values, n=3, cutoff=0.6)
                if isinstance(value, str)
                else []
            )
            hint = f"did you mean {close}? " if close else ""
            return None, (
                f"{prop} = {value!r} matches no branch of the union; "
                f"{hint}allowed values: {allowed}"
            )
        return [], None
    selected = [
        e
        for e in error.context
        if e.relative_schema_path and e.relative_schema_path[0] in indices
    ]
    return (
        selected,
        f"{prop} = {value!r} selects the {_branch_names(schema_, indices)} branch",
    )


def _branch_names(schema_: dict[str, Any], indices: list[int]) -> str:
    names = []
    for i in indices:
        ref = (
            schema_["anyOf"][i].get("$ref", "")
            if isinstance(schema_["anyOf"][i], dict)
            else ""
        )
        names.append(ref.removeprefix(_SCHEMA_PREFIX) or f"#{i}")
    return "/".join(names)


def _descend(
    error: ValidationError,
) -> tuple[ValidationError, list[str]]:
    """The most relevant error below ``error``, plus notes on the way down.

    This is the descent of ``jsonschema.exceptions.best_match([error])`` (same
    ``relevance`` key, same "stop on a tie" rule), taken one level at a time so
    that through a discriminated union it follows the branch the
    discriminator value selects instead of guessing among all branches.
    (Note ``best_match(error.context)`` would be wrong here: at the top level
    best_match prefers the *shallowest* error, e.g. "... is not of type
    'null'" from the null branch of a nullable wrapper.)
    """
    notes: list[str] = []
    best = error
    while best.context:
        selected, note = _select_branch(best)
        if note:
            notes.append(note)
        if selected is None:
            break
        candidates = selected or list(best.context)
        smallest = heapq.nsmallest(2, candidates, key=relevance)
        if len(smallest) == 2 and relevance(smallest[0]) == relevance(smallest[1]):
            if selected:
                best = smallest[0]  # all in the right branch: any will do
                continue
            tied = [e for e in candidates if relevance(e) == relevance(smallest[0])]
            listed = "; ".join(
                f"{e.json_path}: {_shorten(e.message, 120)}" for e in tied[:4]
            )
            notes.append(f"no single best branch; candidates: {listed}")
            break
        best = smallest[0]
    return best, notes


def _describe(error: ValidationError) -> str:
    schema_path = "/".join(map(str, error.schema_path))
    # Union messages embed the whole instance repr: keep them short.
    limit = 160 if error.validator in ("anyOf", "oneOf") else _MAX_MESSAGE
    line = (
        f"{error.json_path}: {_shorten(error.message, limit)}  [schema: {schema_path}]"
    )
    if error.context:
        leaf, notes = _descend(error)
        for note in notes:
            line += f"\n    ({note})"
        if leaf is not error:
            sub = f"{leaf.json_path}: {_shorten(leaf.message)}"
            line += f"\n    best-matching sub-error: {sub}"
    return line


def errors(
    schema_name: str, instance: object, *, extensions: Iterable[str] = ()
) -> list[str]:
    """Readable validation errors of ``instance`` against ``schema_name``.

    ``extensions`` keys are stripped (at every level) first; see
    :func:`strip_extensions`.  Returns ``[]`` when the instance is valid.
    """
    validator = _validator(schema_name)
    if extensions:
        instance = strip_extensions(instance, extensions)
    found = sorted(
        validator.iter_errors(instance), key=lambda e: [str(p) for p in e.path]
    )
    return [_describe(e) for e in found]


def validate(
    schema_name: str, instance: object, *, extensions: Iterable[str] = ()
) -> None:
    """Assert that ``instance`` satisfies ``#/components/schemas/<schema_name>``.

    Raises ``AssertionError`` listing, per violation, the JSON path, the
    validator message and, for anyOf/oneOf failures, the best-matching
    (discriminator-selected where possible) sub-error.
    """
    validator = _validator(schema_name)
    if extensions:
        instance = strip_extensions(instance, extensions)
    if validator.is_valid(instance):
        return
    problems = errors(schema_name, instance)
    raise AssertionError(
        f"{len(problems)} OpenAPI contract violation(s) against {schema_name!r}:\n"
        + "\n".join(f"- {p}" for p in problems)
    )
