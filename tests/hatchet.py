"""A real Hatchet engine for the tests, started through the SDK's embedded mode.

``scripts/ensure-hatchet.sh`` builds the pinned engine once (cached) and
prints the sidecar launcher; the SDK's own ``start_embedded_sidecar`` starts
it on a fresh PostgreSQL database and waits for its handshake, exactly as
``Hatchet.from_embedded()`` does with ``HATCHET_CLIENT_EMBEDDED_BINARY_PATH``.
Server and worker processes then connect with the ``HATCHET_CLIENT_*``
variables this fixture yields.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.pg import ADMIN_URI, _with_database
from tests.procs import ensured
from tests.tiers import needs

ROOT = Path(__file__).resolve().parents[1]


def sidecar_launcher() -> str:
    """Build (once) the pinned engine; return the sidecar launcher's path."""
    return ensured("ensure-hatchet.sh", timeout=1800)


@pytest.fixture(scope="session")
@needs("stack")
def hatchet_engine() -> Iterator[dict[str, str]]:
    """Yield the ``HATCHET_CLIENT_*`` variables of a running Hatchet engine."""
    from hatchet_sdk import EmbeddedHatchetConfig
    from hatchet_sdk.embedded import start_embedded_sidecar

    launcher = sidecar_launcher()
    name = f"lgos_hatchet_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(ADMIN_URI, autocommit=True) as admin:
        admin.execute(f'create database "{name}"')
    database_url = _with_database(ADMIN_URI, name) + "?sslmode=disable"
    try:
        sidecar = start_embedded_sidecar(
            EmbeddedHatchetConfig(
                binary_path=launcher,
                database_url=database_url,
                log_level="warn",
                ready_timeout_seconds=240,
            )
        )
        with sidecar:
            handshake = sidecar.handshake
            yield {
                "HATCHET_CLIENT_TOKEN": handshake.token,
                "HATCHET_CLIENT_TENANT_ID": handshake.tenant_id,
                "HATCHET_CLIENT_HOST_PORT": handshake.grpc_address,
                "HATCHET_CLIENT_SERVER_URL": handshake.api_url,
                "HATCHET_CLIENT_TLS_STRATEGY": "none",
            }
    finally:
        with psycopg.connect(ADMIN_URI, autocommit=True) as admin:
            admin.execute(f'drop database if exists "{name}" with (force)')
