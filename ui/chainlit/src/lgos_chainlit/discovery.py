"""Read the ``lgos`` extension of a model: what the UI may offer for it.

:func:`describe_model` reads the ``lgos`` extension of a model returned by
``client.models.list()`` or ``client.models.retrieve()`` into
:class:`ModelCapabilities`: the description, features, client functions,
server tools and the runtime settings descriptor (turned into widgets by
:mod:`lgos_chainlit.runtime_settings`).

Behind a LiteLLM gateway (``DEMO_CHAINLIT_DISCOVERY=litellm``) the extension
is not in ``/v1/models``: :func:`gateway_models` reads it from the body of
LiteLLM's ``GET /model/info`` instead, where the LGOS model sync copies each
graph's full ``lgos`` object to ``model_info.lgos`` of the deployments whose
``model_name`` is the graph's.

Everything here is pure: no I/O and no Chainlit context, so it is unit-tested
directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

__all__ = [
    "SUPPORTED_EXTENSION_VERSION",
    "SUPPORTED_SETTINGS_VERSION",
    "ClientSettingsDescriptor",
    "LgosExtension",
    "ModelCapabilities",
    "ModelInfoError",
    "describe_model",
    "find_model",
    "gateway_models",
    "parse_client_settings",
    "with_fallback_reason",
]

SUPPORTED_EXTENSION_VERSION = 1
"""The only ``lgos.schema_version`` this client understands."""

SUPPORTED_SETTINGS_VERSION = 1
"""The only ``lgos.client_settings.schema_version`` this client understands."""


@dataclass(frozen=True, slots=True)
class ClientSettingsDescriptor:
    """A graph's runtime settings: a JSON Schema plus the validated defaults.

    ``defaults`` is the authoritative baseline; the schema's ``default``
    keywords are annotations only.
    """

    schema_version: int
    json_schema: Mapping[str, Any]
    defaults: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class LgosExtension:
    """The supported (version 1) ``lgos`` extension of one model.

    ``client_settings`` is ``None`` when the graph has no settings, or when they
    are published in a version or shape this client does not support; the
    latter sets ``settings_unsupported`` to a human-readable reason.
    ``client_tools`` names the client-owned functions the graph may call and
    ``server_tools`` the tools the graph runs itself that a request may select
    (``web_search`` and custom tool names); only model retrieval publishes
    them, a listed model has none here.
    """

    schema_version: int
    description: str
    features: tuple[str, ...]
    client_settings: ClientSettingsDescriptor | None = None
    settings_unsupported: str | None = None
    client_tools: tuple[str, ...] = ()
    server_tools: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelCapabilities:
    """What the UI may offer for one model.

    ``extension`` is ``None`` when the model publishes no ``lgos`` extension,
    or one of an unsupported version; ``limitation`` then says why, and the
    UI falls back to plain chat with a limited-functionality notice.
    """

    model_id: str
    extension: LgosExtension | None
    limitation: str | None = None

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


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


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
    if not isinstance(raw, Mapping):
        return None, "client_settings is not an object"
    version = raw.get("schema_version")
    if not _is_int(version) or version != SUPPORTED_SETTINGS_VERSION:
        return None, f"unsupported client_settings schema_version {version!r}"
    schema = raw.get("json_schema")
    if not isinstance(schema, Mapping):
        return None, "client_settings.json_schema is not an object"
    defaults = raw.get("defaults")
    if defaults is None:
        defaults = {}
    if not isinstance(defaults, Mapping):
        return None, "client_settings.defaults is not an object"
    return ClientSettingsDescriptor(
        schema_version=version, json_schema=dict(schema), defaults=dict(defaults)
    ), None


def _names(raw: object) -> tuple[str, ...]:
    """Keep the non-empty strings of a JSON list, in order."""
    if not isinstance(raw, list | tuple):
        return ()
    return tuple(name for name in raw if isinstance(name, str) and name)


def describe_model(model: object) -> ModelCapabilities:
    """Read the ``lgos`` extension of an OpenAI SDK ``Model`` (or a dict).

    With the OpenAI Python SDK the extension is in ``model.model_extra["lgos"]``.
    A missing extension or an unsupported outer ``schema_version`` disables all
    LGOS capabilities; an unsupported ``client_settings`` version disables only
    the settings. ``client_tools`` and ``server_tools`` keep only non-empty
    strings. Unknown fields
    and feature values are ignored.
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
    if not _is_int(version) or version != SUPPORTED_EXTENSION_VERSION:
        return ModelCapabilities(
            model_id,
            None,
            f"the LGOS extension has unsupported schema_version {version!r}",
        )
    description = raw.get("description")
    features = raw.get("features")
    settings, unsupported = parse_client_settings(raw.get("client_settings"))
    tools = raw.get("client_tools")
    server_tools = raw.get("server_tools")
    extension = LgosExtension(
        schema_version=version,
        description=description if isinstance(description, str) else "",
        features=tuple(f for f in features if isinstance(f, str))
        if isinstance(features, list | tuple)
        else (),
        client_settings=settings,
        settings_unsupported=unsupported,
        client_tools=_names(tools),
        server_tools=_names(server_tools),
    )
    return ModelCapabilities(model_id, extension)


