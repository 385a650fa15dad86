"""Settings of ``lgos serve`` and ``lgos worker`` (``LGOS_*`` variables)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from langgraph_openai_serve.settings import LgosSettings

__all__ = ["ServerSettings"]


def _default_log_format() -> Literal["json", "text"]:
    """Readable text for a terminal, JSON lines for everything else."""
    return "text" if sys.stderr.isatty() else "json"


class ServerSettings(LgosSettings):
    """Server settings: the package settings plus what the server process owns.

    Attributes:
        registry_factory: ``module:attribute`` of the registry factory
            (``LGOS_REGISTRY_FACTORY``); ``lgos serve FACTORY`` sets it.
        postgres_uri: PostgreSQL connection URI (``LGOS_POSTGRES_URI``). When
            set, checkpoints, the store and interrupt-run leases live in
            PostgreSQL; when unset, in process memory (development only).
        postgres_pool_size: Connections in the process's pool, shared by the
            checkpointer, the store and the run coordinator (which may hold
            all but two of them).
        interrupt_ttl_minutes: Paused interrupt runs older than this are
            deleted by the sweep (``LGOS_INTERRUPT_TTL_MINUTES``).
        interrupt_sweep_interval_minutes: How often each API process sweeps;
            0 disables the sweep, for when one scheduled job does it
            (``LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES``).
        background_engine: ``memory`` (in-process, the default) or
            ``hatchet`` (``LGOS_BACKGROUND_ENGINE``; run ``lgos worker`` too).
        shutdown_grace_seconds: On SIGTERM, how long ``lgos serve`` lets the
            requests in flight finish before it stops their runs
            (``LGOS_SHUTDOWN_GRACE_SECONDS``, default 20: with the time a
            stopped run takes to end, within Kubernetes' default 30-second
            termination grace period).
        log_format: How ``lgos serve`` and ``lgos worker`` write log records:
            ``json`` (one object per line) or ``text`` (``LGOS_LOG_FORMAT``);
            both add the request's LGOS fields. Unset: ``text`` when stderr
            is a terminal (a person reads it), else ``json`` (a collector).
        api_keys: Keys ``lgos serve`` requires (``LGOS_API_KEYS``): entries
            separated by commas or newlines, each ``KEY`` or ``KEY TENANT``.
            Unset, with no key file, the API needs no key.
        api_key_file: A file of keys, one ``KEY`` or ``KEY TENANT`` per line
            (``LGOS_API_KEY_FILE``), read again when it changes or on
            ``SIGHUP``; used together with ``api_keys``.
        checkpoint_scope_resolver: ``module:attribute`` of a sync or async
            callable from the FastAPI ``Request`` to the checkpoint scope
            (``LGOS_CHECKPOINT_SCOPE_RESOLVER``); it replaces the key
            tenants as the scope.
        metrics_on_api_port: Serve Prometheus metrics at ``GET /metrics`` on
            the API's own port (``LGOS_METRICS_ON_API_PORT``, default true).
        metrics_port: Also serve them on this port, from a listener of
            ``lgos serve``'s main process; ``lgos worker`` serves its own
            there (``LGOS_METRICS_PORT``; unset: none).
        metrics_host: The address the metrics port binds
            (``LGOS_METRICS_HOST``; default: ``lgos serve``'s ``--host``,
            ``127.0.0.1`` for ``lgos worker``).

    """

    model_config = SettingsConfigDict(
        env_prefix="LGOS_", extra="ignore", env_ignore_empty=True
    )

    registry_factory: str | None = None
    postgres_uri: SecretStr | None = None
    postgres_pool_size: int = Field(default=10, ge=3)
    interrupt_ttl_minutes: float = Field(default=24 * 60, gt=0)
    interrupt_sweep_interval_minutes: float = Field(default=15, ge=0)
    background_engine: Literal["memory", "hatchet"] = "memory"
    shutdown_grace_seconds: float = Field(default=20, ge=0)
    log_format: Literal["json", "text"] = Field(default_factory=_default_log_format)
    api_keys: SecretStr | None = None
    api_key_file: Path | None = None
    checkpoint_scope_resolver: str | None = None
    metrics_on_api_port: bool = True
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    metrics_host: str | None = None
