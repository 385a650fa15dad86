"""Configuration of the demo API, read from `DEMO_API_*` variables and `.env`."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["DemoApiSettings", "get_settings"]


class DemoApiSettings(BaseSettings):
    """Settings of the demo API.

    Every field reads the environment variable `DEMO_API_<FIELD NAME>` (case
    insensitive), falling back to a `.env` file in the working directory when
    present. Keyword arguments win over both, so tests pass values explicitly
    (and `_env_file=None` to ignore `.env`).

    Attributes:
        openai_api_key: Key for the OpenAI-compatible provider; when unset the
            demo graphs use the offline model.
        openai_base_url: Base URL of any OpenAI-compatible provider
            (e.g. `http://localhost:11434/v1`); `None` means OpenAI itself.
        openai_responses_model: Model name used through the Responses API.
        offline_chunk_delay: Seconds between words streamed by the offline
            model (>= 0).

    """

    model_config = SettingsConfigDict(
        env_prefix="DEMO_API_",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
    )

    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    openai_responses_model: str = "gpt-4.1-mini"
    offline_chunk_delay: float = Field(default=0.02, ge=0.0)


def get_settings() -> DemoApiSettings:
    """Read the settings afresh from the environment and `.env`.

    Returns:
        A new `DemoApiSettings`; nothing is cached.

    Raises:
        pydantic.ValidationError: If a `DEMO_API_*` value is invalid (e.g. a
            negative `DEMO_API_OFFLINE_CHUNK_DELAY`).

    """
    return DemoApiSettings()
