"""Configuration of the gateway, read from `DEMO_GATEWAY_*` variables and `.env`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from lgos_demo_gateway.sync import MCP_SERVER_NAME, MCP_SERVER_NAME_PATTERN

__all__ = ["GatewaySettings"]


def _demo_api_url(environ: Mapping[str, str]) -> str:
    """Return the demo API's base URL from `just demo`'s own variables.

    `DEMO_API_HOST` (a wildcard bind address means loopback) and
    `DEMO_API_PORT`, defaults `127.0.0.1` and `8000`: a `sync` run by hand in
    a shell where the demo's ports were moved reads the same LGOS as the demo.
    """
    host = environ.get("DEMO_API_HOST") or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"http://{host}:{environ.get('DEMO_API_PORT') or '8000'}/v1"


class GatewaySettings(BaseSettings):
    """Settings of the gateway supervisor and the LGOS model sync.

    Every field reads the environment variable `DEMO_GATEWAY_<FIELD NAME>`
    (case insensitive), falling back to a `.env` file in the working directory
    when present. Keyword arguments win over both, so tests pass values
    explicitly (and `_env_file=None` to ignore `.env`).

    Attributes:
        lgos_base_url: LGOS's OpenAI base URL (with `/v1`), which the sync reads
            and the proxy forwards to; by default the demo API's, from
            `DEMO_API_HOST` and `DEMO_API_PORT` (`http://127.0.0.1:8000/v1`).
        lgos_api_key: The bearer key the proxy sends to LGOS: one of its
            ``LGOS_API_KEYS`` (the demo's ``DEMO_LGOS_API_KEY``), any value
            when LGOS runs without keys.
        host: Interface the LiteLLM proxy binds (loopback by default).
        port: Port the LiteLLM proxy listens on.
        master_key: The proxy's master key: clients send it as their OpenAI API
            key, and `GET /model/info` needs it. Without a database it is the
            only key the proxy accepts.
        config_path: Where the sync writes the generated LiteLLM configuration
            (relative paths resolve against the working directory).
        litellm: The `litellm` executable of the pinned proxy, as printed by
            `scripts/ensure-litellm.sh`; default `litellm` on `PATH`.
        request_timeout: Seconds the proxy waits for LGOS on one request (long
            graph runs stream, or run in the background).
        lgos_wait_seconds: How long `serve` and `sync` wait for LGOS to answer
            `GET /v1/models` before giving up (LGOS may still be starting).
        startup_timeout: Seconds `serve` waits for the proxy to become ready.
        watch_interval: Seconds between `serve`'s checks of the configuration
            file (a `sync` elsewhere rewrites it) and of its child.
        sync_interval: Seconds between `serve`'s own syncs with LGOS; 0 (the
            default) syncs only on start, on SIGHUP and on `sync`.
        mcp_url: An MCP server's streamable HTTP endpoint (e.g. the demo
            MCP server's `http://127.0.0.1:8005/mcp`) that the gateway serves
            at its own `/mcp`; empty (the default) for none. `just demo
            --gateway --mcp` sets it.
        mcp_server_name: That server's name in the generated `mcp_servers`;
            the gateway's `/mcp` lists its tools as `<name>-<tool>`.

    """

    model_config = SettingsConfigDict(
        env_prefix="DEMO_GATEWAY_",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
    )

    lgos_base_url: str = Field(default_factory=lambda: _demo_api_url(os.environ))
    lgos_api_key: SecretStr = SecretStr("lgos-demo")
    host: str = "127.0.0.1"
    port: int = Field(default=4000, ge=0, le=65535)
    master_key: SecretStr = SecretStr("lgos-demo")
    config_path: Path = Path(".data/gateway/litellm.yaml")
    litellm: str = "litellm"
    request_timeout: float = Field(default=3600.0, gt=0)
    lgos_wait_seconds: float = Field(default=120.0, ge=0)
    startup_timeout: float = Field(default=120.0, gt=0)
    watch_interval: float = Field(default=1.0, gt=0)
    sync_interval: float = Field(default=0.0, ge=0)
    mcp_url: str = ""
    mcp_server_name: str = Field(
        default=MCP_SERVER_NAME, pattern=MCP_SERVER_NAME_PATTERN
    )

    @property
    def gateway_url(self) -> str:
        """The proxy's own base URL (`http://<host>:<port>`), without `/v1`."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"
