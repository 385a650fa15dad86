"""The metadata store itself, on both backends: schema, order, expiry, errors."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator

import anyio
import psycopg
import pytest

from lgos_demo_files.metadata import (
    POSTGRES,
    SQLITE,
    CursorNotFoundError,
    FileRecord,
    Order,
    PostgresMetadataStore,
    SqliteMetadataStore,
    SqlMetadataStore,
    open_metadata,
)

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

NOW = 1_800_000_000


def _record(
    name: str,
    *,
    created_at: int = NOW,
    expires_at: int | None = None,
    purpose: str = "assistants",
) -> FileRecord:
    return FileRecord(
        id=f"file-{name}",
        filename=f"{name}.txt",
        purpose=purpose,
        bytes=len(name),
        content_type="text/plain",
        created_at=created_at,
        expires_at=expires_at,
    )


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[SqlMetadataStore]:
    opened = open_metadata(database_url)
    assert isinstance(opened, SqlMetadataStore)
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()


def _schema(database_url: str) -> tuple[list[str], set[str]]:
    """The table's columns in order and its index names, read past the store."""
    if database_url.startswith("postgresql://"):
        with psycopg.connect(database_url) as conn:
            columns = conn.execute(
                "select column_name from information_schema.columns "
                "where table_name = 'demo_files' order by ordinal_position"
            ).fetchall()
            indexes = conn.execute(
                "select indexname from pg_indexes where tablename = 'demo_files'"
            ).fetchall()
    else:
        with sqlite3.connect(database_url) as conn:
            columns = [
                (row[1],) for row in conn.execute("pragma table_info(demo_files)")
            ]
            indexes = [
                (row[1],) for row in conn.execute("pragma index_list(demo_files)")
            ]
    return [c[0] for c in columns], {i[0] for i in indexes}


async def test_open_creates_the_schema_once_and_data_survives_reopening(
    database_url: str,
) -> None:
    first = open_metadata(database_url)
    second = open_metadata(database_url)
    await first.open()
    await second.open()  # the table is already there: nothing fails
    try:
        await first.insert(_record("kept", expires_at=NOW + 60))
        assert await second.get("file-kept") == _record("kept", expires_at=NOW + 60)
    finally:
        await first.close()
        await second.close()

    columns, indexes = _schema(database_url)
    assert sorted(columns) == sorted(
        [
            "id",
            "seq",
            "filename",
            "purpose",
            "bytes",
            "content_type",
            "created_at",
            "expires_at",
            "tenant",
        ]
    )
    assert {"demo_files_order", "demo_files_expiry", "demo_files_tenant_order"} <= (
        indexes
    )

    reopened = open_metadata(database_url)
    await reopened.open()
    try:
        assert await reopened.get("file-kept") == _record("kept", expires_at=NOW + 60)
        assert await reopened.get("file-missing") is None
    finally:
        await reopened.close()


async def test_a_store_refuses_queries_unless_open(database_url: str) -> None:
    store = open_metadata(database_url)
    name = POSTGRES.name if isinstance(store, PostgresMetadataStore) else SQLITE.name
    with pytest.raises(RuntimeError, match=f"The {name} metadata store is not open"):
        await store.ping()
    await store.open()
    await store.ping()
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(RuntimeError, match="not open"):
        await store.get("file-any")


async def test_listing_follows_creation_then_insertion_order(
    store: SqlMetadataStore,
) -> None:
    # Inserted out of created_at order; b, c, d share one second.
    for record in (
        _record("c", created_at=NOW),
        _record("a", created_at=NOW - 1),
        _record("d", created_at=NOW, purpose="vision"),
        _record("gone", created_at=NOW - 5, expires_at=NOW),
        _record("e", created_at=NOW + 1, expires_at=NOW + 1),
        _record("b", created_at=NOW),
    ):
        await store.insert(record)

    async def ids(
        *,
        now: int = NOW,
        purpose: str | None = None,
        limit: int = 10,
        order: Order = "asc",
        after: str | None = None,
    ) -> tuple[list[str], bool]:
        page = await store.list(
            now=now, purpose=purpose, limit=limit, order=order, after=after
        )
        return [r.id.removeprefix("file-") for r in page.records], page.has_more

    assert await ids() == (["a", "c", "d", "b", "e"], False)
    assert await ids(order="desc") == (["e", "b", "d", "c", "a"], False)
    assert await ids(limit=2) == (["a", "c"], True)
    assert await ids(limit=2, after="file-c") == (["d", "b"], True)
    assert await ids(limit=3, after="file-d") == (["b", "e"], False)
    assert await ids(order="desc", after="file-d") == (["c", "a"], False)
    assert await ids(purpose="vision") == (["d"], False)
    assert await ids(purpose="vision", after="file-d") == ([], False)
    assert await ids(now=NOW + 1) == (["a", "c", "d", "b"], False)
    # An expired record still serves as a cursor.
    assert await ids(limit=1, after="file-gone") == (["a"], True)
    with pytest.raises(CursorNotFoundError):
        await ids(after="file-nowhere")


async def test_get_delete_and_duplicate_ids(store: SqlMetadataStore) -> None:
    expired = _record("old", expires_at=NOW - 1)
    await store.insert(expired)
    assert await store.get(expired.id) == expired  # expired or not
    with pytest.raises((psycopg.IntegrityError, sqlite3.IntegrityError)):
        await store.insert(_record("old"))
    assert await store.delete(expired.id) == expired
    assert await store.delete(expired.id) is None
    assert await store.get(expired.id) is None


async def test_delete_expired_takes_the_soonest_first_up_to_the_limit(
    store: SqlMetadataStore,
) -> None:
    await store.insert(_record("never"))
    await store.insert(_record("later", expires_at=NOW + 1))
    await store.insert(_record("third", expires_at=NOW))
    await store.insert(_record("first", expires_at=NOW - 20))
    await store.insert(_record("second", expires_at=NOW - 10))

    taken = await store.delete_expired(NOW, 2)
    assert sorted(taken, key=lambda r: r.id) == [
        _record("first", expires_at=NOW - 20),
        _record("second", expires_at=NOW - 10),
    ]
    assert [r.id for r in await store.delete_expired(NOW, 2)] == ["file-third"]
    assert await store.delete_expired(NOW, 2) == []
    page = await store.list(now=NOW, purpose=None, limit=10, order="asc", after=None)
    assert [r.id for r in page.records] == ["file-never", "file-later"]


async def test_postgres_sweeps_skip_rows_another_sweep_holds(
    pg_database_url: str,
) -> None:
    store = PostgresMetadataStore(pg_database_url, pool_size=2)
    await store.open()
    try:
        await store.insert(_record("held", expires_at=NOW - 2))
        await store.insert(_record("free", expires_at=NOW - 1))
        other = await psycopg.AsyncConnection.connect(pg_database_url)
        async with other, other.transaction():
            await other.execute(
                "select id from demo_files where id = 'file-held' for update"
            )
            with anyio.fail_after(10):  # without skip locked this would wait
                taken = await store.delete_expired(NOW, 10)
            assert [r.id for r in taken] == ["file-free"]
        taken = await store.delete_expired(NOW, 10)
        assert [r.id for r in taken] == ["file-held"]
    finally:
        await store.close()


async def test_sqlite_memory_database() -> None:
    store = open_metadata(":memory:")
    assert isinstance(store, SqliteMetadataStore) and store.path == ":memory:"
    await store.open()
    try:
        await store.insert(_record("m"))
        assert (await store.get("file-m")) == _record("m")
    finally:
        await store.close()
