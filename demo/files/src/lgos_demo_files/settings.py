"""Configuration of the Files service, read from `DEMO_FILES_*` variables and `.env`."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from langgraph_openai_serve.api.api_keys import ApiKeyError, parse_key_entries
from lgos_demo_files.metadata import DEFAULT_TENANT

__all__ = ["PLACEHOLDER_API_KEY", "FilesSettings"]

PLACEHOLDER_API_KEY = "lgos-demo"
"""The key the demo uses out of the box; refused when `env` is `production`."""

MIB = 1024 * 1024


class FilesSettings(BaseSettings):
    """Settings of the Files service.

    Every field reads the environment variable `DEMO_FILES_<FIELD NAME>` (case
    insensitive), falling back to a `.env` file in the working directory when
    present. Keyword arguments win over both, so tests pass values explicitly
    (and `_env_file=None` to ignore `.env`).

    Attributes:
        env: `development` (default) or `production`; production refuses the
            placeholder API key.
        host: Interface `python -m lgos_demo_files` binds by default.
        port: Port `python -m lgos_demo_files` listens on by default.
        api_key: The service key. Its own files belong to the `default`
            tenant; it may act for any other tenant named in an
            `OpenAI-Project` header (the demo API does, with the tenant of
            its caller). Keep it for trusted services.
        api_keys: Tenant keys: entries `KEY TENANT` (or `KEY`, for the
            `default` tenant) separated by commas or newlines, as
            `LGOS_API_KEYS`. A tenant key sees only its tenant's files and
            cannot name another tenant. None (the default) for none.
        storage_url: Where file bytes live: a directory path (relative paths
            resolve against the working directory), a `file:///` URL, an
            `s3://bucket/prefix` URL (credentials and endpoint from the usual
            `AWS_*` variables) or `memory://` (lost on exit; for tests).
        database_url: Where file metadata lives: a `postgresql://` URL, or a
            SQLite database given as a path, a `sqlite:///path` URL or
            `:memory:`.
        max_bytes: Largest accepted upload, in bytes (default 50 MiB); larger
            uploads are answered with 413 while they stream in.
        sweep_interval_seconds: Seconds between sweeps deleting expired files;
            0 disables the periodic sweep (expired files are still refused and
            deleted when accessed).
        pool_size: Most PostgreSQL connections the service opens.

    """

    model_config = SettingsConfigDict(
        env_prefix="DEMO_FILES_",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
    )

    env: Literal["development", "production"] = "development"
    host: str = "127.0.0.1"
    port: int = Field(default=8003, ge=0, le=65535)
    api_key: SecretStr = SecretStr(PLACEHOLDER_API_KEY)
    api_keys: SecretStr | None = None
    storage_url: str = ".data/files/objects"
    database_url: str = ".data/files/metadata.sqlite3"
    max_bytes: int = Field(default=50 * MIB, gt=0)
    sweep_interval_seconds: float = Field(default=300.0, ge=0.0)
    pool_size: int = Field(default=5, ge=1, le=100)

    @model_validator(mode="after")
    def _check_api_key(self) -> Self:
        key = self.api_key.get_secret_value()
        if not key.strip():
            msg = "DEMO_FILES_API_KEY must not be empty."
            raise ValueError(msg)
        if self.env == "production" and key == PLACEHOLDER_API_KEY:
            msg = (
                "DEMO_FILES_ENV=production refuses the placeholder key "
                f"{PLACEHOLDER_API_KEY!r}: set DEMO_FILES_API_KEY to a secret."
            )
            raise ValueError(msg)
        if key in self.tenant_keys():
            msg = (
                "DEMO_FILES_API_KEYS must not list the service key DEMO_FILES_API_KEY."
            )
            raise ValueError(msg)
        return self

    def tenant_keys(self) -> dict[str, str]:
        """Return the tenant keys of `api_keys` as `{key: tenant}`.

        Raises:
            ValueError: An entry is not `KEY` or `KEY TENANT` (visible ASCII,
                no spaces), or a key is given two tenants; the message names
                the entry's position, never its text.

        """
        if self.api_keys is None:
            return {}
        try:
            entries = parse_key_entries(
                self.api_keys.get_secret_value(), source="DEMO_FILES_API_KEYS"
            )
        except ApiKeyError as error:
            raise ValueError(str(error)) from None
        return {key: tenant or DEFAULT_TENANT for key, tenant in entries.items()}
