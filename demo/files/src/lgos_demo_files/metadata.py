"""Durable file metadata: PostgreSQL for production, SQLite otherwise.

One store, `SqlMetadataStore`, holds every query; what the two databases
really do differently is kept apart: a `Dialect` (placeholder, `create table`
text, row locking) and a connection (a psycopg pool, or one `sqlite3`
connection used from worker threads). `PostgresMetadataStore` and
`SqliteMetadataStore` pair the two.

Both keep one table, `demo_files`, created idempotently when the store opens.
Rows are ordered by `(created_at, seq)`, where `seq` increases with every
insert, so files created in the same second still list in upload order and a
cursor (`after`) always denotes one position.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, LiteralString, Protocol
from urllib.parse import urlsplit

from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool

__all__ = [
    "POSTGRES",
    "SQLITE",
    "Connection",
    "CursorNotFoundError",
    "Dialect",
    "FileRecord",
    "MetadataStore",
    "Order",
    "Page",
    "PostgresMetadataStore",
    "SqlMetadataStore",
    "SqliteMetadataStore",
    "open_metadata",
]

Order = Literal["asc", "desc"]

_COLUMNS = "id, filename, purpose, bytes, content_type, created_at, expires_at"

# Serialises concurrent `create table` from several processes (pg_advisory
# locks take a bigint; this one spells "lgosfile").
_DDL_LOCK = 0x6C676F7366696C65

_INDEXES: tuple[LiteralString, ...] = (
    "create index if not exists demo_files_order on demo_files (created_at, seq)",
    "create index if not exists demo_files_expiry "
    "on demo_files (expires_at) where expires_at is not null",
)


@dataclass(frozen=True, slots=True)
class FileRecord:
    """One stored file's metadata (`expires_at` is `None` when it never expires)."""

    id: str
    filename: str
    purpose: str
    bytes: int
    content_type: str
    created_at: int
    expires_at: int | None

    def expired(self, now: int) -> bool:
        """Whether the file has expired at Unix time `now`."""
        return self.expires_at is not None and self.expires_at <= now


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a listing, and whether more rows follow it."""

    records: list[FileRecord]
    has_more: bool


class CursorNotFoundError(LookupError):
    """The `after` cursor names no stored file."""


class MetadataStore(Protocol):
    """What the service needs from a metadata store."""

    async def open(self) -> None:
        """Connect and create the table when missing."""
        ...

    async def close(self) -> None:
        """Release every connection."""
        ...

    async def ping(self) -> None:
        """Run a trivial query; raises when the database does not answer."""
        ...

    async def insert(self, record: FileRecord) -> None:
        """Store a new record."""
        ...

    async def get(self, file_id: str) -> FileRecord | None:
        """Return the record with this ID, expired or not."""
        ...

    async def list(
        self,
        *,
        now: int,
        purpose: str | None,
        limit: int,
        order: Order,
        after: str | None,
    ) -> Page:
        """Return unexpired records in `(created_at, seq)` order after a cursor."""
        ...

    async def delete(self, file_id: str) -> FileRecord | None:
        """Delete a record; return it, or `None` when there was none."""
        ...

    async def delete_expired(self, now: int, limit: int) -> list[FileRecord]:
        """Delete up to `limit` records expired at `now` and return them."""
        ...


def open_metadata(url: str, *, pool_size: int = 5) -> MetadataStore:
    """Choose the metadata store a database URL names (nothing is opened yet).

    Args:
        url: `postgresql://...` (or `postgres://...`) for PostgreSQL; for
            SQLite a file path, `sqlite:///relative/path`,
            `sqlite:////absolute/path` or `:memory:`.
        pool_size: Most PostgreSQL connections to open.

    Raises:
        ValueError: The URL has another scheme.

    """
    text = url.strip()
    scheme = urlsplit(text).scheme.lower()
    if scheme in ("postgresql", "postgres"):
        return PostgresMetadataStore(text, pool_size=pool_size)
    if scheme == "sqlite":
        rest = text[len("sqlite:") :]
        if not rest.startswith("///"):
            msg = f"SQLite URLs look like sqlite:///path, not {url!r}."
            raise ValueError(msg)
        return SqliteMetadataStore(rest[3:] or ":memory:")
    if text == ":memory:" or not scheme or len(scheme) == 1:
        if not text:
            msg = "DEMO_FILES_DATABASE_URL is empty."
            raise ValueError(msg)
        return SqliteMetadataStore(text)
    msg = (
        f"Unsupported database URL scheme {scheme!r}: use postgresql://... "
        "or a SQLite path."
    )
    raise ValueError(msg)


def _record(row: Sequence[Any]) -> FileRecord:
    return FileRecord(
        id=row[0],
        filename=row[1],
        purpose=row[2],
        bytes=int(row[3]),
        content_type=row[4],
        created_at=int(row[5]),
        expires_at=None if row[6] is None else int(row[6]),
    )


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
    def schema(self) -> tuple[LiteralString, ...]:
        """Every statement that creates the table and its indexes, idempotently."""
        return (self.create_table, *_INDEXES)


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
            expires_at bigint
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
            expires_at integer
        )
    """,
    lock_expired="",
)
"""SQLite through the standard library's `sqlite3`."""


