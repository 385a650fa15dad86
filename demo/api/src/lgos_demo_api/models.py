"""Chat model selection: OpenAI (or compatible) when a key is set, else offline."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI

from lgos_demo_api.offline import OfflineChatModel, Responder, default_responder
from lgos_demo_api.settings import DemoApiSettings

__all__ = ["answered_by", "chat_model", "model_label", "uses_offline_model"]


def uses_offline_model(settings: DemoApiSettings) -> bool:
    """Tell whether the demo graphs answer with the offline model.

    Args:
        settings: The demo settings.

    Returns:
        `True` when no `openai_api_key` is configured.

    """
    return settings.openai_api_key is None


def chat_model(
    settings: DemoApiSettings, responder: Responder | None = None
) -> BaseChatModel:
    """Build the chat model the demo graphs call.

    Args:
        settings: The demo settings.
        responder: How the offline model answers (a graph's scripted
            stand-in for a real model); `default_responder` when omitted.
            Ignored when a real model is configured.

    Returns:
        A streaming `ChatOpenAI` on the Responses API (`store=False`, model
        `openai_responses_model`, optional `openai_base_url`) when
        `openai_api_key` is set, else an `OfflineChatModel` streaming with
        `offline_chunk_delay` seconds between words and answering a call that
        is not streamed after `offline_answer_delay` seconds.

    """
    if uses_offline_model(settings):
        return OfflineChatModel(
            chunk_delay=settings.offline_chunk_delay,
            answer_delay=settings.offline_answer_delay,
            responder=responder or default_responder,
        )
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


def answered_by(settings: DemoApiSettings) -> str:
    """Say which model answers, for the end of a graph description.

    Args:
        settings: The demo settings.

    Returns:
        `"Answers come from the offline demo model (deterministic, no API key
        needed)."` without an API key, else e.g. `"Answers come from
        gpt-4.1-mini."`.

    """
    if uses_offline_model(settings):
        backend = "the offline demo model (deterministic, no API key needed)"
    else:
        backend = model_label(settings)
    return f"Answers come from {backend}."
