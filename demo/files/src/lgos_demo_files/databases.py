"""The two databases the metadata store speaks to: their SQL dialects and connections.

What PostgreSQL (psycopg 3, an async pool) and SQLite (the standard library's
`sqlite3`, used from worker threads) do differently, kept apart from the
queries in :mod:`lgos_demo_files.metadata`.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, LiteralString, Protocol

from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool

__all__ = [
    "ADDED_COLUMNS",
    "POSTGRES",
    "SQLITE",
    "AddedColumn",
    "Connection",
    "Dialect",
    "PostgresConnection",
    "Schema",
    "SqliteConnection",
]

# Serialises concurrent `create table` from several processes (pg_advisory
# locks take a bigint; this one spells "lgosfile").
_DDL_LOCK = 0x6C676F7366696C65

_INDEXES: tuple[LiteralString, ...] = (
    "create index if not exists demo_files_order on demo_files (created_at, seq)",
    "create index if not exists demo_files_expiry "
    "on demo_files (expires_at) where expires_at is not null",
    "create index if not exists demo_files_tenant_order "
    "on demo_files (tenant, created_at, seq)",
)


@dataclass(frozen=True, slots=True)
class AddedColumn:
    """A column added to `demo_files` after its first release.

    A table created by an older version gets it when the store opens; its
    rows take the column's default.

    Attributes:
        name: The column's name.
        definition: Its type and constraints, default included.

    """

    name: LiteralString
    definition: LiteralString


ADDED_COLUMNS: tuple[AddedColumn, ...] = (
    # Files stored before tenants existed belong to the default tenant.
    AddedColumn("tenant", "text not null default 'default'"),
)
"""Columns the current `create table` has and older tables may lack."""


@dataclass(frozen=True, slots=True)
class Schema:
    """Every statement that brings the table up to date, safe to run again.

    Attributes:
        create_table: Creates the table when missing (with every column).
        columns: Columns to add to a table an older version created.
        indexes: `create index if not exists` statements, run last.

    """

    create_table: LiteralString
    columns: tuple[AddedColumn, ...]
    indexes: tuple[LiteralString, ...]


@dataclass(frozen=True, slots=True)
class Dialect:
    """The SQL text that differs between the databases the store speaks to.

    Attributes:
        name: The database's name, for messages.
        placeholder: How a query marks a parameter (`%s` or `?`).
        create_table: The `create table if not exists demo_files` statement;
            both give `seq` a value that grows with every insert.
        lock_expired: Appended to the query choosing expired rows to delete,
            so that concurrent sweeps skip each other's rows ('' when the
            database serialises writers anyway).

    """

    name: LiteralString
    placeholder: LiteralString
    create_table: LiteralString
    lock_expired: LiteralString

    @property
    def schema(self) -> Schema:
        """What creates or upgrades the table and its indexes, idempotently."""
        return Schema(self.create_table, ADDED_COLUMNS, _INDEXES)


POSTGRES = Dialect(
    name="PostgreSQL",
    placeholder="%s",
    create_table="""
        create table if not exists demo_files (
            id text primary key,
            seq bigint generated always as identity unique,
            filename text not null,
            purpose text not null,
            bytes bigint not null,
            content_type text not null,
            created_at bigint not null,
            expires_at bigint,
            tenant text not null default 'default'
        )
    """,
    lock_expired="for update skip locked",
)
"""PostgreSQL through psycopg 3."""

SQLITE = Dialect(
    name="SQLite",
    placeholder="?",
    create_table="""
        create table if not exists demo_files (
            seq integer primary key autoincrement,
            id text not null unique,
            filename text not null,
            purpose text not null,
            bytes integer not null,
            content_type text not null,
            created_at integer not null,
            expires_at integer,
            tenant text not null default 'default'
        )
    """,
    lock_expired="",
)
"""SQLite through the standard library's `sqlite3`."""


class Connection(Protocol):
    """How a store reaches its database: the part each backend does its own way."""

    async def open(self, schema: Schema) -> None:
        """Connect, then create or upgrade the table (safe to run again)."""
        ...

    async def close(self) -> None:
        """Release every connection; nothing happens when none is open."""
        ...

    async def fetch(
        self, sql: LiteralString, params: Sequence[Any]
    ) -> list[tuple[Any, ...]]:
        """Run one autocommitted statement; return its rows (none for most writes)."""
        ...


