"""Chat history on Chainlit's real SQLAlchemy data layer: SQLite and PostgreSQL.

No mocks of the data layer: :class:`LgosDataLayer` creates its schema in a
temporary SQLite file (and in a fresh PostgreSQL database when one is
available, as ``just test`` provides), then Chainlit's own methods write and
read users, threads and steps, and the UI's saved state (ledger, settings,
a pending pause) survives a round trip through the thread's metadata.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from chainlit.types import Pagination, ThreadFilter
from chainlit.user import User

from lgos_chainlit.conversation import Conversation
from lgos_chainlit.discovery import describe_model
from lgos_chainlit.interrupts import PendingPause
from lgos_chainlit.persistence import (
    AUTH_SECRET_ENV,
    TABLES,
    LgosDataLayer,
    ensure_auth_secret,
    resolve_database_url,
    schema_statements,
)
from lgos_chainlit.session import WEB_SEARCH_SETTING, ChatSession
from lgos_chainlit.settings import ChainlitSettings
from tests.pg import ADMIN_URI

pytestmark = pytest.mark.anyio


def settings(tmp_path: Path, **values: Any) -> ChainlitSettings:
    return ChainlitSettings(data_dir=tmp_path, **values)


def test_database_url(tmp_path: Path) -> None:
    assert resolve_database_url(settings(tmp_path)) == (
        f"sqlite+aiosqlite:///{tmp_path.resolve()}/chainlit.sqlite3"
    )
    for raw in (
        "postgres://u:p@db:5432/chat",
        "postgresql://u:p@db:5432/chat",
        "postgresql+psycopg://u:p@db:5432/chat",
    ):
        assert resolve_database_url(settings(tmp_path, database_url=raw)) == (
            "postgresql+asyncpg://u:p@db:5432/chat"
        )
    kept = "postgresql+asyncpg://u:p@db/chat"
    assert resolve_database_url(settings(tmp_path, database_url=kept)) == kept
    assert resolve_database_url(
        settings(tmp_path, database_url="sqlite:////srv/chat.db")
    ) == ("sqlite+aiosqlite:////srv/chat.db")


def test_schema_covers_every_key_chainlit_writes() -> None:
    from chainlit.element import ElementDict
    from chainlit.step import StepDict

    step_columns = {c[0] for c in TABLES["steps"]}
    # Chainlit inserts every non-empty key of a step dict as a column.
    assert set(StepDict.__annotations__) - {"icon", "feedback"} <= step_columns
    assert set(ElementDict.__annotations__) - {"path"} <= {
        c[0] for c in TABLES["elements"]
    }
    for dialect in ("postgresql", "sqlite"):
        statements = schema_statements(dialect)
        assert len(statements) == len(TABLES)
        assert all(s.startswith("CREATE TABLE IF NOT EXISTS") for s in statements)
    assert "JSONB" in "".join(schema_statements("postgresql"))
    assert "JSONB" not in "".join(schema_statements("sqlite"))
    with pytest.raises(ValueError):
        schema_statements("mysql")


def _postgres_available() -> bool:
    try:
        import psycopg

        psycopg.connect(ADMIN_URI, connect_timeout=2).close()
    except Exception:
        return False
    return True


@pytest.fixture(params=["sqlite", "postgresql"])
async def layer(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LgosDataLayer]:
    if request.param == "sqlite":
        url = resolve_database_url(settings(tmp_path / "data"))
    else:
        if not _postgres_available():
            pytest.fail("PostgreSQL is not running: run scripts/ensure-postgres.sh")
        uri = request.getfixturevalue("postgres_uri")
        url = resolve_database_url(settings(tmp_path, database_url=uri))
    data_layer = LgosDataLayer(url)
    try:
        await data_layer.create_schema()
        await data_layer.create_schema()  # idempotent
        yield data_layer
    finally:
        await data_layer.close()


async def test_threads_steps_and_state_round_trip(layer: LgosDataLayer) -> None:
    user = await layer.create_user(User(identifier="demo", metadata={"a": 1}))
    assert user is not None and user.metadata == {"a": 1}
    thread_id = str(uuid.uuid4())

    # What Chainlit does on the first message: thread with owner and tags.
    await layer.update_thread(
        thread_id, name="Refund order 42", user_id=user.id, tags=["approval"]
    )
    await layer.put_thread_metadata(thread_id, {"chat_profile": "approval"})
    step_id = str(uuid.uuid4())
    await layer.create_step.__wrapped__(  # type: ignore[attr-defined]
        layer,
        {
            "id": step_id,
            "threadId": thread_id,
            "name": "demo",
            "type": "user_message",
            "output": "Refund order 42",
            "streaming": False,
            "metadata": {"icon": "x"},
            "tags": ["t"],
            "createdAt": "2026-01-01T00:00:00Z",
            "defaultOpen": False,
            "autoCollapse": None,
            "showInput": False,
        },
    )

    conversation = Conversation(
        model="approval",
        items=[{"role": "user", "content": "Refund order 42"}],
        pending=PendingPause(
            response_id="resp_lg_x",
            calls=[
                {
                    "type": "function_call",
                    "call_id": "call_1",
                    "name": "lgos_interrupt",
                    "arguments": json.dumps({"question": "Approve? “é”"}),
                }
            ],
            metadata={"lgos_settings": '{"parallel_review":true}'},
            tools=[{"type": "web_search"}],
        ),
    )
    state = {"version": 1, "conversation": conversation.to_json()}
    await layer.put_thread_metadata(thread_id, {"lgos": state})

    thread = await layer.get_thread(thread_id)
    assert thread is not None
    assert thread["userIdentifier"] == "demo"
    assert thread["tags"] == ["approval"]
    metadata = thread["metadata"]
    assert isinstance(metadata, dict)
    # Merged, not replaced; and the state comes back unchanged.
    assert metadata["chat_profile"] == "approval"
    assert metadata["lgos"] == state
    restored = Conversation.from_json(
        metadata["lgos"]["conversation"], model="approval"
    )
    assert restored == conversation
    [step] = thread["steps"]
    assert step.get("output") == "Refund order 42"
    assert step.get("metadata") == {"icon": "x"}
    assert step.get("tags") == ["t"]

    listed = await layer.list_threads(
        Pagination(first=10), ThreadFilter(userId=user.id)
    )
    assert [t["id"] for t in listed.data] == [thread_id]
    assert await layer.get_thread_author(thread_id) == "demo"

    await layer.delete_thread(thread_id)
    assert await layer.get_thread(thread_id) is None


async def test_state_waits_for_chainlit_to_create_the_thread(
    layer: LgosDataLayer,
) -> None:
    user = await layer.create_user(User(identifier="demo"))
    assert user is not None
    thread_id = str(uuid.uuid4())

    async def chainlit_creates_thread_later() -> None:
        await asyncio.sleep(0.3)
        await layer.update_thread(thread_id, name="late", user_id=user.id)

    creator = asyncio.create_task(chainlit_creates_thread_later())
    await layer.put_thread_metadata(thread_id, {"lgos": {"saved": True}})
    await creator
    # Chainlit's write (read-then-replace) came first: nothing was lost.
    await layer.update_thread(thread_id, name="renamed")
    thread = await layer.get_thread(thread_id)
    assert thread is not None
    assert thread["name"] == "renamed"
    assert thread["metadata"] == {"lgos": {"saved": True}}

    # Without Chainlit the thread is created ownerless after the timeout.
    orphan = str(uuid.uuid4())
    await layer.put_thread_metadata(orphan, {"lgos": 1}, owner_timeout=0.1)
    assert await layer.thread_metadata(orphan) == {"lgos": 1}
    assert await layer.thread_metadata(str(uuid.uuid4())) is None


async def test_missing_columns_are_added(tmp_path: Path) -> None:
    url = resolve_database_url(settings(tmp_path))
    layer = LgosDataLayer(url)
    try:
        async with layer.engine.begin() as connection:
            from sqlalchemy import text

            # A schema from an older Chainlit: steps without newer columns.
            await connection.execute(
                text(
                    'CREATE TABLE steps ("id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, '
                    '"type" TEXT NOT NULL, "threadId" TEXT NOT NULL, '
                    '"streaming" BOOLEAN NOT NULL)'
                )
            )
        await layer.create_schema()
        async with layer.engine.connect() as connection:
            columns = await layer._columns(connection, "steps")
        assert {c[0] for c in TABLES["steps"]} <= columns
    finally:
        await layer.close()


def test_auth_secret_is_generated_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(AUTH_SECRET_ENV, raising=False)
    secret = ensure_auth_secret(tmp_path / "data")
    path = tmp_path / "data" / "chainlit-auth-secret"
    assert len(secret) >= 32
    assert os.environ[AUTH_SECRET_ENV] == secret
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    monkeypatch.delenv(AUTH_SECRET_ENV)
    assert ensure_auth_secret(tmp_path / "data") == secret  # read back
    monkeypatch.setenv(AUTH_SECRET_ENV, "from-env")
    assert ensure_auth_secret(tmp_path / "other") == "from-env"
    assert not (tmp_path / "other").exists()


def _model(server_tools: list[str]) -> dict[str, Any]:
    return {
        "id": "deep-research",
        "lgos": {
            "schema_version": 1,
            "description": "Researches. Answers come from the offline demo model.",
            "features": ["interrupts"],
            "server_tools": server_tools,
            "client_settings": {
                "schema_version": 1,
                "json_schema": {
                    "type": "object",
                    "properties": {"review_plan": {"type": "boolean"}},
                },
                "defaults": {"review_plan": True},
            },
        },
    }


def test_session_state_round_trip_and_web_search() -> None:
    session = ChatSession.from_model(_model(["web_search", "lgos_package_version"]))
    assert describe_model(_model(["web_search", ""])).server_tools == ("web_search",)
    assert session.offers_web_search and session.web_search
    assert session.server_tools == [{"type": "web_search"}]
    ids = [widget.id for widget in session.widgets]
    assert ids == ["review_plan", WEB_SEARCH_SETTING]
    assert session.welcome.startswith("**deep-research** — Researches.")

    session.update_settings({"review_plan": False, WEB_SEARCH_SETTING: False})
    assert session.server_tools == []
    assert session.request_metadata() == {"lgos_settings": '{"review_plan":false}'}
    session.conversation.items.append({"role": "user", "content": "hi"})
    session.shown_question = {"call_id": "c", "message_id": "m"}
    state = json.loads(json.dumps(session.to_state()))

    fresh = ChatSession.from_model(_model(["web_search"]))
    assert fresh.restore(state)
    assert fresh.values == {"review_plan": False}
    assert fresh.web_search is False
    assert fresh.conversation.items == [{"role": "user", "content": "hi"}]
    # Without a pending pause there is no question on screen to restore.
    assert fresh.shown_question is None
    # The restored values are the widgets' initial values.
    assert [w.initial for w in fresh.widgets] == [False, False]  # type: ignore[attr-defined]
    assert not fresh.restore({**state, "model": "chat"})
    assert not fresh.restore(None)

    plain = ChatSession.from_model(_model([]))
    assert not plain.offers_web_search and plain.server_tools == []
    assert [w.id for w in plain.widgets] == ["review_plan"]
