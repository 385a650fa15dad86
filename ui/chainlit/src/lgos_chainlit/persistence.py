"""Chat history for the UI: Chainlit's SQLAlchemy data layer on SQLite or PostgreSQL.

Chainlit stores users, threads (conversations), steps (messages) and
feedback through :class:`~chainlit.data.sql_alchemy.SQLAlchemyDataLayer`,
but does not create its tables. :class:`LgosDataLayer` is that data layer
plus what the UI needs around it:

- :meth:`LgosDataLayer.create_schema` creates the tables
  (:mod:`lgos_chainlit.history_schema`), and adds columns a newer Chainlit
  writes, idempotently, for both dialects (the app runs it at start-up);
- on SQLite, list and dict parameters (thread tags) are stored as JSON
  text, and JSON text read back is decoded for both dialects, so the browser
  gets objects either way;
- :meth:`LgosDataLayer.put_thread_metadata` merges keys into a thread's
  metadata and raises when it cannot (the UI saves the conversation ledger
  and a pending pause there *before* asking the user, and must know);
- elements (the files a message shows) are not stored: the data layer has
  no blob storage, on purpose, and a resumed chat shows its files again from
  the conversation ledger (:mod:`lgos_chainlit.file_messages`). Chainlit's
  warnings about the missing storage client (one at start, one per shown
  file) are replaced by one INFO line saying so;
- the writes of one step land in the order Chainlit made them (see
  :meth:`LgosDataLayer.create_step`), so a reopened thread shows each step
  as it last looked, finished, not as it was first sent.

The database is ``DEMO_CHAINLIT_DATABASE_URL`` (``postgresql://...`` runs on
asyncpg), else SQLite at ``<data dir>/chainlit.sqlite3``. (The login's
secret is :mod:`lgos_chainlit.auth_secret`'s.)
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.step import StepDict
from chainlit.types import ThreadDict
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from lgos_chainlit.history_schema import (
    TABLES,
    add_column_statement,
    schema_statements,
)
from lgos_chainlit.settings import ChainlitSettings

__all__ = [
    "SQLITE_FILE",
    "TRANSIENT",
    "LgosDataLayer",
    "resolve_database_url",
]

logger = logging.getLogger(__name__)

SQLITE_FILE = "chainlit.sqlite3"
TRANSIENT = "lgos_transient"
"""A message whose ``metadata`` has this key set is shown, never saved: it
says how things stand now (say, which MCP tools are attached), and a
reopened thread shows it afresh instead of collecting one per opening."""

OWNER_TIMEOUT = 10.0
"""Seconds :meth:`LgosDataLayer.put_thread_metadata` waits for Chainlit to
create the thread with its owner."""

# Any constant works: it only serialises concurrent start-ups on PostgreSQL.
_SCHEMA_LOCK = 0x4C474F53


def resolve_database_url(settings: ChainlitSettings) -> str:
    """Return the SQLAlchemy async URL of the chat history database.

    ``postgres://`` and ``postgresql://`` URLs (and ``postgresql+psycopg``
    ones) run on asyncpg; a URL with an async driver is kept; no URL means
    SQLite at ``<data dir>/chainlit.sqlite3``.
    """
    raw = settings.database_url
    if not raw:
        path = (settings.data_dir / SQLITE_FILE).resolve()
        return f"sqlite+aiosqlite:///{path}"
    url = make_url(raw)
    backend = url.get_backend_name()
    if backend in ("postgres", "postgresql"):
        return url.set(drivername="postgresql+asyncpg").render_as_string(
            hide_password=False
        )
    if backend == "sqlite" and url.get_driver_name() != "aiosqlite":
        return url.set(drivername="sqlite+aiosqlite").render_as_string(
            hide_password=False
        )
    return raw


def _decoded(value: Any) -> Any:
    """Decode JSON text (SQLite, or asyncpg's JSONB); other values unchanged."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _json_object(value: Any) -> dict[str, Any]:
    decoded = _decoded(value)
    return dict(decoded) if isinstance(decoded, Mapping) else {}


class _StepWrites:
    """The queue of one step's pending writes (see ``create_step``)."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


NO_STORAGE_WARNING = "SQLAlchemyDataLayer storage client is not initialized"
"""The start of the warning Chainlit's data layer logs without a storage client."""

NO_STORAGE_NOTE = (
    "Chat history is kept; files a message shows are not stored by Chainlit: "
    "a resumed chat shows them again from its conversation"
)
"""The INFO line logged instead of Chainlit's storage-client warning."""


class _DropNoStorageWarning(logging.Filter):
    """Drops Chainlit's storage-client warning (see :data:`NO_STORAGE_WARNING`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(NO_STORAGE_WARNING)


class LgosDataLayer(SQLAlchemyDataLayer):
    """Chainlit's SQLAlchemy data layer, on SQLite or PostgreSQL (see module)."""

    def __init__(self, url: str) -> None:
        self._step_writes: dict[str, _StepWrites] = {}
        self.dialect = make_url(url).get_backend_name()
        connect_args: dict[str, Any] = {}
        if self.dialect == "sqlite":
            database = make_url(url).database
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            # Wait for a concurrent writer instead of failing at once.
            connect_args["timeout"] = 30
        chainlit_logger = logging.getLogger("chainlit")
        drop = _DropNoStorageWarning()
        chainlit_logger.addFilter(drop)
        try:
            super().__init__(conninfo=url, connect_args=connect_args)
        finally:
            chainlit_logger.removeFilter(drop)
        logger.info(NO_STORAGE_NOTE)

    async def create_element(self, element: Any) -> None:
        """Store nothing; return None.

        Shown files come back from the conversation ledger (see module), so
        Chainlit's per-file "no blob_storage_client" warning has no cause here.
        """

    async def create_schema(self) -> None:
        """Create the tables and add missing columns; safe to run every start."""
        async with self.engine.begin() as connection:
            if self.dialect == "postgresql":
                await connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK}
                )
            else:
                await connection.execute(text("PRAGMA journal_mode=WAL"))
            for statement in schema_statements(self.dialect):
                await connection.execute(text(statement))
            for table, columns in TABLES.items():
                existing = await self._columns(connection, table)
                for column in columns:
                    if column[0] in existing:
                        continue
                    logger.info("Adding column %s.%s", table, column[0])
                    await connection.execute(
                        text(add_column_statement(table, column, self.dialect))
                    )

    async def _columns(self, connection: Any, table: str) -> set[str]:
        if self.dialect == "postgresql":
            rows = await connection.execute(
                text(
                    "SELECT column_name FROM information_schema.columns "
                    "WHERE table_schema = current_schema() AND table_name = :table"
                ),
                {"table": table},
            )
            return {row[0] for row in rows}
        rows = await connection.execute(text(f'PRAGMA table_info("{table}")'))
        return {row[1] for row in rows}

    @asynccontextmanager
    async def _in_call_order(self, step_id: str) -> AsyncIterator[None]:
        """Hold the step's write slot; writes get it in the order they asked.

        Taking a free :class:`asyncio.Lock` does not suspend, and its waiters
        are served first in, first out: a write task takes its place in the
        queue as soon as it starts, before its first database round trip.
        """
        writes = self._step_writes.setdefault(step_id, _StepWrites())
        writes.users += 1
        try:
            async with writes.lock:
                yield
        finally:
            writes.users -= 1
            if not writes.users:
                del self._step_writes[step_id]

    async def create_step(self, step_dict: StepDict) -> None:
        """Insert or replace a step (Chainlit's upsert), in call order per step.

        Chainlit persists every ``send()`` and ``update()`` of a step or
        message in a task of its own (``asyncio.create_task``) and does not
        wait for it. Run concurrently, a step's first write (its "Running
        display_file" title, no output) could land after its last one (the
        finished "Showed chart.png" with the result) and replace it, so a
        reopened thread showed the step unfinished. Here the writes of one
        step run one at a time, in the order the tasks started, which is the
        order Chainlit created them; ``update_step`` and ``delete_step`` go
        through the same queue. A step marked :data:`TRANSIENT` is not saved.
        """
        if (step_dict.get("metadata") or {}).get(TRANSIENT):
            return  # shown, not saved (see TRANSIENT)
        async with self._in_call_order(str(step_dict.get("id"))):
            await super().create_step(step_dict)

    async def flush(self) -> None:
        """Wait until the step writes started so far have landed.

        Chainlit saves a message in a task it does not wait for, so a turn
        could end (its Stop button gone) while its answer is still being
        written, and a page reloaded at once would draw the thread without
        it. The write tasks created before this call register in their
        step's queue when they first run (one pass of the event loop);
        taking each queue's lock after them means they have finished. A
        write that failed was logged by Chainlit and is not raised here.
        """
        await asyncio.sleep(0)
        for writes in list(self._step_writes.values()):
            async with writes.lock:
                pass

    async def delete_step(self, step_id: str) -> None:
        """Delete a step after the writes of it that were made before."""
        async with self._in_call_order(step_id):
            await super().delete_step(step_id)

    async def execute_sql(
        self, query: str, parameters: dict
    ) -> list[dict[str, Any]] | int | None:
        """Run Chainlit's SQL; JSON-encode what the driver cannot bind.

        SQLite has no arrays or JSON types: lists and dicts are stored as
        JSON text. On PostgreSQL, lists bind to ``TEXT[]`` as they are and
        dicts (JSONB) go as JSON text.
        """
        encoded = {
            key: json.dumps(value)
            if isinstance(value, dict)
            or (isinstance(value, list) and self.dialect == "sqlite")
            else value
            for key, value in parameters.items()
        }
        return await super().execute_sql(query, encoded)

    async def get_all_user_threads(
        self, user_id: str | None = None, thread_id: str | None = None
    ) -> list[ThreadDict] | None:
        """Chainlit's threads, with JSON columns decoded to objects."""
        threads = await super().get_all_user_threads(
            user_id=user_id, thread_id=thread_id
        )
        for thread in threads or []:
            thread["metadata"] = _json_object(thread.get("metadata"))
            tags = _decoded(thread.get("tags"))
            thread["tags"] = tags if isinstance(tags, list) else None
            for step in thread["steps"]:
                step["metadata"] = _json_object(step.get("metadata"))
                generation = _decoded(step.get("generation"))
                step["generation"] = (
                    generation if isinstance(generation, dict) else None
                )
                step_tags = _decoded(step.get("tags"))
                step["tags"] = step_tags if isinstance(step_tags, list) else None
        return threads

    async def thread_metadata(self, thread_id: str) -> dict[str, Any] | None:
        """Return a thread's metadata as an object (``None``: no such thread)."""
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    text('SELECT "metadata" FROM threads WHERE "id" = :id'),
                    {"id": thread_id},
                )
            ).first()
        return None if row is None else _json_object(row[0])

    async def put_thread_metadata(
        self,
        thread_id: str,
        values: Mapping[str, Any],
        *,
        owner_timeout: float = OWNER_TIMEOUT,
    ) -> None:
        """Merge ``values`` into a thread's metadata (other keys are kept).

        Chainlit creates the thread, with its owner, in a background task
        when the first message arrives; its write replaces the metadata it
        read a moment before. So this waits (up to ``owner_timeout``
        seconds) until the thread has its owner, then merges. A thread that
        still does not exist is created without an owner.

        Raises:
            sqlalchemy.exc.SQLAlchemyError: The database refused the write.

        """
        deadline = asyncio.get_running_loop().time() + owner_timeout
        while True:
            owned = await self._thread_owner(thread_id)
            if owned or asyncio.get_running_loop().time() >= deadline:
                break
            await asyncio.sleep(0.05)
        for attempt in range(2):
            try:
                await self._merge_metadata(thread_id, values)
                return
            except IntegrityError:
                # Created concurrently: merge into that row instead.
                if attempt:
                    raise

    async def _thread_owner(self, thread_id: str) -> bool:
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    text('SELECT "userId" FROM threads WHERE "id" = :id'),
                    {"id": thread_id},
                )
            ).first()
        return row is not None and row[0] is not None

    async def _merge_metadata(self, thread_id: str, values: Mapping[str, Any]) -> None:
        lock = " FOR UPDATE" if self.dialect == "postgresql" else ""
        async with self.engine.begin() as connection:
            row = (
                await connection.execute(
                    text(f'SELECT "metadata" FROM threads WHERE "id" = :id{lock}'),
                    {"id": thread_id},
                )
            ).first()
            if row is not None:
                merged = {**_json_object(row[0]), **values}
                await connection.execute(
                    text('UPDATE threads SET "metadata" = :metadata WHERE "id" = :id'),
                    {"id": thread_id, "metadata": json.dumps(merged)},
                )
                return
            await connection.execute(
                text(
                    'INSERT INTO threads ("id", "createdAt", "metadata") '
                    "VALUES (:id, :created, :metadata)"
                ),
                {
                    "id": thread_id,
                    "created": await self.get_current_timestamp(),
                    "metadata": json.dumps(dict(values)),
                },
            )
