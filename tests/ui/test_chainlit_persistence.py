"""Chat history on Chainlit's real SQLAlchemy data layer: SQLite and PostgreSQL.

No mocks of the data layer: :class:`LgosDataLayer` creates its schema in a
temporary SQLite file (and in a fresh PostgreSQL database when one is
available, as ``just test`` provides), then Chainlit's own methods write and
read users, threads and steps, and the UI's saved state (ledger, settings,
a pending pause) survives a round trip through the thread's metadata.

Steps are written the way a chat writes them: Chainlit's ``Step`` and
``Message`` (and the UI's :class:`ChainlitTurnView`) inside a Chainlit
context, each ``send()``/``update()`` persisted by a task Chainlit does not
wait for; a reopened thread must show each step as the page last showed it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import uuid
from collections.abc import AsyncIterator, Awaitable, Mapping
from pathlib import Path
from typing import Any

import anyio
import chainlit as cl
import chainlit.data
import openai
import pytest
from chainlit.context import init_http_context
from chainlit.step import StepDict
from chainlit.types import Pagination, ThreadFilter
from chainlit.user import User
from chainlit.utils import utc_now

from lgos_chainlit.auth_secret import AUTH_SECRET_ENV, ensure_auth_secret
from lgos_chainlit.chat_state import wait_for_saved_messages
from lgos_chainlit.file_messages import DISPLAY_CALL_KEY
from lgos_chainlit.history_schema import TABLES, schema_statements
from lgos_chainlit.ledger import Conversation
from lgos_chainlit.persistence import (
    NO_STORAGE_NOTE,
    TRANSIENT,
    LgosDataLayer,
    resolve_database_url,
)
from lgos_chainlit.rendering import render_function_step
from lgos_chainlit.session import WEB_SEARCH_SETTING, ChatSession
from lgos_chainlit.settings import ChainlitSettings
from lgos_chainlit.view import ChainlitTurnView
from lgos_client.display_file import DISPLAY_FILE_OK
from lgos_client.extension import describe_model
from lgos_client.functions import LOCAL_FUNCTIONS, FunctionCall, execute_call
from lgos_client.interrupts import PendingPause
from tests.pg import ADMIN_URI
from tests.ui.chainlit_context import in_chainlit
from tests.ui.files_app import PNG, display_call

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


async def test_no_storage_client_is_one_info_line_not_warnings(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Shown files come back from the ledger, not from Chainlit's element
    storage, which the demo leaves off on purpose: Chainlit's two warnings
    about it (at start, and for each shown file) would alarm for nothing."""
    caplog.set_level(logging.INFO)
    layer = LgosDataLayer(resolve_database_url(settings(tmp_path)))
    init_http_context()
    image = cl.Image(name="chart.png", content=PNG, for_id=str(uuid.uuid4()))
    assert await layer.create_element(image) is None
    await layer.engine.dispose()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []
    infos = [
        r.getMessage() for r in caplog.records if r.name == "lgos_chainlit.persistence"
    ]
    assert infos == [NO_STORAGE_NOTE]
    # The filter is gone afterwards: Chainlit's other warnings still show.
    assert logging.getLogger("chainlit").filters == []


def _postgres_available() -> bool:
    try:
        import psycopg

        psycopg.connect(ADMIN_URI, connect_timeout=2).close()
    except Exception:
        return False
    return True


@pytest.fixture(
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)]
)
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


class SlowFirstWrites:
    """The data layer as Chainlit uses it, with each step's first write slow.

    The first ``INSERT`` of every step waits ``delay`` seconds before it
    reaches the database (a database busy for a moment), so it would land
    after the writes Chainlit makes later. :meth:`settled` waits until every
    step write Chainlit started has finished.
    """

    def __init__(
        self, layer: LgosDataLayer, monkeypatch: pytest.MonkeyPatch, delay: float
    ) -> None:
        self.pending = 0
        self.idle = asyncio.Event()
        self.first_seen: set[str] = set()
        create_step, delete_step = layer.create_step, layer.delete_step
        execute_sql = layer.execute_sql

        async def counted(write: Awaitable[None]) -> None:
            self.pending += 1
            self.idle.clear()
            try:
                await write
            finally:
                self.pending -= 1
                if not self.pending:
                    self.idle.set()

        async def counted_create(step_dict: StepDict) -> None:
            await counted(create_step(step_dict))

        async def counted_delete(step_id: str) -> None:
            await counted(delete_step(step_id))

        async def slow_sql(query: str, parameters: dict) -> Any:
            step_id = str(parameters.get("id"))
            if "INSERT INTO steps" in query and step_id not in self.first_seen:
                self.first_seen.add(step_id)
                await asyncio.sleep(delay)
            return await execute_sql(query, parameters)

        monkeypatch.setattr(layer, "create_step", counted_create)
        monkeypatch.setattr(layer, "delete_step", counted_delete)
        monkeypatch.setattr(layer, "execute_sql", slow_sql)
        monkeypatch.setattr(chainlit.data, "_data_layer", layer)
        monkeypatch.setattr(chainlit.data, "_data_layer_initialized", True)

    async def settled(self) -> None:
        """Wait for the writes Chainlit's fire-and-forget tasks make."""
        await asyncio.sleep(0.05)  # the tasks just created start (and count)
        if self.pending:
            with anyio.fail_after(30):
                await self.idle.wait()


