"""Configuration of the demo API, read from `DEMO_API_*` variables and `.env`."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["DemoApiSettings", "WebSearchBackend", "get_settings"]

WebSearchBackend = Literal["offline", "searxng", "openai"]
"""Where the demo's `web_search` tool looks things up."""


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
        offline_answer_delay: Seconds the offline model takes to answer a
            call that is not streamed, such as the model calls of a
            background run (>= 0; 0 answers at once). A stand-in for a real
            model's latency, so a background run lasts long enough to watch
            (or, in the scale-out test, to stop its worker mid-run).
        web_search_backend: What the `web_search` tool searches: `offline`
            (the bundled corpus, BM25), `searxng` (a SearXNG instance at
            `searxng_url`) or `openai` (a private upstream Responses call with
            OpenAI's built-in web search; needs `openai_api_key`).
        web_search_max_results: The most results one search returns (1-10).
        web_search_timeout: Seconds a `searxng` or `openai` search may take.
        searxng_url: Base URL of the SearXNG instance (its JSON format must be
            enabled), e.g. `http://127.0.0.1:8888`.
        corpus_base_url: Where the corpus server
            (`python -m lgos_demo_api.corpus_server`) serves the offline
            corpus; offline search results link there.
        files_base_url: Base URL of the OpenAI-compatible Files API the file
            graphs read attachments from and upload generated files to
            (`python -m lgos_demo_files` serves one on port 8003).
        files_api_key: Bearer key for that Files API.

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
    offline_answer_delay: float = Field(default=0.0, ge=0.0)
    web_search_backend: WebSearchBackend = "offline"
    web_search_max_results: int = Field(default=5, ge=1, le=10)
    web_search_timeout: float = Field(default=30.0, gt=0.0)
    searxng_url: str | None = None
    corpus_base_url: str = "http://127.0.0.1:8002"
    files_base_url: str = "http://127.0.0.1:8003/v1"
    files_api_key: SecretStr = SecretStr("lgos-demo")

    @model_validator(mode="after")
    def _check_web_search_backend(self) -> Self:
        if self.web_search_backend == "searxng" and not self.searxng_url:
            msg = "DEMO_API_WEB_SEARCH_BACKEND=searxng needs DEMO_API_SEARXNG_URL."
            raise ValueError(msg)
        if self.web_search_backend == "openai" and self.openai_api_key is None:
            msg = "DEMO_API_WEB_SEARCH_BACKEND=openai needs DEMO_API_OPENAI_API_KEY."
            raise ValueError(msg)
        return self


def get_settings() -> DemoApiSettings:
    """Read the settings afresh from the environment and `.env`.

    Returns:
        A new `DemoApiSettings`; nothing is cached.

    Raises:
        pydantic.ValidationError: If a `DEMO_API_*` value is invalid (e.g. a
            negative `DEMO_API_OFFLINE_CHUNK_DELAY`).

    """
    return DemoApiSettings()
