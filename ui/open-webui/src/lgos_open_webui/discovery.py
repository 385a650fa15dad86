"""Which models the pipe lists, each with what its ``lgos`` extension offers.

Each model is the client core's ModelCapabilities (lgos_client.extension):
describe_model reads a retrieved model's ``lgos``, gateway_models LiteLLM's
/model/info. A model with no usable extension chats with no settings.
"""

from __future__ import annotations

from typing import Literal

from openai import AsyncOpenAI

from lgos_client.extension import ModelCapabilities, describe_model
from lgos_client.gateway_models import MODEL_INFO_PATH, gateway_models
from lgos_open_webui.plumbing import log, to_dict


def models_from_model_info(payload: object) -> dict[str, ModelCapabilities]:
    """Read a LiteLLM gateway's ``GET /v1/model/info``, by model name.

    One model per ``model_name``, in the order of its first deployment, with
    the ``model_info.lgos`` of its first deployment that has one (the LGOS
    model sync copies it there); a model without one chats with no settings.

    Raises:
        ModelInfoError: (a ``ValueError``) when the body has no data list.

    """
    return {model.model_id: model for model in gateway_models(payload)}


async def discover_models(
    client: AsyncOpenAI, discovery: Literal["lgos", "litellm"]
) -> dict[str, ModelCapabilities]:
    """List the models and read what each one's ``lgos`` extension offers.

    ``lgos``: LGOS's ``/v1/models``, each model retrieved for its extension.
    ``litellm``: a LiteLLM gateway's ``/model/info`` (``model_info.lgos``),
    or its plain model list when that fails (every model without settings).
    """
    if discovery == "litellm":
        try:
            info = await client.get(MODEL_INFO_PATH, cast_to=object)
            return models_from_model_info(info)
        except Exception as error:  # an older LiteLLM, a wrong key, not LiteLLM
            log.warning("the gateway's /model/info failed: %s", error)
            listed = [model.id async for model in client.models.list()]
            return {model_id: ModelCapabilities(model_id, None) for model_id in listed}
    listed = [model.id async for model in client.models.list()]
    models: dict[str, ModelCapabilities] = {}
    for model_id in listed:
        # A gateway that does not route model retrieval (Bifrost's
        # /v1 answers an HTML page) gives no object: a plain model.
        model = await client.models.retrieve(model_id)
        models[model_id] = describe_model({**to_dict(model), "id": model_id})
    return models
