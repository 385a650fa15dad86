"""Configuration of the demo MCP server, read from `DEMO_MCP_*` variables and `.env`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from lgos_demo_api.search.corpus import repository_root

__all__ = ["LOOPBACK_HOSTS", "McpServerSettings", "default_notes_path"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""Host names (without port) every server accepts in the `Host` header."""


def default_notes_path() -> Path:
    """Return where notes persist by default.

    Returns:
        `.data/mcp/notes.json` at the repository root when the package runs
        from a checkout (the gitignored folder the other demo services use),
        else `.data/mcp/notes.json` under the current directory.

    """
    root = repository_root()
    return (root if root is not None else Path.cwd()) / ".data" / "mcp" / "notes.json"


class McpServerSettings(BaseSettings):
    """Settings of the demo MCP server.

    Every field reads the environment variable `DEMO_MCP_<FIELD NAME>` (case
    insensitive), falling back to a `.env` file in the working directory when
    present. Keyword arguments win over both, so tests pass values explicitly
    (and `_env_file=None` to ignore `.env`).

    Attributes:
        host: Interface `python -m lgos_demo_api.mcp_server` binds by default.
        port: Port it listens on by default.
        notes_path: The JSON file `save_note` and `list_notes` keep notes in
            (created on the first save; see `default_notes_path`).
        allowed_hosts: `Host` header values accepted besides the loopback
            names (`127.0.0.1`, `localhost`, `[::1]`, any port); comma
            separated in the environment. `name:*` accepts any port of
            `name`; the default `mcp:*` is the Compose service name, so the UI
            and the LiteLLM gateway reach `http://mcp:8005/mcp`. A single `*`
            turns the check off (any `Host`, for a server behind a proxy you
            trust).
        corpus_base_url: Where the corpus server serves the offline corpus;
            `search_corpus` results link there (as `DEMO_API_CORPUS_BASE_URL`
            does for the offline `web_search`).

    """

    model_config = SettingsConfigDict(
        env_prefix="DEMO_MCP_",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8005, ge=0, le=65535)
    notes_path: Path = Field(default_factory=default_notes_path)
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["mcp:*"]
    )
    corpus_base_url: str = "http://127.0.0.1:8002"

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value
