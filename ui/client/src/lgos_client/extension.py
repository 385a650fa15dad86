"""The ``lgos`` extension of a model: what a chat UI may offer.

OpenAI's ``Model`` has no metadata field, so LGOS publishes a namespaced,
versioned ``lgos`` object on each model (``langgraph_openai_serve.api.models``;
docs/reference/openai-api.md, "Models"). :class:`LgosExtension` is that
object as one pydantic model, its fields exactly the keys the API publishes
(``tests/contract/test_lgos_extension.py`` checks both directions):

- ``GET /v1/models`` lists ``schema_version``, ``description`` and
  ``features``;
- ``GET /v1/models/{id}`` adds the :data:`RETRIEVAL_KEYS`:
  ``client_settings`` (:class:`ClientSettingsDescriptor`, or null),
  ``server_tools``, ``client_tools`` and ``generation_controls``.

Parsing follows the versioning rules for clients: unknown fields and feature
values are ignored; an ``schema_version`` other than
:data:`SUPPORTED_EXTENSION_VERSION` means no LGOS capabilities (plain chat);
a ``client_settings.schema_version`` other than
:data:`SUPPORTED_SETTINGS_VERSION`, or malformed settings, disable only the
settings (:attr:`LgosExtension.settings_unsupported` says why). Lists keep
their non-empty strings, in order; a description that is not a string is
empty.

:func:`describe_model` reads the extension of a model from ``models.list()``
or ``models.retrieve()`` (an SDK ``Model`` or a plain mapping) into
:class:`ModelCapabilities`, which says why a model is limited when it has no
usable extension. Behind a LiteLLM gateway the extension is not in
``/v1/models``: :mod:`lgos_client.gateway_models` reads it from LiteLLM's
``GET /model/info``.

Everything here is pure: no I/O, so it is unit-tested directly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

__all__ = [
    "LGOS_SETTINGS_KEY",
    "RETRIEVAL_KEYS",
    "SUPPORTED_EXTENSION_VERSION",
    "SUPPORTED_SETTINGS_VERSION",
    "ClientSettingsDescriptor",
    "LgosExtension",
    "ModelCapabilities",
    "describe_model",
    "parse_client_settings",
    "settings_metadata",
]

SUPPORTED_EXTENSION_VERSION = 1
"""The only ``lgos.schema_version`` this client understands."""

SUPPORTED_SETTINGS_VERSION = 1
"""The only ``lgos.client_settings.schema_version`` this client understands."""

RETRIEVAL_KEYS = frozenset(
    {"client_settings", "server_tools", "client_tools", "generation_controls"}
)
"""The ``lgos`` keys only ``GET /v1/models/{id}`` publishes (a listed model
lacks them; they parse as null and empty)."""

LGOS_SETTINGS_KEY = "lgos_settings"
"""Responses ``metadata`` key carrying the JSON-encoded runtime settings."""


def _is_version(value: object, supported: int) -> TypeGuard[int]:
    """Whether ``value`` is the JSON integer ``supported`` (not a bool or float)."""
    return isinstance(value, int) and not isinstance(value, bool) and value == supported


def _lgos_version(value: object, supported: int, what: str) -> int:
    """Return ``value`` when it is ``supported``; raise ValueError naming it else."""
    if not _is_version(value, supported):
        raise ValueError(f"unsupported {what}schema_version {value!r}")
    return value


def _lgos_names(raw: object) -> tuple[str, ...]:
    """Keep the non-empty strings of a JSON list, in order (else nothing)."""
    if not isinstance(raw, list | tuple):
        return ()
    return tuple(name for name in raw if isinstance(name, str) and name)


def _lgos_reason(error: ValidationError) -> str:
    """Return the first error's own message (a validator's ``ValueError`` text)."""
    first = error.errors()[0]
    raised = first.get("ctx", {}).get("error")
    return str(raised) if isinstance(raised, ValueError) else first["msg"]


def _lgos_object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} is not an object")
    return dict(value)


class ClientSettingsDescriptor(BaseModel):
    """A graph's runtime settings (``lgos.client_settings``, version 1).

    ``json_schema`` is the settings' JSON Schema; ``defaults`` (``{}`` when
    absent or null) is the authoritative baseline, the schema's ``default``
    keywords are annotations only. Validation raises
    :class:`pydantic.ValidationError` for another ``schema_version`` or a
    part that is not an object; :func:`parse_client_settings` turns that
    into a reason.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    schema_version: int
    json_schema: dict[str, Any]
    defaults: dict[str, Any] = Field(default_factory=dict)

    @field_validator("schema_version", mode="before")
    @classmethod
    def _settings_version(cls, value: object) -> int:
        return _lgos_version(value, SUPPORTED_SETTINGS_VERSION, "client_settings ")

    @field_validator("json_schema", mode="before")
    @classmethod
    def _settings_schema(cls, value: object) -> dict[str, Any]:
        return _lgos_object(value, "client_settings.json_schema")

    @field_validator("defaults", mode="before")
    @classmethod
    def _settings_defaults(cls, value: object) -> dict[str, Any]:
        return {} if value is None else _lgos_object(value, "client_settings.defaults")


