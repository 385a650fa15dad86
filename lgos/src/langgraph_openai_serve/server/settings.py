"""Settings of ``lgos serve`` and ``lgos worker`` (``LGOS_*`` variables)."""

from __future__ import annotations

from pydantic_settings import SettingsConfigDict

from langgraph_openai_serve.settings import LgosSettings

__all__ = ["ServerSettings"]


class ServerSettings(LgosSettings):
    """Server settings: the package settings plus what the server process owns.

    Attributes:
        registry_factory: ``module:attribute`` of the registry factory
            (``LGOS_REGISTRY_FACTORY``); ``lgos serve FACTORY`` sets it.

    """

    model_config = SettingsConfigDict(env_prefix="LGOS_", extra="ignore")

    registry_factory: str | None = None
