"""A fresh PostgreSQL database per test (``just test`` starts the server).

The admin URI comes from ``LGOS_TEST_POSTGRES_URI`` (default: the local
``lgos`` superuser that ``scripts/ensure-postgres.sh`` creates).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest

ADMIN_URI = os.environ.get(
    "LGOS_TEST_POSTGRES_URI", "postgresql://lgos:lgos@127.0.0.1:5432/postgres"
)


def _with_database(uri: str, name: str) -> str:
    base, _, _ = uri.rpartition("/")
    return f"{base}/{name}"


@pytest.fixture
def postgres_uri() -> Iterator[str]:
    """Create an empty database, yield its URI, then drop it (and its sessions)."""
    name = f"lgos_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(ADMIN_URI, autocommit=True) as admin:
        admin.execute(f'create database "{name}"')
    try:
        yield _with_database(ADMIN_URI, name)
    finally:
        with psycopg.connect(ADMIN_URI, autocommit=True) as admin:
            admin.execute(f'drop database if exists "{name}" with (force)')


def thread_count(uri: str) -> int:
    """Checkpointed LangGraph threads left in the database at ``uri``."""
    with psycopg.connect(uri) as conn:
        row = conn.execute(
            "select count(distinct thread_id) from checkpoints"
        ).fetchone()
        assert row is not None
        return row[0]