def parse_client_settings(
    raw: object,
) -> tuple[ClientSettingsDescriptor | None, str | None]:
    """Parse an ``lgos.client_settings`` value.

    Returns:
        ``(descriptor, None)`` for a supported descriptor, ``(None, None)`` when
        the graph has no settings (absent or ``null``), and ``(None, reason)``
        when the descriptor is of an unsupported version or malformed.

    """
    if raw is None:
        return None, None
    if isinstance(raw, ClientSettingsDescriptor):
        return raw, None
    if not isinstance(raw, Mapping):
        return None, "client_settings is not an object"
    try:
        return ClientSettingsDescriptor.model_validate(dict(raw)), None
    except ValidationError as error:
        return None, _lgos_reason(error)


def _same_setting(value: Any, default: Any) -> bool:
    """Equality that does not confuse ``True`` with ``1`` or ``False`` with 0."""
    if isinstance(value, bool) or isinstance(default, bool):
        return type(value) is type(default) and value == default
    return value == default


def settings_metadata(
    values: Mapping[str, Any], defaults: Mapping[str, Any]
) -> dict[str, str]:
    """Encode runtime settings as Responses ``metadata``.

    Only values that differ from ``defaults`` (the descriptor's) are sent.
    Returns ``{"lgos_settings": "<compact JSON object>"}``, or ``{}`` when
    every value equals its default (the key is then omitted entirely); LGOS
    validates the object against the graph's settings model.

    >>> settings_metadata({"audience": "expert", "use_history": False},
    ...                   {"audience": "general", "use_history": False})
    {'lgos_settings': '{"audience":"expert"}'}
    """
    changed = {
        name: value
        for name, value in values.items()
        if name not in defaults or not _same_setting(value, defaults[name])
    }
    if not changed:
        return {}
    return {LGOS_SETTINGS_KEY: json.dumps(changed, separators=(",", ":"))}