class PostgresConnection:
    """A psycopg 3 async pool; the schema is created under an advisory lock."""

    def __init__(self, url: str, pool_size: int) -> None:
        self._url = url
        self._pool_size = pool_size
        self._pool: AsyncConnectionPool[Any] | None = None

    async def open(self, schema: Schema) -> None:
        """See :meth:`Connection.open`."""
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            self._url,
            min_size=1,
            max_size=self._pool_size,
            open=False,
            kwargs={"autocommit": True},
            check=AsyncConnectionPool.check_connection,
            name="lgos-demo-files",
        )
        await pool.open(wait=True, timeout=30)
        try:
            async with pool.connection() as conn, conn.transaction():
                await conn.execute("select pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
                await conn.execute(schema.create_table)
                for column in schema.columns:
                    # Altered only when missing: `alter table` would lock the
                    # table against every reader at each start.
                    present = await conn.execute(
                        "select 1 from information_schema.columns where "
                        "table_schema = current_schema() and "
                        "table_name = 'demo_files' and column_name = %s",
                        (column.name,),
                    )
                    if await present.fetchone() is None:
                        await conn.execute(
                            f"alter table demo_files add column "
                            f"{column.name} {column.definition}"
                        )
                for statement in schema.indexes:
                    await conn.execute(statement)
        except BaseException:
            await pool.close()
            raise
        self._pool = pool

    async def close(self) -> None:
        """See :meth:`Connection.close`."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def fetch(
        self, sql: LiteralString, params: Sequence[Any]
    ) -> list[tuple[Any, ...]]:
        """See :meth:`Connection.fetch`."""
        if self._pool is None:
            msg = "The PostgreSQL metadata store is not open."
            raise RuntimeError(msg)
        async with self._pool.connection() as conn:
            cursor = conn.cursor(row_factory=tuple_row)
            async with cursor:
                await cursor.execute(sql, params)
                if cursor.description is None:
                    return []
                return await cursor.fetchall()


class SqliteConnection:
    """One `sqlite3` connection in WAL mode, used from worker threads under a lock."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    async def open(self, schema: Schema) -> None:
        """See :meth:`Connection.open`."""
        await asyncio.to_thread(self._open, schema)

    def _open(self, schema: Schema) -> None:
        if self._path != ":memory:":
            Path(self._path).expanduser().resolve().parent.mkdir(
                parents=True, exist_ok=True
            )
        conn = sqlite3.connect(
            self._path, timeout=30, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("pragma journal_mode=wal")
            conn.execute("pragma synchronous=normal")
            # One writer at a time: a second process opening the same file
            # waits, then finds the table and its columns in place.
            conn.execute("begin immediate")
            try:
                conn.execute(schema.create_table)
                present = {
                    row[1] for row in conn.execute("pragma table_info(demo_files)")
                }
                for column in schema.columns:
                    if column.name not in present:
                        conn.execute(
                            f"alter table demo_files add column "
                            f"{column.name} {column.definition}"
                        )
                for statement in schema.indexes:
                    conn.execute(statement)
            except BaseException:
                conn.execute("rollback")
                raise
            conn.execute("commit")
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    async def close(self) -> None:
        """See :meth:`Connection.close`."""
        conn, self._conn = self._conn, None
        if conn is not None:
            await asyncio.to_thread(self._close, conn)

    def _close(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            conn.close()

    async def fetch(
        self, sql: LiteralString, params: Sequence[Any]
    ) -> list[tuple[Any, ...]]:
        """See :meth:`Connection.fetch`."""
        return await asyncio.to_thread(self._fetch, sql, params)

    def _fetch(self, sql: LiteralString, params: Sequence[Any]) -> list[Any]:
        conn = self._conn
        if conn is None:
            msg = "The SQLite metadata store is not open."
            raise RuntimeError(msg)
        with self._lock:
            return conn.execute(sql, tuple(params)).fetchall()
