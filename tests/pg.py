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
        """Restart the cluster at once (``-m fast``: sessions are cut).

        Runs ``pg_ctl`` itself, as the cluster's owner: it returns once the
        server accepts connections again, about 0.2 s here, where Debian's
        ``pg_ctlcluster`` wrapper takes about 2.4 s. A restart is then over
        before a lease holder's next check (1 s), the case a takeover must
        survive.
        """
        tools = f"/usr/lib/postgresql/{self.version}/bin"
        data = f"/var/lib/postgresql/{self.version}/{self.name}"
        config = f"/etc/postgresql/{self.version}/{self.name}/postgresql.conf"
        log = f"/var/log/postgresql/postgresql-{self.version}-{self.name}.log"
        owner = (
            ["runuser", "-u", "postgres", "--"]
            if os.geteuid() == 0
            else ["sudo", "-u", "postgres"]
        )
        subprocess.run(
            [
                *owner,
                f"{tools}/pg_ctl",
                "restart",
                "-D",
                data,
                "-m",
                "fast",
                "-w",
                "-l",  # (without a log file pg_ctl's output keeps the pipe open)
                log,
                "-o",
                f"-c config_file={config}",
            ],
            check=True,
            capture_output=True,
            timeout=60,
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