def _as_reopened(step: Mapping[str, Any]) -> dict[str, Any]:
    """What a reopened thread draws a step from (booleans as the page reads them)."""
    return {
        "name": step.get("name"),
        "type": step.get("type"),
        "parentId": step.get("parentId"),
        "output": step.get("output"),
        "start": step.get("start"),
        "end": step.get("end"),
        "isError": bool(step.get("isError")),
        "metadata": step.get("metadata") or {},
    }


async def _reopened_steps(
    layer: LgosDataLayer, thread_id: str
) -> dict[str, dict[str, Any]]:
    thread = await layer.get_thread(thread_id)
    assert thread is not None
    return {str(step.get("id")): dict(step) for step in thread["steps"]}


async def test_steps_reopen_as_last_shown(
    layer: LgosDataLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chainlit's unawaited writes of one step land in the order it made them."""
    writes = SlowFirstWrites(layer, monkeypatch, delay=0.3)
    thread_id = str(uuid.uuid4())

    async def chat() -> tuple[str, str]:
        step = cl.Step(name="Running roll_dice", type="tool", icon="wrench")
        step.start = utc_now()
        await step.send()
        step.output = "rolling"
        await step.update()
        step.name, step.output, step.end = "Ran roll_dice", "4", utc_now()
        await step.update()
        gone = cl.Step(name="Outlining", type="run")
        await gone.send()
        await gone.remove()
        return step.id, gone.id

    (step_id, gone_id), shown = await in_chainlit(thread_id, chat)
    await writes.settled()

    steps = await _reopened_steps(layer, thread_id)
    assert gone_id not in steps
    assert list(steps) == list(shown) == [step_id]
    assert shown[step_id]["name"] == "Ran roll_dice"
    assert _as_reopened(steps[step_id]) == _as_reopened(shown[step_id])


async def test_flush_waits_for_the_writes_chainlit_started(
    layer: LgosDataLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn ends with its messages in the database (``LgosDataLayer.flush``,
    awaited by ``chat_state.wait_for_saved_messages``): a page reloaded at once
    draws the answer, even when its first write is slow."""
    SlowFirstWrites(layer, monkeypatch, delay=0.3)
    thread_id = str(uuid.uuid4())

    async def answer() -> str:
        reply = cl.Message(content="")
        await reply.stream_token("The whole answer")
        await reply.send()
        before = await layer.get_thread(thread_id)
        saved = {str(step.get("id")) for step in (before or {}).get("steps", [])}
        assert reply.id not in saved  # the write is still on its way
        await wait_for_saved_messages()
        return reply.id

    reply_id, _ = await in_chainlit(thread_id, answer)
    steps = await _reopened_steps(layer, thread_id)
    assert steps[reply_id]["output"] == "The whole answer"


@pytest.mark.parametrize("function", ["display_file", "roll_dice"])
async def test_function_steps_reopen_finished(
    layer: LgosDataLayer,
    files: openai.AsyncOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    function: str,
) -> None:
    """A reopened thread shows a function step finished, as the live page did.

    The newcomer's report: a ``display_file`` step came back as "Running
    display_file" because its first write landed after its last.
    """
    writes = SlowFirstWrites(layer, monkeypatch, delay=0.3)
    thread_id = str(uuid.uuid4())
    if function == "display_file":
        created = await files.files.create(
            file=("chart.png", PNG, "image/png"), purpose="user_data"
        )
        call = display_call(created.id)
    else:
        call = FunctionCall(call_id="call_1", name="roll_dice", arguments="{}")

    async def run() -> tuple[str, bool]:
        return execute_call(call, LOCAL_FUNCTIONS)

    view = ChainlitTurnView(files=files)
    (output, ok), shown = await in_chainlit(
        thread_id, lambda: view.run_function(call, run)
    )
    assert ok, output
    await writes.settled()

    [tool_id] = [i for i, step in shown.items() if step["type"] == "tool"]
    expected = "Showed chart.png" if function == "display_file" else "Ran roll_dice"
    assert shown[tool_id]["name"] == expected
    assert shown[tool_id]["output"] == render_function_step(call.arguments, output)
    assert shown[tool_id]["end"]

    steps = await _reopened_steps(layer, thread_id)
    assert set(steps) == set(shown)
    for step_id, step in steps.items():
        assert _as_reopened(step) == _as_reopened(shown[step_id]), step_id
    if function == "display_file":
        assert output == DISPLAY_FILE_OK
        # The file's message is found again, under its step as it was live.
        [message] = [s for s in steps.values() if s["type"] == "assistant_message"]
        assert message["metadata"][DISPLAY_CALL_KEY] == call.call_id
        assert message["parentId"] == tool_id


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
    await in_chainlit(
        thread_id,
        lambda: layer.create_step(
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
            }
        ),
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


async def test_transient_messages_are_shown_but_never_saved(
    layer: LgosDataLayer,
) -> None:
    user = await layer.create_user(User(identifier="demo"))
    assert user is not None
    thread_id = str(uuid.uuid4())
    await layer.update_thread(thread_id, name="MCP", user_id=user.id)

    def message(text: str, metadata: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": str(uuid.uuid4()),
            "threadId": thread_id,
            "name": "LGOS",
            "type": "assistant_message",
            "output": text,
            "streaming": False,
            "metadata": metadata,
            "createdAt": "2026-01-01T00:00:00Z",
        }

    kept = message("5 mi = 8.047 km", {})
    notice = message("MCP server http://mcp:8005/mcp: convert_units", {TRANSIENT: True})
    for step in (kept, notice, notice):  # created, then updated
        await in_chainlit(thread_id, lambda step=step: layer.create_step(step))  # type: ignore[arg-type]
    await in_chainlit(thread_id, lambda: layer.update_step(notice))  # type: ignore[arg-type]

    thread = await layer.get_thread(thread_id)
    assert thread is not None
    assert [step.get("output") for step in thread["steps"]] == ["5 mi = 8.047 km"]


async def test_state_waits_for_chainlit_to_create_the_thread(
    layer: LgosDataLayer,
) -> None:
    user = await layer.create_user(User(identifier="demo"))
    assert user is not None
    thread_id = str(uuid.uuid4())

    async def chainlit_creates_thread_later() -> None:
        await asyncio.sleep(0.3)  # the point: the thread arrives after the state
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


def test_session_state_round_trip_and_server_tool_switches() -> None:
    offered = ["lgos_graph_topology", "lgos_package_version", "web_search"]
    session = ChatSession.from_model(_model(offered))
    assert describe_model(_model(["web_search", ""])).server_tools == ("web_search",)
    assert session.offers_web_search and session.web_search
    # Custom tools start off: only web search is selected.
    assert session.server_tools == [{"type": "web_search"}]
    ids = [widget.id for widget in session.widgets]
    assert ids == [
        "review_plan",
        WEB_SEARCH_SETTING,
        "lgos_tool_lgos_graph_topology",
        "lgos_tool_lgos_package_version",
    ]
    assert session.welcome.startswith("**deep-research** — Researches.")

    session.update_settings(
        {
            "review_plan": False,
            WEB_SEARCH_SETTING: False,
            "lgos_tool_lgos_graph_topology": False,
            "lgos_tool_lgos_package_version": True,
        }
    )
    assert session.server_tools == [{"type": "custom", "name": "lgos_package_version"}]
    assert session.request_metadata() == {"lgos_settings": '{"review_plan":false}'}
    session.conversation.items.append({"role": "user", "content": "hi"})
    session.shown_question = {"call_id": "c", "message_id": "m"}
    state = json.loads(json.dumps(session.to_state()))
    assert state["custom_tools"] == {
        "lgos_graph_topology": False,
        "lgos_package_version": True,
    }

    fresh = ChatSession.from_model(_model(offered))
    assert fresh.restore(state)
    assert fresh.values == {"review_plan": False}
    assert fresh.web_search is False
    assert fresh.server_tools == [{"type": "custom", "name": "lgos_package_version"}]
    assert fresh.conversation.items == [{"role": "user", "content": "hi"}]
    # Without a pending pause there is no question on screen to restore.
    assert fresh.shown_question is None
    # The restored values are the widgets' initial values.
    assert [w.initial for w in fresh.widgets] == [False, False, False, True]  # type: ignore[attr-defined]
    assert not fresh.restore({**state, "model": "chat"})
    assert not fresh.restore(None)

    # A state saved before the custom switches existed keeps them off; a saved
    # switch of a tool the model no longer offers, or not a bool, is ignored.
    older = ChatSession.from_model(_model(offered))
    assert older.restore({k: v for k, v in state.items() if k != "custom_tools"})
    assert older.custom_tools == {} and older.server_tools == []
    odd = ChatSession.from_model(_model(["web_search", "lgos_package_version"]))
    assert odd.restore(
        {**state, "custom_tools": {"gone": True, "lgos_package_version": "yes"}}
    )
    assert odd.custom_tools == {}

    plain = ChatSession.from_model(_model([]))
    assert not plain.offers_web_search and plain.server_tools == []
    assert [w.id for w in plain.widgets] == ["review_plan"]
