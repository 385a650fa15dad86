"""Runtime settings, server tool switches and background mode as user valves.

Open WebUI shows a pipe's ``UserValves`` (a pydantic model) per user; the
pipe builds one with a field per model and setting once the models are
known (:func:`valve_specs`, :func:`user_valves_class`), and turns the
values back into a request's metadata, tools and mode
(:func:`request_options`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from lgos_client.extension import ModelCapabilities, settings_metadata

BACKGROUND_FEATURE = "background"


def _slug(name: str) -> str:
    slug = re.sub(r"\W", "_", name)
    return slug if not slug[:1].isdigit() else f"_{slug}"


def valve_name(model_id: str, key: str) -> str:
    """Return the user valve field of ``key`` for ``model_id``."""
    return f"{_slug(model_id)}__{_slug(key)}"


@dataclass(frozen=True, slots=True)
class ValveSpec:
    """One user valve: a runtime setting, a server tool switch or background."""

    model: str
    kind: Literal["setting", "tool", "background"]
    key: str
    annotation: Any
    default: Any
    title: str
    description: str = ""
    ge: float | None = None
    le: float | None = None

    @property
    def name(self) -> str:
        """The valve's field name."""
        prefix = {"setting": "", "tool": "tool_", "background": ""}[self.kind]
        return valve_name(self.model, prefix + self.key)


def _setting_specs(model: ModelCapabilities) -> list[ValveSpec]:
    settings = model.client_settings
    properties = settings.json_schema.get("properties") if settings else None
    if settings is None or not isinstance(properties, Mapping):
        return []
    specs: list[ValveSpec] = []
    for key, prop in properties.items():
        if not isinstance(prop, Mapping):
            continue
        default = settings.defaults.get(key, prop.get("default"))
        title = f"{model.id}: {prop.get('title') or key}"
        description = str(prop.get("description") or "")
        enum = prop.get("enum")
        kind = prop.get("type")
        bounds: dict[str, float | None] = {
            "ge": prop.get("minimum"),
            "le": prop.get("maximum"),
        }
        if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
            annotation: Any = Literal[tuple(enum)]  # type: ignore[valid-type]
            bounds = {"ge": None, "le": None}
        elif kind == "boolean":
            annotation = bool
        elif kind == "integer":
            annotation = int
        elif kind == "number":
            annotation = float
        elif kind == "string":
            annotation = str
        else:
            continue  # no valve widget for it; the graph's default applies
        # Open WebUI's number fields are text boxes, and a value out of range
        # is refused with a bare "Error updating function user valves": the
        # description says the range.
        low, high = bounds["ge"], bounds["le"]
        if low is not None and high is not None:
            description = f"{description} (from {low} to {high})".strip()
        elif low is not None:
            description = f"{description} (at least {low})".strip()
        elif high is not None:
            description = f"{description} (at most {high})".strip()
        specs.append(
            ValveSpec(
                model=model.id,
                kind="setting",
                key=str(key),
                annotation=annotation,
                default=default,
                title=title,
                description=description,
                **bounds,
            )
        )
    return specs


def valve_specs(models: Sequence[ModelCapabilities]) -> list[ValveSpec]:
    """Every user valve for ``models``, in model order.

    Per model: its runtime settings (``lgos.client_settings``, defaults from
    the descriptor), a switch per server tool (``web_search`` on, custom tools
    off, as the Chainlit UI has them) and, with the ``background`` feature,
    "Run in background".
    """
    specs: list[ValveSpec] = []
    for model in models:
        specs.extend(_setting_specs(model))
        for tool in model.server_tools:
            label = "Web search" if tool == "web_search" else tool
            specs.append(
                ValveSpec(
                    model=model.id,
                    kind="tool",
                    key=tool,
                    annotation=bool,
                    default=tool == "web_search",
                    title=f"{model.id}: {label}",
                    description=f"Offer the server tool {tool} to {model.id}.",
                )
            )
        if BACKGROUND_FEATURE in model.features:
            specs.append(
                ValveSpec(
                    model=model.id,
                    kind="background",
                    key="run_in_background",
                    annotation=bool,
                    default=False,
                    title=f"{model.id}: Run in background",
                    description="Send every request with background=true and "
                    "poll it; Stop cancels it on the server.",
                )
            )
    return specs


class BaseUserValves(BaseModel):
    """User valves before the models are known: unknown fields are kept."""

    model_config = ConfigDict(extra="allow")


def user_valves_class(specs: Sequence[ValveSpec]) -> type[BaseModel]:
    """Build a pydantic model with a field per valve (Open WebUI's ``UserValves``)."""
    fields: dict[str, Any] = {}
    for spec in specs:
        extra: dict[str, Any] = {}
        if spec.ge is not None:
            extra["ge"] = spec.ge
        if spec.le is not None:
            extra["le"] = spec.le
        fields[spec.name] = (
            spec.annotation,
            Field(
                default=spec.default,
                title=spec.title,
                description=spec.description,
                **extra,
            ),
        )
    return create_model(
        "UserValves",
        __config__=ConfigDict(extra="ignore"),
        **fields,
    )


@dataclass(frozen=True, slots=True)
class RequestOptions:
    """What a model's valves add to its requests."""

    metadata: dict[str, str]
    tools: list[dict[str, Any]]
    background: bool


def request_options(
    model: ModelCapabilities, values: Mapping[str, Any], specs: Sequence[ValveSpec]
) -> RequestOptions:
    """Turn the user's valve values into a request's metadata, tools, mode.

    ``metadata`` holds ``lgos_settings`` with only the settings that differ
    from the descriptor's defaults (nothing when all are default); ``tools``
    selects the switched-on server tools (``{"type": "web_search"}`` or
    ``{"type": "custom", "name": ...}``).
    """
    defaults = model.client_settings.defaults if model.client_settings else {}
    settings: dict[str, Any] = {}
    tools: list[dict[str, Any]] = []
    background = False
    for spec in specs:
        if spec.model != model.id:
            continue
        value = values.get(spec.name, spec.default)
        if spec.kind == "setting":
            settings[spec.key] = value
        elif spec.kind == "tool" and value:
            tools.append(
                {"type": "web_search"}
                if spec.key == "web_search"
                else {"type": "custom", "name": spec.key}
            )
        elif spec.kind == "background":
            background = bool(value) and BACKGROUND_FEATURE in model.features
    metadata = settings_metadata(settings, defaults)
    return RequestOptions(metadata=metadata, tools=tools, background=background)
