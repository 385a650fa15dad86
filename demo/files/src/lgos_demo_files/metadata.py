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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, LiteralString, Protocol
from urllib.parse import urlsplit

from lgos_demo_files.databases import (
    POSTGRES,
    SQLITE,
    Connection,
    Dialect,
    PostgresConnection,
    SqliteConnection,
)

__all__ = [
    "DEFAULT_TENANT",
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

_COLUMNS = "id, filename, purpose, bytes, content_type, created_at, expires_at, tenant"

DEFAULT_TENANT = "default"
"""The tenant of the service key, and of every file stored before tenants existed."""


@dataclass(frozen=True, slots=True)
class FileRecord:
    """One stored file's metadata.

    `expires_at` is `None` when the file never expires; `tenant` is the
    tenant (project) that uploaded it, the only one that sees it.
    """

    id: str
    filename: str
    purpose: str
    bytes: int
    content_type: str
    created_at: int
    expires_at: int | None
    tenant: str = DEFAULT_TENANT

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

    async def get(
        self, file_id: str, *, tenant: str | None = None
    ) -> FileRecord | None:
        """Return the record with this ID, expired or not (of `tenant` if given)."""
        ...

    async def list(
        self,
        *,
        now: int,
        purpose: str | None,
        limit: int,
        order: Order,
        after: str | None,
        tenant: str | None = None,
    ) -> Page:
        """Return unexpired records in `(created_at, seq)` order after a cursor."""
        ...

    async def delete(
        self, file_id: str, *, tenant: str | None = None
    ) -> FileRecord | None:
        """Delete a record (of `tenant` if given); return it, or `None`."""
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
        tenant=row[7],
    )


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
        markers: list[LiteralString] = [self.dialect.placeholder] * 8
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
                record.tenant,
            ),
        )

    async def get(
        self, file_id: str, *, tenant: str | None = None
    ) -> FileRecord | None:
        """Return the record with this ID, expired or not.

        Args:
            file_id: The file's ID.
            tenant: Only a record of this tenant is returned; None for any.

        Returns:
            The record, or `None` when there is none (of `tenant`).

        """
        where, params = self._by_id(file_id, tenant)
        rows = await self._connection.fetch(
            f"select {_COLUMNS} from demo_files where {where}", params
        )
        return _record(rows[0]) if rows else None

    def _by_id(
        self, file_id: str, tenant: str | None
    ) -> tuple[LiteralString, list[Any]]:
        p = self.dialect.placeholder
        if tenant is None:
            return f"id = {p}", [file_id]
        return f"id = {p} and tenant = {p}", [file_id, tenant]

    async def list(
        self,
        *,
        now: int,
        purpose: str | None,
        limit: int,
        order: Order,
        after: str | None,
        tenant: str | None = None,
    ) -> Page:
        """Return up to `limit` unexpired records in `(created_at, seq)` order.

        Args:
            now: The current Unix time (records expired by then are left out).
            purpose: Only records of this purpose; None for all.
            limit: The most records in the page.
            order: `asc` or `desc` by creation.
            after: The ID of the record the page starts after, or None.
            tenant: Only records of this tenant (the cursor too); None for all.

        Raises:
            CursorNotFoundError: `after` names no stored record (of `tenant`).

        """
        p = self.dialect.placeholder
        params: list[Any] = [now]
        conditions: list[LiteralString] = [f"(expires_at is null or expires_at > {p})"]
        if tenant is not None:
            conditions.append(f"tenant = {p}")
            params.append(tenant)
        if purpose is not None:
            conditions.append(f"purpose = {p}")
            params.append(purpose)
        if after is not None:
            where, cursor = self._by_id(after, tenant)
            found = await self._connection.fetch(
                f"select created_at, seq from demo_files where {where}", cursor
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

    async def delete(
        self, file_id: str, *, tenant: str | None = None
    ) -> FileRecord | None:
        """Delete a record; return it, or `None` when there was none.

        Args:
            file_id: The file's ID.
            tenant: Only a record of this tenant is deleted; None for any.

        """
        where, params = self._by_id(file_id, tenant)
        rows = await self._connection.fetch(
            f"delete from demo_files where {where} returning {_COLUMNS}", params
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
        super().__init__(POSTGRES, PostgresConnection(url, pool_size))


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
        super().__init__(SQLITE, SqliteConnection(path))
