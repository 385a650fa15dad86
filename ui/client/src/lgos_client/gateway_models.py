"""The ``lgos`` extension behind a LiteLLM gateway: ``GET /model/info``.

A LiteLLM proxy lists LGOS graphs in its ``/v1/models`` without the ``lgos``
extension; the LGOS model sync copies each graph's full ``lgos`` object to
``model_info.lgos`` of the deployments named after the graph, which LiteLLM's
``GET /model/info`` (:data:`MODEL_INFO_PATH`) returns. :func:`gateway_models`
reads that body into :class:`~lgos_client.extension.ModelCapabilities`, exactly
as :func:`~lgos_client.extension.describe_model` reads a retrieved model.

Everything here is pure: no I/O, so it is unit-tested directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from lgos_client.extension import ModelCapabilities, describe_model

__all__ = [
    "MODEL_INFO_PATH",
    "NO_GATEWAY_EXTENSION",
    "ModelInfoError",
    "find_model",
    "gateway_models",
    "with_fallback_reason",
]

MODEL_INFO_PATH = "/model/info"
"""LiteLLM's model list with ``model_info``, below the client's base URL
(``…/v1/model/info``: LiteLLM serves it with and without ``/v1``)."""

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
