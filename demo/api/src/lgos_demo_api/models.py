"""Chat model selection: OpenAI (or compatible) when a key is set, else offline."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI

from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.settings import DemoApiSettings

__all__ = ["chat_model", "model_label", "uses_offline_model"]


def uses_offline_model(settings: DemoApiSettings) -> bool:
    """Tell whether the demo graphs answer with the offline model.

    Args:
        settings: The demo settings.

    Returns:
        `True` when no `openai_api_key` is configured.

    """
    return settings.openai_api_key is None


def chat_model(settings: DemoApiSettings) -> BaseChatModel:
    """Build the chat model the demo graphs call.

    Args:
        settings: The demo settings.

    Returns:
        A streaming `ChatOpenAI` on the Responses API (`store=False`, model
        `openai_responses_model`, optional `openai_base_url`) when
        `openai_api_key` is set, else an `OfflineChatModel` streaming with
        `offline_chunk_delay` seconds between words.

    """
    if uses_offline_model(settings):
        return OfflineChatModel(chunk_delay=settings.offline_chunk_delay)
    return ChatOpenAI(
        model=settings.openai_responses_model,
        api_key=settings.openai_api_key,
        base_url=settings.openai_base_url,
        use_responses_api=True,
        store=False,
        streaming=True,
    )


def model_label(settings: DemoApiSettings) -> str:
    """Name the model the demo graphs use, for graph descriptions.

    Args:
        settings: The demo settings.

    Returns:
        `"offline model"` without an API key, else the upstream model name
        (e.g. `"gpt-4.1-mini"`).

    """
    if uses_offline_model(settings):
        return "offline model"
    return settings.openai_responses_model