class LgosExtension(BaseModel):
    """The supported (version 1) ``lgos`` extension of one model.

    A listed model has only ``schema_version``, ``description`` and
    ``features``; the retrieval-only keys (:data:`RETRIEVAL_KEYS`) are then
    ``None`` and empty. ``client_settings`` is ``None`` when the graph has no
    settings, or when they are published in a version or shape this client
    does not support (:attr:`settings_unsupported` says why).
    ``client_tools`` names the client-owned functions the graph may call,
    ``server_tools`` the tools it runs itself that a request may select
    (``web_search`` and custom tool names) and ``generation_controls`` the
    generation controls it honours (``temperature``, ...).

    Validation raises :class:`pydantic.ValidationError` only for a
    ``schema_version`` other than :data:`SUPPORTED_EXTENSION_VERSION`; every
    other field is read tolerantly (see the module docstring).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    schema_version: int
    description: str = ""
    features: tuple[str, ...] = ()
    client_settings: ClientSettingsDescriptor | None = None
    server_tools: tuple[str, ...] = ()
    client_tools: tuple[str, ...] = ()
    generation_controls: tuple[str, ...] = ()

    _settings_unsupported: str | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _read_settings(
        cls, data: Any, handler: ModelWrapValidatorHandler[LgosExtension]
    ) -> LgosExtension:
        if not isinstance(data, Mapping):
            return handler(data)
        settings, reason = parse_client_settings(data.get("client_settings"))
        extension = handler({**data, "client_settings": settings})
        extension._settings_unsupported = reason
        return extension

    @field_validator("schema_version", mode="before")
    @classmethod
    def _extension_version(cls, value: object) -> int:
        return _lgos_version(value, SUPPORTED_EXTENSION_VERSION, "")

    @field_validator("description", mode="before")
    @classmethod
    def _extension_description(cls, value: object) -> str:
        return value if isinstance(value, str) else ""

    @field_validator(
        "features", "server_tools", "client_tools", "generation_controls", mode="before"
    )
    @classmethod
    def _extension_names(cls, value: object) -> tuple[str, ...]:
        return _lgos_names(value)

    @property
    def settings_unsupported(self) -> str | None:
        """Why published ``client_settings`` were dropped (``None``: they were not)."""
        return self._settings_unsupported


@dataclass(frozen=True, slots=True)
class ModelCapabilities:
    """What the UI may offer for one model.

    ``extension`` is ``None`` when the model publishes no ``lgos`` extension,
    or one of an unsupported version; ``limitation`` then says why, and the
    UI falls back to plain chat (the Chainlit UI with a limited-functionality
    notice).
    """

    model_id: str
    extension: LgosExtension | None
    limitation: str | None = None

    @property
    def id(self) -> str:
        """The model's OpenAI ``id`` (:attr:`model_id`), as ``Model.id`` names it."""
        return self.model_id

    @property
    def limited(self) -> bool:
        """Whether the model must be used as a plain OpenAI chat model."""
        return self.extension is None

    @property
    def description(self) -> str:
        """The model's ``lgos.description``, or ``""`` when there is none."""
        return self.extension.description if self.extension else ""

    @property
    def features(self) -> tuple[str, ...]:
        """The declared feature values, empty when the extension is unusable."""
        return self.extension.features if self.extension else ()

    @property
    def client_settings(self) -> ClientSettingsDescriptor | None:
        """The supported settings descriptor, if the model has one."""
        return self.extension.client_settings if self.extension else None

    @property
    def client_tools(self) -> tuple[str, ...]:
        """Names of the client functions the graph may call (``lgos.client_tools``)."""
        return self.extension.client_tools if self.extension else ()

    @property
    def server_tools(self) -> tuple[str, ...]:
        """Names of the graph's selectable server tools (``lgos.server_tools``)."""
        return self.extension.server_tools if self.extension else ()

    @property
    def generation_controls(self) -> tuple[str, ...]:
        """The generation controls the graph honours (``lgos.generation_controls``)."""
        return self.extension.generation_controls if self.extension else ()


def _raw_extension(model: object) -> object:
    """Return the raw ``lgos`` value of an SDK ``Model`` or of a plain mapping."""
    if isinstance(model, Mapping):
        return model.get("lgos")
    extra = getattr(model, "model_extra", None)
    if isinstance(extra, Mapping) and "lgos" in extra:
        return extra["lgos"]
    return getattr(model, "lgos", None)


def _model_id(model: object) -> str:
    if isinstance(model, Mapping):
        return str(model.get("id", ""))
    return str(getattr(model, "id", ""))


def describe_model(model: object) -> ModelCapabilities:
    """Read the ``lgos`` extension of an OpenAI SDK ``Model`` (or a dict).

    With the OpenAI Python SDK the extension is in ``model.model_extra["lgos"]``.
    A missing or malformed extension, or an unsupported outer
    ``schema_version``, disables all LGOS capabilities (the limitation says
    which); an unsupported ``client_settings`` version disables only the
    settings. Never raises for any payload.
    """
    model_id = _model_id(model)
    raw = _raw_extension(model)
    if raw is None:
        return ModelCapabilities(
            model_id, None, "the model publishes no LGOS extension (`lgos`)"
        )
    if not isinstance(raw, Mapping):
        return ModelCapabilities(model_id, None, "the `lgos` extension is malformed")
    version = raw.get("schema_version")
    if not _is_version(version, SUPPORTED_EXTENSION_VERSION):
        return ModelCapabilities(
            model_id,
            None,
            f"the LGOS extension has unsupported schema_version {version!r}",
        )
    try:
        extension = LgosExtension.model_validate(dict(raw))
    except ValidationError:
        return ModelCapabilities(model_id, None, "the `lgos` extension is malformed")
    return ModelCapabilities(model_id, extension)
