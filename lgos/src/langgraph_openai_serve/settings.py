"""Package settings read from ``LGOS_*`` environment variables."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "LgosSettings", "normalize_openai_api_prefix"]

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""16 MiB: far above a long conversation's text (files travel as IDs)."""


def normalize_openai_api_prefix(prefix: str) -> str:
    """Return ``prefix`` with one leading slash and no trailing slash.

    Raises:
        ValueError: The prefix is empty or ``/``.

    """
    cleaned = "/" + prefix.strip().strip("/")
    if cleaned == "/":
        msg = "The OpenAI API prefix must not be empty."
        raise ValueError(msg)
    return cleaned


class LgosSettings(BaseSettings):
    """Settings of the LGOS package (environment prefix ``LGOS_``).

    Attributes:
        openai_api_prefix: Where the OpenAI routes are mounted
            (``LGOS_OPENAI_API_PREFIX``, default ``/v1``).
        openai_api_docs_enabled: Serve ``{prefix}/docs``, ``{prefix}/redoc``
            and ``{prefix}/openapi.json`` (``LGOS_OPENAI_API_DOCS_ENABLED``).
        max_request_bytes: The largest request body the OpenAI routes read
            (``LGOS_MAX_REQUEST_BYTES``, default 16 MiB); a larger one is
            refused with HTTP 413 while it is being read, before any parsing.
        max_concurrent_runs: Run requests (``POST {prefix}/responses`` and
            ``{prefix}/chat/completions``, a stream until it ends) one mount
            answers at once (``LGOS_MAX_CONCURRENT_RUNS``, default 128); the
            next gets a retryable 503 ``server_overloaded`` at once. 0: no cap.
        enable_langfuse: Add the process-wide Langfuse callback to every graph
            run (``LGOS_ENABLE_LANGFUSE``; needs the ``tracing`` extra and
            Langfuse's ``LANGFUSE_*`` keys). A deployment toggle: the runner
            reads it from the process environment once, whatever instance an
            application passes.

    """

    model_config = SettingsConfigDict(env_prefix="LGOS_", extra="ignore")

    openai_api_prefix: str = "/v1"
    openai_api_docs_enabled: bool = False
    max_request_bytes: int = Field(default=DEFAULT_MAX_REQUEST_BYTES, ge=1024)
    max_concurrent_runs: int = Field(default=128, ge=0)
    enable_langfuse: bool = False

    @field_validator("openai_api_prefix")
    @classmethod
    def _normalize_prefix(cls, value: str) -> str:
        return normalize_openai_api_prefix(value)

    @property
    def fastapi_docs_kwargs(self) -> dict[str, Any]:
        """FastAPI constructor arguments enabling or disabling the docs."""
        if self.openai_api_docs_enabled:
            return {}
        return {"docs_url": None, "redoc_url": None, "openapi_url": None}
