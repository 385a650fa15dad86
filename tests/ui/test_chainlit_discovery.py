import json
from enum import StrEnum
from typing import Literal

import pytest
from chainlit.input_widget import NumberInput, Select, Slider, Switch, TextInput
from openai.types import Model
from pydantic import BaseModel, ConfigDict, Field

from lgos_chainlit.runtime_settings import (
    build_setting_fields,
    coerce_settings,
    humanize,
    schema_to_widgets,
)
from lgos_client.extension import (
    ClientSettingsDescriptor,
    describe_model,
    parse_client_settings,
    settings_metadata,
)

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "use_history": {
            "type": "boolean",
            "default": False,
            "title": "Use conversation history",
        },
        "audience": {
            "type": "string",
            "enum": ["general", "beginner", "expert"],
            "default": "general",
            "title": "Audience",
            "description": "Who the answer is written for.",
        },
    },
    "additionalProperties": False,
}
DEFAULTS = {"use_history": False, "audience": "general"}


def lgos_model(**lgos: object) -> Model:
    """An SDK Model as `models.retrieve` returns it, with an `lgos` extra."""
    data: dict[str, object] = {
        "id": "chat",
        "object": "model",
        "created": 1720000000,
        "owned_by": "langgraph-openai-serve",
    }
    if lgos:
        data["lgos"] = lgos
    return Model.model_validate(data)


def descriptor(schema: dict, defaults: dict | None = None) -> ClientSettingsDescriptor:
    return ClientSettingsDescriptor(
        schema_version=1, json_schema=schema, defaults=defaults or {}
    )


# -- describe_model ---------------------------------------------------------


def test_describe_model_reads_the_full_extension_from_model_extra() -> None:
    model = lgos_model(
        schema_version=1,
        description="Streams answers with configurable audience.",
        features=["client_events", 7, "future_feature"],
        client_settings={
            "schema_version": 1,
            "json_schema": SCHEMA,
            "defaults": DEFAULTS,
        },
        unknown_field={"ignored": True},
    )

    caps = describe_model(model)

    assert caps.model_id == "chat"
    assert not caps.limited
    assert caps.limitation is None
    assert caps.description == "Streams answers with configurable audience."
    assert caps.features == ("client_events", "future_feature")
    assert caps.client_settings is not None
    assert caps.client_settings.defaults == DEFAULTS
    assert caps.client_settings.json_schema == SCHEMA


def test_describe_model_list_entry_without_settings() -> None:
    caps = describe_model(lgos_model(schema_version=1, description="d", features=[]))

    assert not caps.limited
    assert caps.client_settings is None
    assert caps.extension is not None
    assert caps.extension.settings_unsupported is None


def test_describe_model_accepts_plain_mappings() -> None:
    caps = describe_model(
        {"id": "m", "lgos": {"schema_version": 1, "description": "x", "features": []}}
    )

    assert caps.model_id == "m"
    assert caps.description == "x"


def test_missing_extension_means_limited_functionality() -> None:
    caps = describe_model(lgos_model())

    assert caps.limited
    assert caps.extension is None
    assert caps.limitation is not None and "no LGOS extension" in caps.limitation
    assert caps.client_settings is None
    assert caps.features == ()
    assert caps.description == ""


@pytest.mark.parametrize("version", [2, 0, "1", True, None, 1.5])
def test_unsupported_outer_version_means_limited_functionality(
    version: object,
) -> None:
    caps = describe_model(
        lgos_model(
            schema_version=version,
            description="new",
            features=[],
            client_settings={"schema_version": 1, "json_schema": SCHEMA},
        )
    )

    assert caps.limited
    assert caps.limitation is not None and "schema_version" in caps.limitation
    assert caps.client_settings is None


def test_malformed_extension_means_limited_functionality() -> None:
    assert describe_model({"id": "m", "lgos": "yes"}).limited


@pytest.mark.parametrize("version", [2, "1", None])
def test_unsupported_settings_version_disables_only_settings(version: object) -> None:
    caps = describe_model(
        lgos_model(
            schema_version=1,
            description="still an LGOS graph",
            features=["client_events"],
            client_settings={
                "schema_version": version,
                "json_schema": SCHEMA,
                "defaults": DEFAULTS,
            },
        )
    )

    assert not caps.limited
    assert caps.description == "still an LGOS graph"
    assert caps.features == ("client_events",)
    assert caps.client_settings is None
    assert caps.extension is not None
    assert "schema_version" in (caps.extension.settings_unsupported or "")


def test_parse_client_settings_shapes() -> None:
    assert parse_client_settings(None) == (None, None)
    assert parse_client_settings([])[1] == "client_settings is not an object"
    assert parse_client_settings({"schema_version": 1, "json_schema": 3})[0] is None
    parsed, reason = parse_client_settings({"schema_version": 1, "json_schema": {}})
    assert reason is None
    assert parsed == ClientSettingsDescriptor(
        schema_version=1, json_schema={}, defaults={}
    )