# --------------------------------------------------------------------------
# Behind a LiteLLM gateway: GET /model/info
# --------------------------------------------------------------------------

NO_GATEWAY_EXTENSION = (
    "the gateway's `/model/info` carries no `lgos` extension for it "
    "(has the LGOS model sync run?)"
)
"""Why a model listed by ``/model/info`` without ``model_info.lgos`` is limited."""


class ModelInfoError(ValueError):
    """The body of ``/model/info`` is not LiteLLM's ``{"data": [...]}``."""


def _gateway_entry(entry: object) -> tuple[str, object] | None:
    """Return ``(model_name, raw lgos)`` of one ``/model/info`` deployment."""
    if not isinstance(entry, Mapping):
        return None
    name = entry.get("model_name")
    if not isinstance(name, str) or not name:
        return None
    info = entry.get("model_info")
    lgos = info.get("lgos") if isinstance(info, Mapping) else None
    return name, lgos


def gateway_models(payload: object) -> list[ModelCapabilities]:
    """Read LiteLLM's ``GET /model/info`` body into one capability per model.

    LiteLLM answers ``{"data": [{"model_name", "litellm_params",
    "model_info": {..., "lgos": {...}}}, ...]}``, one entry per deployment;
    a model (an OpenAI ``model``, LiteLLM's ``model_name``) may have several.
    The models keep the order of their first deployment, and a model's
    extension is that of its first deployment carrying ``model_info.lgos``.
    A model none of whose deployments carries one is limited
    (:data:`NO_GATEWAY_EXTENSION`); an extension is read exactly as
    :func:`describe_model` reads a retrieved model's.

    Raises:
        ModelInfoError: when the body is not ``{"data": [...]}``.

    """
    data = payload.get("data") if isinstance(payload, Mapping) else None
    if not isinstance(data, list):
        raise ModelInfoError("the gateway's /model/info answered no data list")
    extensions: dict[str, object] = {}
    for entry in data:
        parsed = _gateway_entry(entry)
        if parsed is None:
            continue
        name, lgos = parsed
        if extensions.get(name) is None:
            extensions[name] = lgos
    models = []
    for name, lgos in extensions.items():
        if lgos is None:
            models.append(ModelCapabilities(name, None, NO_GATEWAY_EXTENSION))
        else:
            models.append(describe_model({"id": name, "lgos": lgos}))
    return models


def find_model(
    models: Iterable[ModelCapabilities], model_id: str
) -> ModelCapabilities | None:
    """Return the capabilities of ``model_id`` among ``models``, if listed."""
    return next((model for model in models if model.model_id == model_id), None)


def with_fallback_reason(
    capabilities: ModelCapabilities, failure: str
) -> ModelCapabilities:
    """Say why a model listed by ``/v1/models`` instead of ``/model/info`` is limited.

    Used when the gateway's ``/model/info`` failed (``failure`` says how):
    a model whose ``/v1/models`` entry carries no usable extension gets a
    limitation naming that failure; one that does carry it is kept.
    """
    if not capabilities.limited:
        return capabilities
    return replace(
        capabilities,
        limitation=(
            f"the gateway's `/model/info` failed ({failure}), and `/v1/models` "
            "carries no `lgos` extension"
        ),
    )
