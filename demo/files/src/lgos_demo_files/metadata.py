"""Durable file metadata: PostgreSQL for production, SQLite otherwise.

Both stores keep one table, `demo_files`, created idempotently when the store
opens. Rows are ordered by `(created_at, seq)`, where `seq` increases with
every insert, so files created in the same second still list in upload order
and a cursor (`after`) always denotes one position.
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
    "CursorNotFoundError",
    "FileRecord",
    "MetadataStore",
    "Order",
    "Page",
    "PostgresMetadataStore",
    "SqliteMetadataStore",
    "open_metadata",
]

Order = Literal["asc", "desc"]

_COLUMNS = "id, filename, purpose, bytes, content_type, created_at, expires_at"

# Serialises concurrent `create table` from several processes (pg_advisory
# locks take a bigint; this one spells "lgosfile").
_DDL_LOCK = 0x6C676F7366696C65


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


def _list_sql(
    placeholder: LiteralString, *, purpose: bool, after: bool, order: Order
) -> LiteralString:
    """Build the listing query; parameters: now, [purpose], [cursor], limit."""
    conditions: list[LiteralString] = [
        f"(expires_at is null or expires_at > {placeholder})"
    ]
    if purpose:
        conditions.append(f"purpose = {placeholder}")
    if after:
        comparison = ">" if order == "asc" else "<"
        conditions.append(
            f"(created_at, seq) {comparison} ({placeholder}, {placeholder})"
        )
    direction = "asc" if order == "asc" else "desc"
    return (
        f"select {_COLUMNS} from demo_files where {' and '.join(conditions)} "
        f"order by created_at {direction}, seq {direction} limit {placeholder}"
    )


def _list_params(
    now: int, purpose: str | None, cursor: tuple[int, int] | None, limit: int
) -> list[Any]:
    params: list[Any] = [now]
    if purpose is not None:
        params.append(purpose)
    if cursor is not None:
        params.extend(cursor)
    params.append(limit + 1)
    return params


def _page(rows: Sequence[Sequence[Any]], limit: int) -> Page:
    records = [_record(row) for row in rows[:limit]]
    return Page(records=records, has_more=len(rows) > limit)


class PostgresMetadataStore:
    """Metadata in PostgreSQL through a psycopg 3 async connection pool."""

    def __init__(self, url: str, *, pool_size: int = 5) -> None:
        self._url = url
        self._pool_size = pool_size
        self._pool_or_none: AsyncConnectionPool[Any] | None = None

    @property
    def _pool(self) -> AsyncConnectionPool[Any]:
        if self._pool_or_none is None:
            msg = "The PostgreSQL metadata store is not open."
            raise RuntimeError(msg)
        return self._pool_or_none

    async def open(self) -> None:  # noqa: D102
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
                await conn.execute(
                    """
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
                    """
                )
                await conn.execute(
                    "create index if not exists demo_files_order "
                    "on demo_files (created_at, seq)"
                )
                await conn.execute(
                    "create index if not exists demo_files_expiry "
                    "on demo_files (expires_at) where expires_at is not null"
                )
        except BaseException:
            await pool.close()
            raise
        self._pool_or_none = pool

    async def close(self) -> None:  # noqa: D102
        pool, self._pool_or_none = self._pool_or_none, None
        if pool is not None:
            await pool.close()

    async def _fetch(
        self, sql: LiteralString, params: Sequence[Any]
    ) -> list[tuple[Any, ...]]:
        async with self._pool.connection() as conn:
            cursor = conn.cursor(row_factory=tuple_row)
            async with cursor:
                await cursor.execute(sql, params)
                if cursor.description is None:
                    return []
                return await cursor.fetchall()

    async def ping(self) -> None:  # noqa: D102
        await self._fetch("select 1", ())

    async def insert(self, record: FileRecord) -> None:  # noqa: D102
        await self._fetch(
            f"insert into demo_files ({_COLUMNS}) values (%s, %s, %s, %s, %s, %s, %s)",
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

    async def get(self, file_id: str) -> FileRecord | None:  # noqa: D102
        rows = await self._fetch(
            f"select {_COLUMNS} from demo_files where id = %s", (file_id,)
        )
        return _record(rows[0]) if rows else None

    async def list(  # noqa: D102
        self,
        *,
        now: int,
        purpose: str | None,
        limit: int,
        order: Order,
        after: str | None,
    ) -> Page:
        cursor: tuple[int, int] | None = None
        if after is not None:
            found = await self._fetch(
                "select created_at, seq from demo_files where id = %s", (after,)
            )
            if not found:
                raise CursorNotFoundError(after)
            cursor = (int(found[0][0]), int(found[0][1]))
        sql = _list_sql(
            "%s", purpose=purpose is not None, after=cursor is not None, order=order
        )
        rows = await self._fetch(sql, _list_params(now, purpose, cursor, limit))
        return _page(rows, limit)

    async def delete(self, file_id: str) -> FileRecord | None:  # noqa: D102
        rows = await self._fetch(
            f"delete from demo_files where id = %s returning {_COLUMNS}", (file_id,)
        )
        return _record(rows[0]) if rows else None

    async def delete_expired(self, now: int, limit: int) -> list[FileRecord]:  # noqa: D102
        rows = await self._fetch(
            f"""
            delete from demo_files where id in (
                select id from demo_files
                where expires_at is not null and expires_at <= %s
                order by expires_at limit %s
                for update skip locked
            ) returning {_COLUMNS}
            """,
            (now, limit),
        )
        return [_record(row) for row in rows]


class SqliteMetadataStore:
    """Metadata in one SQLite file, used from worker threads under a lock.

    One connection serves every request of the process (SQLite serialises
    writers anyway); WAL mode and a busy timeout let a second process share
    the file.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    async def open(self) -> None:  # noqa: D102
        await asyncio.to_thread(self._open)

    def _open(self) -> None:
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
            conn.execute(
                """
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
                """
            )
            conn.execute(
                "create index if not exists demo_files_order "
                "on demo_files (created_at, seq)"
            )
            conn.execute(
                "create index if not exists demo_files_expiry "
                "on demo_files (expires_at) where expires_at is not null"
            )
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    async def close(self) -> None:  # noqa: D102
        conn, self._conn = self._conn, None
        if conn is not None:
            await asyncio.to_thread(self._close, conn)

    def _close(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            conn.close()

    async def _run(self, sql: LiteralString, params: Sequence[Any]) -> list[Any]:
        return await asyncio.to_thread(self._run_sync, sql, params)

    def _run_sync(self, sql: LiteralString, params: Sequence[Any]) -> list[Any]:
        conn = self._conn
        if conn is None:
            msg = "The SQLite metadata store is not open."
            raise RuntimeError(msg)
        with self._lock:
            return conn.execute(sql, tuple(params)).fetchall()

    async def ping(self) -> None:  # noqa: D102
        await self._run("select 1", ())

    async def insert(self, record: FileRecord) -> None:  # noqa: D102
        await self._run(
            f"insert into demo_files ({_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?)",
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

    async def get(self, file_id: str) -> FileRecord | None:  # noqa: D102
        rows = await self._run(
            f"select {_COLUMNS} from demo_files where id = ?", (file_id,)
        )
        return _record(rows[0]) if rows else None

    async def list(  # noqa: D102
        self,
        *,
        now: int,
        purpose: str | None,
        limit: int,
        order: Order,
        after: str | None,
    ) -> Page:
        cursor: tuple[int, int] | None = None
        if after is not None:
            found = await self._run(
                "select created_at, seq from demo_files where id = ?", (after,)
            )
            if not found:
                raise CursorNotFoundError(after)
            cursor = (int(found[0][0]), int(found[0][1]))
        sql = _list_sql(
            "?", purpose=purpose is not None, after=cursor is not None, order=order
        )
        rows = await self._run(sql, _list_params(now, purpose, cursor, limit))
        return _page(rows, limit)

    async def delete(self, file_id: str) -> FileRecord | None:  # noqa: D102
        rows = await self._run(
            f"delete from demo_files where id = ? returning {_COLUMNS}", (file_id,)
        )
        return _record(rows[0]) if rows else None

    async def delete_expired(self, now: int, limit: int) -> list[FileRecord]:  # noqa: D102
        rows = await self._run(
            f"""
            delete from demo_files where id in (
                select id from demo_files
                where expires_at is not null and expires_at <= ?
                order by expires_at limit ?
            ) returning {_COLUMNS}
            """,
            (now, limit),
        )
        return [_record(row) for row in rows]
