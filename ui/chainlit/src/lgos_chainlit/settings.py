"""Process settings of the Chainlit UI, read from ``DEMO_CHAINLIT_*`` variables.

These are deployment settings (where LGOS lives, how long to wait for it,
where chat history is stored, the demo login). The per-graph *runtime*
settings a user edits in the chat live in :mod:`lgos_chainlit.runtime_settings`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import openai
from openai import AsyncOpenAI, DefaultAsyncHttpxClient
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from lgos_chainlit.paths import DEFAULT_DATA_DIR

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
# The demo API's key (DEMO_LGOS_API_KEY of `just demo`); LGOS itself needs one
# only when it is given keys, but the OpenAI SDK always insists on *a* key.
PLACEHOLDER_API_KEY = "lgos-demo"
DEFAULT_FILES_BASE_URL = "http://127.0.0.1:8003/v1"

Discovery = Literal["lgos", "litellm"]
"""Where the UI reads the models and their ``lgos`` extension (see ``discovery``)."""


DEFAULT_DEMO_PASSWORD = "demo"
"""The documented demo password: the login hint shows it, on loopback only."""


class ChainlitSettings(BaseSettings):
    """Settings of the Chainlit UI process.

    Every field is read from the environment with the ``DEMO_CHAINLIT_`` prefix,
    for example ``DEMO_CHAINLIT_OPENAI_BASE_URL=http://127.0.0.1:8000/v1``.
    """

    model_config = SettingsConfigDict(
        env_prefix="DEMO_CHAINLIT_", extra="ignore", env_ignore_empty=True
    )

    openai_base_url: str = Field(
        default=DEFAULT_BASE_URL,
        description="OpenAI-compatible base URL of the LGOS deployment (with /v1).",
    )
    openai_api_key: SecretStr = Field(
        default=SecretStr(PLACEHOLDER_API_KEY),
        description="Bearer key sent to LGOS or to a proxy in front of it.",
    )
    discovery: Discovery = Field(
        default="lgos",
        description=(
            "Where models and their `lgos` extension come from: `lgos` reads "
            "/v1/models (LGOS itself, or a proxy that keeps the extension); "
            "`litellm` reads a LiteLLM gateway's /model/info (model_info.lgos, "
            "copied there by the LGOS model sync)."
        ),
    )
    request_timeout: float = Field(
        default=120.0,
        gt=0,
        description="Seconds the OpenAI client waits on a request (per read).",
    )
    max_retries: int = Field(
        default=2,
        ge=0,
        description="Retries of the OpenAI client on connection errors and 5xx.",
    )
    default_model: str | None = Field(
        default=None,
        description="Model (chat profile) selected when the user picked none.",
    )
    data_dir: Path = Field(
        default=DEFAULT_DATA_DIR,
        description=(
            "Folder for the SQLite chat history and the generated auth secret "
            "(default: .data/ at the repository root)."
        ),
    )
    database_url: str | None = Field(
        default=None,
        description=(
            "Chat history database: a postgresql:// URL, or a SQLAlchemy "
            "sqlite+aiosqlite:/// URL; default: SQLite in data_dir."
        ),
    )
    files_base_url: str = Field(
        default=DEFAULT_FILES_BASE_URL,
        description="OpenAI-compatible Files API (with /v1) for attachments.",
    )
    files_api_key: SecretStr = Field(
        default=SecretStr(PLACEHOLDER_API_KEY),
        description="Bearer key of the Files API (the service's DEMO_FILES_API_KEY).",
    )
    background_poll_interval: float = Field(
        default=1.0,
        gt=0,
        description="Seconds between polls of a background Response.",
    )
    mcp_url: str | None = Field(
        default=None,
        description=(
            "Streamable HTTP endpoint of the MCP server (or MCP gateway) whose "
            "tools the UI offers to models with the `mcp_tools` feature, e.g. "
            "http://127.0.0.1:8005/mcp, or a LiteLLM gateway's "
            "http://127.0.0.1:4000/mcp; unset or empty: no MCP tools."
        ),
    )
    mcp_api_key: SecretStr | None = Field(
        default=None,
        description=(
            "Key sent to the MCP server as `Authorization: Bearer <key>` and "
            "`x-litellm-api-key: Bearer <key>` (a LiteLLM key); unset: none."
        ),
    )
    mcp_timeout: float = Field(
        default=30.0,
        gt=0,
        description=(
            "Seconds one MCP operation (connect, list the tools, or call one) "
            "may take before it counts as failed."
        ),
    )
    demo_user: str = Field(
        default="demo", min_length=1, description="The demo login's user name."
    )
    demo_password: SecretStr = Field(
        default=SecretStr(DEFAULT_DEMO_PASSWORD),
        description="The demo login's password.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default=[],
        description=(
            "Host names (comma separated; `*.example.com` for subdomains) the UI "
            "answers to besides localhost and 127.0.0.1. Unset: loopback names "
            "only while the UI is reached on a loopback address, any name "
            "otherwise. A page under another name (DNS rebinding) gets HTTP 400."
        ),
    )
    publish_address: str | None = Field(
        default=None,
        description=(
            "The address users reach the UI on, when it is not the one the UI "
            "binds (Compose binds 0.0.0.0 in the container and publishes the "
            "port on DEMO_PUBLISH_ADDRESS). Not a loopback address: the demo "
            "login needs a password of your own."
        ),
    )

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [name.strip().lower() for name in value.split(",") if name.strip()]
        return value


@lru_cache(maxsize=1)
def get_settings() -> ChainlitSettings:
    """Return the process settings, read from the environment once."""
    return ChainlitSettings()


class SessionHttpClient(DefaultAsyncHttpxClient):
    """The HTTP client of one chat session's ``AsyncOpenAI`` client.

    When a chat ends, :func:`lgos_chainlit.app.end_chat` closes its clients,
    while a callback of the same session may still be about to send (a
    reopened thread connects twice, and the first connection's resume is
    still loading the model). A closed HTTPX client raises a bare
    ``RuntimeError``, which the OpenAI SDK passes through unwrapped; this
    raises :class:`openai.APIConnectionError` instead, which every caller
    handles (and which is not retried: the SDK re-raises its own errors).
    """

    async def send(self, request: Any, **kwargs: Any) -> Any:
        """Send ``request``, or raise ``APIConnectionError`` once closed."""
        if self.is_closed:
            raise openai.APIConnectionError(
                message="The chat ended: its client is closed.", request=request
            )
        return await super().send(request, **kwargs)


def make_client(settings: ChainlitSettings) -> AsyncOpenAI:
    """Build an ``AsyncOpenAI`` client for LGOS from ``settings``.

    The caller owns the client and closes it (``await client.close()`` or
    ``async with``); the UI keeps one per chat session.
    """
    return AsyncOpenAI(
        base_url=settings.openai_base_url,
        api_key=settings.openai_api_key.get_secret_value(),
        timeout=settings.request_timeout,
        max_retries=settings.max_retries,
        http_client=SessionHttpClient(),
    )


def make_files_client(settings: ChainlitSettings) -> AsyncOpenAI:
    """Build an ``AsyncOpenAI`` client for the Files API from ``settings``."""
    return AsyncOpenAI(
        base_url=settings.files_base_url,
        api_key=settings.files_api_key.get_secret_value(),
        timeout=settings.request_timeout,
        max_retries=settings.max_retries,
        http_client=SessionHttpClient(),
    )