# -- widgets ----------------------------------------------------------------


def test_example_schema_maps_to_switch_and_select() -> None:
    widgets = schema_to_widgets(descriptor(SCHEMA, DEFAULTS))

    assert [type(w) for w in widgets] == [Switch, Select]
    switch, select = widgets
    assert switch.to_dict() == {
        "type": "switch",
        "id": "use_history",
        "label": "Use conversation history",
        "initial": False,
        "tooltip": None,
        "description": None,
        "disabled": False,
    }
    assert select.to_dict()["items"] == [
        {"label": "general", "value": "general"},
        {"label": "beginner", "value": "beginner"},
        {"label": "expert", "value": "expert"},
    ]
    assert select.label == "Audience"
    assert select.description == "Who the answer is written for."
    assert select.initial == "general"


def test_initial_values_come_from_defaults_not_schema_default() -> None:
    schema = {
        "type": "object",
        "properties": {
            "use_history": {"type": "boolean", "default": False},
            "audience": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "depth": {"type": "integer", "minimum": 1, "maximum": 5, "default": 1},
            "label": {"type": "string", "default": "raw"},
        },
    }
    defaults = {"use_history": True, "audience": "b", "depth": 4, "label": "norm"}

    widgets = {w.id: w for w in schema_to_widgets(descriptor(schema, defaults))}

    assert widgets["use_history"].initial is True
    assert widgets["audience"].initial == "b"
    assert widgets["depth"].initial == 4
    assert widgets["label"].initial == "norm"


def test_schema_default_is_the_fallback_when_defaults_lack_a_field() -> None:
    schema = {
        "type": "object",
        "properties": {"verbose": {"type": "boolean", "default": True}},
    }

    (widget,) = schema_to_widgets(descriptor(schema, {}))

    assert widget.initial is True


def test_bounded_integer_is_a_slider_with_step_one() -> None:
    schema = {
        "type": "object",
        "properties": {
            "max_steps": {
                "type": "integer",
                "minimum": 1,
                "maximum": 10,
                "title": "Max steps",
                "description": "Upper bound on research steps.",
            }
        },
    }

    (slider,) = schema_to_widgets(descriptor(schema, {"max_steps": 3}))

    assert isinstance(slider, Slider)
    assert (slider.min, slider.max, slider.step, slider.initial) == (1, 10, 1, 3)
    assert slider.label == "Max steps"
    assert slider.description == "Upper bound on research steps."


def test_exclusive_integer_bounds_become_inclusive_slider_bounds() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 8}
        },
    }

    (slider,) = schema_to_widgets(descriptor(schema, {"n": 2}))

    assert isinstance(slider, Slider)
    assert (slider.min, slider.max) == (1, 7)


def test_bounded_number_slider_has_a_fine_step() -> None:
    schema = {
        "type": "object",
        "properties": {
            "temperature": {"type": "number", "minimum": 0, "maximum": 2},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.25},
        },
    }

    temperature, ratio = schema_to_widgets(
        descriptor(schema, {"temperature": 0.7, "ratio": 0.5})
    )

    assert isinstance(temperature, Slider)
    assert temperature.step == pytest.approx(0.01)
    assert (temperature.min, temperature.max) == (0, 2)
    assert isinstance(ratio, Slider)
    assert ratio.step == 0.25


def test_number_without_both_bounds_is_a_number_input() -> None:
    schema = {
        "type": "object",
        "properties": {"budget": {"type": "number", "minimum": 0}},
    }

    (widget,) = schema_to_widgets(descriptor(schema, {"budget": 2.5}))

    assert isinstance(widget, NumberInput)
    assert widget.initial == 2.5


def test_string_is_a_text_input() -> None:
    schema = {
        "type": "object",
        "properties": {"topic_hint": {"type": "string", "maxLength": 80}},
    }

    (widget,) = schema_to_widgets(descriptor(schema, {"topic_hint": "rivers"}))

    assert isinstance(widget, TextInput)
    assert widget.label == "Topic hint"
    assert widget.initial == "rivers"


def test_unsupported_shapes_are_skipped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "nested": {"type": "object", "properties": {}},
            "fixed": {"const": "x"},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "dangling": {"$ref": "#/$defs/Missing"},
            "objects": {"enum": [{"a": 1}]},
            "kept": {"type": "boolean"},
        },
    }

    fields = build_setting_fields(descriptor(schema, {}))

    assert [f.name for f in fields] == ["kept"]


