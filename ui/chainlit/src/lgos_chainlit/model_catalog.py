"""Which models the UI offers, and the full extension of the one a chat uses.

The I/O around :mod:`lgos_client.extension` (which only parses): with
``DEMO_CHAINLIT_DISCOVERY=lgos`` the models come from LGOS's
``GET /v1/models`` and ``GET /v1/models/{id}``; with ``litellm`` from a
LiteLLM gateway's native ``GET /model/info``, whose ``model_info.lgos`` the
LGOS model sync fills (seed 000, "Model Feature Discovery": the demo's
clients behind the gateway read ``/model/info``, route by ``model_name`` and
never contact LGOS directly). When ``/model/info`` fails, or does not list a
model, the UI falls back to the gateway's ``/v1/models`` and says why the
model is limited.

A gateway may not route ``GET /v1/models/{id}`` at all: Bifrost's ``/v1``
answers it with its web page (HTML, status 200), which the OpenAI SDK hands
back as a string. The model is then read from the gateway's ``/v1/models``
listing instead, limited unless that carries the extension
(:data:`UNROUTED_RETRIEVE` says why).
"""

from __future__ import annotations

import logging
from dataclasses import replace

import openai
from openai import AsyncOpenAI
from openai.types import Model

from lgos_chainlit.session import ChatSession
from lgos_client.api_errors import format_api_error
from lgos_client.extension import ModelCapabilities, describe_model
from lgos_client.gateway_models import (
    MODEL_INFO_PATH,
    ModelInfoError,
    find_model,
    gateway_models,
    with_fallback_reason,
)

__all__ = [
    "LITELLM_DISCOVERY",
    "UNROUTED_RETRIEVE",
    "discover_models",
    "first_model_id",
    "load_session",
]

logger = logging.getLogger(__name__)

LITELLM_DISCOVERY = "litellm"
"""``DEMO_CHAINLIT_DISCOVERY`` value reading a LiteLLM gateway's ``/model/info``."""


UNROUTED_RETRIEVE = (
    "the gateway does not route `GET /v1/models/{id}` (it answered a page, not "
    "a model), and its `/v1/models` carries no `lgos` extension"
)
"""Why a model is limited when its retrieval answered no model (Bifrost's ``/v1``)."""


async def _retrieve(client: AsyncOpenAI, model_id: str) -> ModelCapabilities:
    """Read ``model_id`` from ``GET /v1/models/{id}``, or from the listing.

    When the answer is not a model (a gateway's page: the SDK returns text
    for a body that is not JSON), the model's ``/v1/models`` entry is used,
    limited by :data:`UNROUTED_RETRIEVE` unless it carries the extension; a
    model the listing lacks is limited the same way, and its first request
    then reports the gateway's own error.

    Raises:
        openai.OpenAIError: when a request fails.

    """
    found = await client.models.retrieve(model_id)
    if isinstance(found, Model):
        return describe_model(found)
    logger.warning(
        "GET /models/%s answered no model (%s); reading /models instead",
        model_id,
        type(found).__name__,
    )
    capabilities = ModelCapabilities(model_id, None)
    async for listed in client.models.list():
        if listed.id == model_id:
            capabilities = describe_model(listed)
            break
    if capabilities.limited:
        capabilities = replace(capabilities, limitation=UNROUTED_RETRIEVE)
    return capabilities


async def _gateway_models(client: AsyncOpenAI) -> list[ModelCapabilities]:
    """Read the models and their extensions from LiteLLM's ``/model/info``.

    Raises:
        openai.OpenAIError: when the request fails.
        ModelInfoError: when the body is not LiteLLM's.

    """
    payload = await client.get(MODEL_INFO_PATH, cast_to=object)
    return gateway_models(payload)


def _model_info_failure(exc: Exception) -> str:
    if isinstance(exc, openai.OpenAIError):
        return format_api_error(exc)
    return str(exc)


async def discover_models(
    client: AsyncOpenAI, discovery: str = "lgos"
) -> list[ModelCapabilities]:
    """List the models the chat-profile picker offers.

    With ``discovery="lgos"`` from ``GET /v1/models``; with ``"litellm"``
    from the gateway's ``GET /model/info`` (descriptions and the full
    extension), or, when that fails, from ``/v1/models`` with a limitation
    naming the failure.

    Raises:
        openai.OpenAIError: when ``/v1/models`` fails.

    """
    failure = None
    if discovery == LITELLM_DISCOVERY:
        try:
            return await _gateway_models(client)
        except (openai.OpenAIError, ModelInfoError) as exc:
            failure = _model_info_failure(exc)
            logger.warning("Cannot read the gateway's /model/info: %s", failure)
    models = [describe_model(model) async for model in client.models.list()]
    if failure is None:
        return models
    return [with_fallback_reason(model, failure) for model in models]


async def first_model_id(client: AsyncOpenAI, discovery: str = "lgos") -> str | None:
    """Return the first listed model, for chats started without a profile."""
    if discovery == LITELLM_DISCOVERY:
        models = await discover_models(client, discovery)
        return models[0].model_id if models else None
    async for model in client.models.list():
        return model.id
    return None


async def load_session(
    client: AsyncOpenAI,
    model_id: str,
    *,
    discovery: str = "lgos",
    conversation_id: str | None = None,
) -> ChatSession:
    """Read ``model_id``'s full extension and start a chat with it.

    With ``discovery="lgos"`` from ``GET /v1/models/{id}``; with
    ``"litellm"`` from the gateway's ``/model/info``. When that fails, or
    does not list the model, the model is retrieved from the gateway's
    ``/v1/models/{id}`` (an unknown model raises ``NotFoundError`` there) and
    used as LiteLLM describes it, limited unless it carries the extension.
    A retrieval that answers no model (Bifrost's ``/v1``) falls back to the
    ``/v1/models`` entry, limited.

    Raises:
        openai.OpenAIError: when the model cannot be retrieved.

    """
    failure = None
    if discovery == LITELLM_DISCOVERY:
        try:
            found = find_model(await _gateway_models(client), model_id)
        except (openai.OpenAIError, ModelInfoError) as exc:
            failure = _model_info_failure(exc)
            logger.warning("Cannot read the gateway's /model/info: %s", failure)
        else:
            if found is not None:
                return ChatSession.from_model(found, conversation_id=conversation_id)
            failure = "it does not list this model"
    capabilities = await _retrieve(client, model_id)
    if failure is not None:
        capabilities = with_fallback_reason(capabilities, failure)
    return ChatSession.from_model(capabilities, conversation_id=conversation_id)