class Connection(Protocol):
    """How a store reaches its database: the part each backend does its own way."""

    async def open(self, schema: Sequence[LiteralString]) -> None:
        """Connect, then run the `schema` statements (safe to run again)."""
        ...

    async def close(self) -> None:
        """Release every connection; nothing happens when none is open."""
        ...

    async def fetch(
        self, sql: LiteralString, params: Sequence[Any]
    ) -> list[tuple[Any, ...]]:
        """Run one autocommitted statement; return its rows (none for most writes)."""
        ...


class _PostgresConnection:
    """A psycopg 3 async pool; the schema is created under an advisory lock."""

    def __init__(self, url: str, pool_size: int) -> None:
        self._url = url
        self._pool_size = pool_size
        self._pool: AsyncConnectionPool[Any] | None = None

    async def open(self, schema: Sequence[LiteralString]) -> None:
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
                for statement in schema:
                    await conn.execute(statement)
        except BaseException:
            await pool.close()
            raise
        self._pool = pool

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def fetch(
        self, sql: LiteralString, params: Sequence[Any]
    ) -> list[tuple[Any, ...]]:
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


class _SqliteConnection:
    """One `sqlite3` connection in WAL mode, used from worker threads under a lock."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    async def open(self, schema: Sequence[LiteralString]) -> None:
        await asyncio.to_thread(self._open, schema)

    def _open(self, schema: Sequence[LiteralString]) -> None:
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
            for statement in schema:
                conn.execute(statement)
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await asyncio.to_thread(self._close, conn)

    def _close(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            conn.close()

    async def fetch(
        self, sql: LiteralString, params: Sequence[Any]
    ) -> list[tuple[Any, ...]]:
        return await asyncio.to_thread(self._fetch, sql, params)

    def _fetch(self, sql: LiteralString, params: Sequence[Any]) -> list[Any]:
        conn = self._conn
        if conn is None:
            msg = "The SQLite metadata store is not open."
            raise RuntimeError(msg)
        with self._lock:
            return conn.execute(sql, tuple(params)).fetchall()


class SqlMetadataStore:
    """The metadata store: every query once, over a dialect and a connection.

    Args:
        dialect: The SQL text that differs between databases.
        connection: How to reach the database (not yet open).

    """

    def __init__(self, dialect: Dialect, connection: Connection) -> None:
        self.dialect = dialect
        self._connection = connection

    async def open(self) -> None:
        """Connect and create the table and its indexes when missing."""
        await self._connection.open(self.dialect.schema)

    async def close(self) -> None:
        """Release every connection."""
        await self._connection.close()

    async def ping(self) -> None:
        """Run a trivial query; raises when the database does not answer."""
        await self._connection.fetch("select 1", ())

    async def insert(self, record: FileRecord) -> None:
        """Store a new record (its `seq` comes from the database)."""
        markers: list[LiteralString] = [self.dialect.placeholder] * 7
        values = ", ".join(markers)
        await self._connection.fetch(
            f"insert into demo_files ({_COLUMNS}) values ({values})",
            (
                record.id,
                record.filename,
                record.purpose,
                record.bytes,
                record.content_type,
                record.created_at,
                record.expires_at,
            ),
        )

    async def get(self, file_id: str) -> FileRecord | None:
        """Return the record with this ID, expired or not."""
        p = self.dialect.placeholder
        rows = await self._connection.fetch(
            f"select {_COLUMNS} from demo_files where id = {p}", (file_id,)
        )
        return _record(rows[0]) if rows else None

    async def list(
        self,
        *,
        now: int,
        purpose: str | None,
        limit: int,
        order: Order,
        after: str | None,
    ) -> Page:
        """Return up to `limit` unexpired records in `(created_at, seq)` order.

        Raises:
            CursorNotFoundError: `after` names no stored record.

        """
        p = self.dialect.placeholder
        params: list[Any] = [now]
        conditions: list[LiteralString] = [f"(expires_at is null or expires_at > {p})"]
        if purpose is not None:
            conditions.append(f"purpose = {p}")
            params.append(purpose)
        if after is not None:
            found = await self._connection.fetch(
                f"select created_at, seq from demo_files where id = {p}", (after,)
            )
            if not found:
                raise CursorNotFoundError(after)
            comparison = ">" if order == "asc" else "<"
            conditions.append(f"(created_at, seq) {comparison} ({p}, {p})")
            params.extend((int(found[0][0]), int(found[0][1])))
        direction = "asc" if order == "asc" else "desc"
        params.append(limit + 1)
        rows = await self._connection.fetch(
            f"select {_COLUMNS} from demo_files where {' and '.join(conditions)} "
            f"order by created_at {direction}, seq {direction} limit {p}",
            params,
        )
        records = [_record(row) for row in rows[:limit]]
        return Page(records=records, has_more=len(rows) > limit)

    async def delete(self, file_id: str) -> FileRecord | None:
        """Delete a record; return it, or `None` when there was none."""
        p = self.dialect.placeholder
        rows = await self._connection.fetch(
            f"delete from demo_files where id = {p} returning {_COLUMNS}", (file_id,)
        )
        return _record(rows[0]) if rows else None

    async def delete_expired(self, now: int, limit: int) -> list[FileRecord]:
        """Delete up to `limit` records expired at `now`, soonest first; return them."""
        p = self.dialect.placeholder
        rows = await self._connection.fetch(
            f"""
            delete from demo_files where id in (
                select id from demo_files
                where expires_at is not null and expires_at <= {p}
                order by expires_at limit {p}
                {self.dialect.lock_expired}
            ) returning {_COLUMNS}
            """,
            (now, limit),
        )
        return [_record(row) for row in rows]


class PostgresMetadataStore(SqlMetadataStore):
    """Metadata in PostgreSQL through a psycopg 3 async connection pool.

    Args:
        url: A `postgresql://` connection URL.
        pool_size: Most connections the pool opens.

    """

    def __init__(self, url: str, *, pool_size: int = 5) -> None:
        super().__init__(POSTGRES, _PostgresConnection(url, pool_size))


class SqliteMetadataStore(SqlMetadataStore):
    """Metadata in one SQLite file, used from worker threads under a lock.

    One connection serves every request of the process (SQLite serialises
    writers anyway); WAL mode and a busy timeout let a second process share
    the file.

    Args:
        path: The database file (its directory is created), or `:memory:`.

    Attributes:
        path: The database file, as given.

    """

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(SQLITE, _SqliteConnection(path))