def test_non_object_schema_has_no_fields() -> None:
    assert build_setting_fields(descriptor({"type": "string"})) == []
    assert build_setting_fields(descriptor({"type": "object"})) == []


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("use_history", "Use history"),
        ("maxSteps", "Max steps"),
        ("audience", "Audience"),
        ("search-depth", "Search depth"),
    ],
)
def test_humanize(name: str, label: str) -> None:
    assert humanize(name) == label


class Tone(StrEnum):
    plain = "plain"
    formal = "formal"


class DemoSettings(BaseModel):
    """Settings shaped like an LGOS ClientSettings model."""

    model_config = ConfigDict(extra="forbid")

    use_history: bool = Field(default=False, title="Use conversation history")
    audience: Literal["general", "beginner", "expert"] = Field(
        default="general", title="Audience", description="Reader level."
    )
    tone: Tone = Tone.plain
    max_steps: int = Field(default=3, ge=1, le=8)
    temperature: float = Field(default=0.5, gt=0, le=1)
    nickname: str | None = Field(default=None, max_length=20)
    limit: int | None = None


def test_pydantic_generated_schema_maps_to_widgets() -> None:
    schema = DemoSettings.model_json_schema()
    defaults = DemoSettings().model_dump(mode="json")

    fields = {f.name: f for f in build_setting_fields(descriptor(schema, defaults))}

    assert list(fields) == [
        "use_history",
        "audience",
        "tone",
        "max_steps",
        "temperature",
        "nickname",
        "limit",
    ]
    assert isinstance(fields["use_history"].widget, Switch)
    assert fields["use_history"].widget.label == "Use conversation history"
    assert isinstance(fields["audience"].widget, Select)
    assert fields["audience"].widget.description == "Reader level."
    tone = fields["tone"].widget  # an Enum: a $ref into $defs
    assert isinstance(tone, Select)
    assert tone.initial == "plain"
    assert tone.items == {"plain": "plain", "formal": "formal"}
    steps = fields["max_steps"].widget
    assert isinstance(steps, Slider)
    assert (steps.min, steps.max, steps.step, steps.initial) == (1, 8, 1, 3)
    temperature = fields["temperature"].widget
    assert isinstance(temperature, Slider)
    assert 0 < temperature.min <= 0.01
    assert temperature.max == 1
    nickname = fields["nickname"]
    assert isinstance(nickname.widget, TextInput)
    assert nickname.nullable
    assert nickname.widget.initial is None
    limit = fields["limit"]
    assert isinstance(limit.widget, NumberInput)
    assert limit.nullable


# -- values -----------------------------------------------------------------


def test_coerce_settings_restores_schema_types() -> None:
    schema = DemoSettings.model_json_schema()
    defaults = DemoSettings().model_dump(mode="json")
    fields = build_setting_fields(descriptor(schema, defaults))

    values = coerce_settings(
        {
            "use_history": True,
            "audience": "expert",
            "max_steps": 5.0,
            "temperature": "0.25",
            "nickname": "",
            "limit": "",
            "not_a_setting": 1,
        },
        fields,
    )

    assert values == {
        "use_history": True,
        "audience": "expert",
        "max_steps": 5,
        "temperature": 0.25,
        "nickname": None,
        "limit": None,
    }
    assert type(values["max_steps"]) is int
    DemoSettings.model_validate({**defaults, **values})


def test_coerce_settings_maps_select_strings_back_to_enum_members() -> None:
    schema = {
        "type": "object",
        "properties": {"level": {"type": "integer", "enum": [1, 2, 3]}},
    }
    fields = build_setting_fields(descriptor(schema, {"level": 1}))

    assert fields[0].widget.to_dict()["initial"] == "1"
    assert coerce_settings({"level": "3"}, fields) == {"level": 3}


def test_settings_metadata_omits_defaults() -> None:
    metadata = settings_metadata({"use_history": False, "audience": "expert"}, DEFAULTS)

    assert metadata == {"lgos_settings": '{"audience":"expert"}'}


def test_settings_metadata_is_empty_when_nothing_differs() -> None:
    assert settings_metadata(dict(DEFAULTS), DEFAULTS) == {}
    assert settings_metadata({}, DEFAULTS) == {}


def test_settings_metadata_is_compact_json_of_every_changed_value() -> None:
    metadata = settings_metadata(
        {"use_history": True, "audience": "beginner", "extra": [1, 2]}, DEFAULTS
    )

    encoded = metadata["lgos_settings"]
    assert " " not in encoded
    assert json.loads(encoded) == {
        "use_history": True,
        "audience": "beginner",
        "extra": [1, 2],
    }


def test_settings_metadata_does_not_confuse_booleans_and_numbers() -> None:
    assert settings_metadata({"n": True}, {"n": 1}) == {"lgos_settings": '{"n":true}'}
    assert settings_metadata({"n": 0}, {"n": False}) == {"lgos_settings": '{"n":0}'}
    assert settings_metadata({"n": 3.0}, {"n": 3}) == {}
