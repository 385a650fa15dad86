"""A graph's runtime settings in the chat: JSON Schema to widgets, values to metadata.

Everything here is pure: no I/O and no Chainlit context (only its widget
classes), so it is unit-tested directly. The flow for one chat:

1. :func:`build_setting_fields` maps the descriptor's JSON Schema (from
   :func:`~lgos_client.extension.describe_model`) to Chainlit input widgets
   (:func:`schema_to_widgets` returns just the widgets);
2. :func:`coerce_settings` turns what the settings panel sends back into values
   of the schema's types;
3. :func:`~lgos_client.extension.settings_metadata` (the client core) encodes
   the values that differ from the defaults as the ``lgos_settings`` metadata
   entry of a Responses request.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

from chainlit.input_widget import (
    InputWidget,
    NumberInput,
    Select,
    Slider,
    Switch,
    TextInput,
)

from lgos_client.extension import ClientSettingsDescriptor

__all__ = [
    "SettingField",
    "build_setting_fields",
    "coerce_settings",
    "humanize",
    "schema_to_widgets",
]

SettingKind = Literal["boolean", "enum", "integer", "number", "string"]

_MAX_REF_DEPTH = 16


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


# --------------------------------------------------------------------------
# JSON Schema → widgets
# --------------------------------------------------------------------------

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def humanize(name: str) -> str:
    """Turn a field name into a label: ``use_history`` → ``Use history``."""
    words = _CAMEL_BOUNDARY.sub(" ", name).replace("_", " ").replace("-", " ")
    text = " ".join(words.split())
    if not text:
        return name
    return text[0].upper() + text[1:].lower()


@dataclass(frozen=True, slots=True)
class SettingField:
    """One runtime setting the UI can edit: its widget and how to read it back.

    ``choices`` maps each ``Select`` value (a string) back to the enum member
    it stands for, so non-string enums round-trip.
    """

    name: str
    kind: SettingKind
    widget: InputWidget
    nullable: bool = False
    choices: Mapping[str, Any] = field(default_factory=dict)


def _lookup_ref(root: Mapping[str, Any], ref: str) -> object:
    """Resolve a local JSON pointer such as ``#/$defs/Audience``."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: object = root
    for token in ref[2:].split("/"):
        key = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _resolve(
    schema: object, root: Mapping[str, Any], depth: int = 0
) -> dict[str, Any] | None:
    """Inline local ``$ref`` and single-member ``allOf`` wrappers.

    Keywords next to the reference (``title``, ``description``, ``default``)
    win over the referenced schema's, as in JSON Schema 2020-12 practice.
    """
    if depth > _MAX_REF_DEPTH or not isinstance(schema, Mapping):
        return None
    node = dict(schema)
    ref = node.pop("$ref", None)
    if isinstance(ref, str):
        target = _resolve(_lookup_ref(root, ref), root, depth + 1)
        return None if target is None else {**target, **node}
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        node.pop("allOf")
        inner = _resolve(all_of[0], root, depth + 1)
        return None if inner is None else {**inner, **node}
    return node


def _is_null_schema(schema: object) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "null"


def _unwrap_nullable(
    schema: dict[str, Any], root: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, bool]:
    """Reduce ``anyOf: [X, {"type": "null"}]`` and ``type: [X, "null"]`` to X."""
    for keyword in ("anyOf", "oneOf"):
        options = schema.get(keyword)
        if not isinstance(options, list):
            continue
        non_null = [o for o in options if not _is_null_schema(o)]
        if len(options) != 2 or len(non_null) != 1:
            return None, False
        inner = _resolve(non_null[0], root)
        if inner is None:
            return None, False
        outer = {k: v for k, v in schema.items() if k != keyword}
        return {**inner, **outer}, True
    types = schema.get("type")
    if isinstance(types, list):
        non_null_types = [t for t in types if t != "null"]
        if len(non_null_types) != 1:
            return None, False
        return {**schema, "type": non_null_types[0]}, len(types) == 2
    return schema, False


def _slider_step(kind: SettingKind, low: float, high: float, schema: Mapping) -> float:
    multiple = schema.get("multipleOf")
    if _is_number(multiple) and multiple > 0:
        return multiple
    if kind == "integer":
        return 1
    span = high - low
    if span <= 0:
        return 1
    return 10 ** math.floor(math.log10(span / 100))


def _bounds(
    kind: SettingKind, schema: Mapping[str, Any]
) -> tuple[float | None, float | None]:
    """Return inclusive slider bounds from (exclusive) minimum/maximum."""
    minimum = schema.get("minimum")
    maximum = schema.get("maximum")
    low: float | None = minimum if _is_number(minimum) else None
    high: float | None = maximum if _is_number(maximum) else None
    ex_low = schema.get("exclusiveMinimum")
    ex_high = schema.get("exclusiveMaximum")
    if _is_number(ex_low):
        bumped = math.floor(ex_low) + 1 if kind == "integer" else ex_low
        low = bumped if low is None else max(low, bumped)
    if _is_number(ex_high):
        bumped = math.ceil(ex_high) - 1 if kind == "integer" else ex_high
        high = bumped if high is None else min(high, bumped)
    if kind == "integer":
        low = math.ceil(low) if low is not None else None
        high = math.floor(high) if high is not None else None
    return low, high


