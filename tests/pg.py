"""A fresh PostgreSQL database per test (``just test`` starts the server).

The admin URI comes from ``LGOS_TEST_POSTGRES_URI`` (default: the local
``lgos`` superuser that ``scripts/ensure-postgres.sh`` creates).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
import pytest

from tests.procs import free_port
from tests.tiers import needs

ADMIN_URI = os.environ.get(
    "LGOS_TEST_POSTGRES_URI", "postgresql://lgos:lgos@127.0.0.1:5432/postgres"
)


def _with_database(uri: str, name: str) -> str:
    base, _, _ = uri.rpartition("/")
    return f"{base}/{name}"


@pytest.fixture
@needs("integration")
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


def _as_root(*args: str) -> list[str]:
    """``args`` run as root, through sudo when needed (as ensure-postgres.sh does)."""
    return list(args) if os.geteuid() == 0 else ["sudo", *args]


@dataclass(frozen=True)
class RestartablePostgres:
    """A PostgreSQL cluster of one test's own: it may be restarted mid-test."""

    version: str
    name: str
    uri: str

    def restart(self) -> None:
        """Restart the cluster at once (``-m fast``: sessions are cut)."""
        subprocess.run(
            _as_root("pg_ctlcluster", self.version, self.name, "restart", "-m", "fast"),
            check=True,
            capture_output=True,
        )


@contextmanager
def restartable_cluster() -> Iterator[RestartablePostgres]:
    """Create and start a throw-away cluster on a free port; drop it at the end.

    Uses Debian's cluster tools, which ``scripts/ensure-postgres.sh`` (run by
    ``just test``) installs; the shared server is never restarted, so other
    tests are not disturbed.
    """
    if shutil.which("pg_createcluster") is None:
        pytest.fail(
            "pg_createcluster is missing: run `bash scripts/ensure-postgres.sh` "
            "(just test does) to install Debian's PostgreSQL",
            pytrace=False,
        )
    version = sorted(os.listdir("/usr/lib/postgresql"))[-1]
    name = f"zrestart{uuid.uuid4().hex[:8]}"  # sorts after the shared "main"
    port = free_port()
    subprocess.run(
        _as_root(
            "pg_createcluster", version, name, "-p", str(port), "--", "--auth=trust"
        ),
        check=True,
        capture_output=True,
    )
    try:
        subprocess.run(
            _as_root("pg_ctlcluster", version, name, "start"),
            check=True,
            capture_output=True,
        )
        yield RestartablePostgres(
            version, name, f"postgresql://postgres@127.0.0.1:{port}/postgres"
        )
    finally:
        subprocess.run(
            _as_root("pg_dropcluster", version, name, "--stop"), capture_output=True
        )


@pytest.fixture
@needs("integration")
def restartable_postgres() -> Iterator[RestartablePostgres]:
    """A cluster of the test's own (:func:`restartable_cluster`)."""
    with restartable_cluster() as cluster:
        yield cluster