def _number_field(
    name: str,
    kind: SettingKind,
    schema: Mapping[str, Any],
    common: dict[str, Any],
    initial: object,
    nullable: bool,
) -> SettingField | None:
    low, high = _bounds(kind, schema)
    if low is not None and high is not None and low <= high and _is_number(initial):
        step = _slider_step(kind, low, high, schema)
        if kind == "number":
            # Exclusive bounds are not selectable: keep one step inside them.
            if _is_number(schema.get("exclusiveMinimum")) and low == schema.get(
                "exclusiveMinimum"
            ):
                low += step
            if _is_number(schema.get("exclusiveMaximum")) and high == schema.get(
                "exclusiveMaximum"
            ):
                high -= step
        widget: InputWidget = Slider(
            **common, initial=initial, min=low, max=high, step=step
        )
        return SettingField(name, kind, widget, nullable)
    number_initial = initial if _is_number(initial) else None
    if number_initial is None and not nullable:
        return None
    widget = NumberInput(**common, initial=number_initial)
    return SettingField(name, kind, widget, nullable)


def _field_for(
    name: str,
    schema: dict[str, Any],
    root: Mapping[str, Any],
    defaults: Mapping[str, Any],
) -> SettingField | None:
    if schema.get("readOnly") is True or "const" in schema:
        return None
    unwrapped, nullable = _unwrap_nullable(schema, root)
    if unwrapped is None:
        return None
    schema = unwrapped
    title = schema.get("title")
    description = schema.get("description")
    common: dict[str, Any] = {
        "id": name,
        "label": title if isinstance(title, str) and title.strip() else humanize(name),
        "description": description if isinstance(description, str) else None,
    }
    # `defaults` is authoritative; the schema's `default` is only a fallback.
    initial = defaults[name] if name in defaults else schema.get("default")
    schema_type = schema.get("type")

    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        members = [m for m in enum if m is not None]
        if not members or not all(
            isinstance(m, str | int | float | bool) for m in members
        ):
            return None
        choices = {str(m): m for m in members}
        if len(choices) != len(members):
            return None
        chosen = str(initial) if initial is not None and initial in members else None
        widget = Select(
            **common, values=list(choices), initial_value=chosen, initial_index=None
        )
        return SettingField(
            name, "enum", widget, nullable or None in enum, choices=choices
        )

    if schema_type == "boolean":
        return SettingField(
            name, "boolean", Switch(**common, initial=initial is True), nullable
        )
    if schema_type in ("integer", "number"):
        return _number_field(name, schema_type, schema, common, initial, nullable)
    if schema_type == "string":
        widget = TextInput(
            **common, initial=initial if isinstance(initial, str) else None
        )
        return SettingField(name, "string", widget, nullable)
    return None


def build_setting_fields(descriptor: ClientSettingsDescriptor) -> list[SettingField]:
    """Map the descriptor's top-level properties to editable fields.

    Mapping: boolean → ``Switch``; ``enum`` → ``Select``; integer or number
    with both bounds (``minimum``/``maximum``, exclusive bounds allowed) →
    ``Slider`` (step 1, or ``multipleOf``, for integers); other integers and
    numbers → ``NumberInput``; string → ``TextInput``. Labels come from
    ``title`` (else the humanized name), ``description`` becomes the widget
    description, and the initial value comes from ``defaults``. Local ``$ref``,
    single ``allOf`` and nullable ``anyOf`` wrappers are unwrapped; arrays,
    objects, ``const`` and other shapes are skipped.
    """
    schema = descriptor.json_schema
    properties = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(properties, Mapping):
        return []
    fields: list[SettingField] = []
    for name, raw in properties.items():
        if not isinstance(name, str) or not name:
            continue
        resolved = _resolve(raw, schema)
        if resolved is None:
            continue
        setting = _field_for(name, resolved, schema, descriptor.defaults)
        if setting is not None:
            fields.append(setting)
    return fields


def schema_to_widgets(descriptor: ClientSettingsDescriptor) -> list[InputWidget]:
    """Return the Chainlit input widgets for a settings descriptor."""
    return [f.widget for f in build_setting_fields(descriptor)]


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------

_TRUE_STRINGS = frozenset({"true", "1", "yes", "on"})


def _coerce(setting: SettingField, value: Any) -> Any:
    """Convert one value sent by the settings panel to the schema's type.

    Values that cannot be converted are returned unchanged: LGOS validates
    settings and answers HTTP 400 with a readable message.
    """
    if setting.nullable and (value is None or value == ""):
        return None
    match setting.kind:
        case "boolean":
            if isinstance(value, str):
                return value.strip().lower() in _TRUE_STRINGS
            return bool(value) if value is not None else value
        case "enum":
            if value is None:
                return None
            return setting.choices.get(str(value), value)
        case "integer":
            number = _to_number(value)
            if isinstance(number, float) and number.is_integer():
                return int(number)
            return number
        case "number":
            return _to_number(value)
        case "string":
            if value is None:
                # The settings panel sends a cleared text box as null.
                return ""
            return value if isinstance(value, str) else str(value)
    return value  # pragma: no cover - exhaustive above


def _to_number(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return value
    return value


def coerce_settings(
    values: Mapping[str, Any], fields: Iterable[SettingField]
) -> dict[str, Any]:
    """Keep the values of known fields, converted to their schema types."""
    by_name = {f.name: f for f in fields}
    return {
        name: _coerce(by_name[name], value)
        for name, value in values.items()
        if name in by_name
    }
