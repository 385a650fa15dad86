"""Reopening a saved thread: files and a pending question come back once.

When a saved thread is reopened, Chainlit may connect twice: the first
connection resumes the thread, disconnects (``on_chat_end``), and a second
one resumes it again. Each resume starts a task that waits a moment, then
downloads the files the thread showed and asks its pending question again.
The first connection's task must notice that its chat has ended and stop
without a Files API call or an error in the log; a live chat re-shows its
files and re-asks its question.

Chainlit's real ``WebsocketSession``, context and emitter run the UI's
callbacks (each in a task of its own, as Chainlit's socket handlers do); the
page is a recorder of what Chainlit emits. The model comes from the demo
API and the files from the Files app, both in process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import chainlit as cl
import chainlit.data
import pytest
from chainlit.context import init_ws_context
from chainlit.session import WebsocketSession
from chainlit.types import ThreadDict
from chainlit.user_session import user_sessions

from lgos_chainlit.file_messages import DISPLAY_CALL_KEY
from lgos_chainlit.ledger import Conversation
from lgos_chainlit.session import ChatSession
from lgos_client.display_file import DISPLAY_FILE_OK
from lgos_client.interrupts import PendingPause
from tests.ui.files_app import PNG
from tests.ui.in_process import Clients, Page

pytestmark = pytest.mark.anyio

MODEL = "approval"
QUESTION = "Approve the refund of order 42?"
SHOWN_IN = "msg-chart"
"""The history message that showed the file (its element goes back there)."""


def thread_of(steps: list[dict[str, Any]]) -> ThreadDict:
    """A saved thread named "Refund" with ``steps`` (their ``threadId`` set)."""
    thread_id = str(uuid.uuid4())
    return {
        "id": thread_id,
        "createdAt": "2025-01-01T00:00:00Z",
        "name": "Refund",
        "userId": None,
        "userIdentifier": None,
        "tags": None,
        "metadata": None,
        "steps": [{**step, "threadId": thread_id} for step in steps],  # type: ignore[typeddict-item]
        "elements": None,
    }


async def saved_thread(clients: Clients) -> tuple[dict[str, Any], ThreadDict]:
    """A thread that showed a file and waits for an answer: its state, history."""
    async with clients.recording_files_client("setup") as files:
        uploaded = await files.files.create(
            file=("chart.png", PNG, "image/png"), purpose="user_data"
        )
    clients.files_calls.clear()
    async with clients.lgos_client() as lgos:
        session = ChatSession.from_model(await lgos.models.retrieve(MODEL))
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "Show me the chart"},
        {
            "type": "function_call",
            "call_id": "call_chart",
            "name": "display_file",
            "arguments": json.dumps(
                {
                    "file_id": uploaded.id,
                    "filename": "chart.png",
                    "mime_type": "image/png",
                }
            ),
            "status": "completed",
        },
        {
            "type": "function_call_output",
            "call_id": "call_chart",
            "output": DISPLAY_FILE_OK,
        },
        {"role": "user", "content": "Refund order 42"},
    ]
    interrupt = {
        "type": "function_call",
        "id": "fc_refund",
        "call_id": "call_refund",
        "name": "lgos_interrupt",
        "arguments": json.dumps(
            {"question": QUESTION, "choices": ["approve", "reject"]}
        ),
        "status": "completed",
    }
    session.conversation = Conversation(
        model=MODEL,
        items=items,
        pending=PendingPause(
            response_id="resp_refund", calls=[interrupt], mark=len(items) - 1
        ),
    )
    thread = thread_of(
        [
            {
                "id": SHOWN_IN,
                "type": "assistant_message",
                "name": MODEL,
                "output": "Here is the chart.",
                "metadata": {DISPLAY_CALL_KEY: "call_chart"},
            }
        ]
    )
    return session.to_state(), thread


class Connections:
    """One Chainlit session and the browser connections it has had."""

    def __init__(self, app: ModuleType, thread: ThreadDict) -> None:
        self.app = app
        self.thread = thread
        self.pages: list[Page] = []
        self.session: WebsocketSession | None = None

    async def _in_context(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run a callback the way Chainlit's socket handlers do: its own task."""
        assert self.session is not None
        session = self.session

        async def run() -> None:
            init_ws_context(session)
            await callback()

        await asyncio.create_task(run())

    async def connect(self, metadata: dict[str, Any]) -> Page:
        """Connect (or reconnect) and resume the thread, as Chainlit does."""
        page = Page(f"sid-{len(self.pages) + 1}")
        self.pages.append(page)
        # Chainlit annotates emit as returning None; its emit (socket.io's)
        # is a coroutine function, as this one is.
        if self.session is None:
            self.session = WebsocketSession(
                id=str(uuid.uuid4()),
                socket_id=page.socket_id,
                emit=page.emit,  # pyright: ignore[reportArgumentType]
                emit_call=page.emit_call,
                user_env={},
                client_type="webapp",
                thread_id=self.thread["id"],
            )
        else:
            self.session.restore(new_socket_id=page.socket_id)
            self.session.emit = page.emit  # pyright: ignore[reportAttributeAccessIssue]
            self.session.emit_call = page.emit_call
        # Chainlit's resume_thread: the thread's metadata is the user session.
        user_sessions[self.session.id] = json.loads(json.dumps(metadata))
        await self._in_context(lambda: self.app.resume_chat(self.thread))
        return page

    async def disconnect(self) -> None:
        """The browser went away: Chainlit calls ``on_chat_end``."""
        await self._in_context(self.app.end_chat)

    async def close(self) -> None:
        if self.session is not None:
            user_sessions.pop(self.session.id, None)
            await self.session.delete()


def ui_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name.startswith("lgos_chainlit") and record.levelno >= logging.ERROR
    ]


_created: list[asyncio.Task[Any]] = []


@pytest.fixture(autouse=True)
async def record_after_history(app: ModuleType) -> AsyncIterator[None]:
    """Record every task the test's loop creates, for :func:`settle`.

    ``asyncio.all_tasks()`` would miss a resumed chat's task that already
    finished (on a busy machine it can end before the test looks). The loop
    names a task after its factory returns, so settle reads the names.
    """
    loop = asyncio.get_running_loop()
    previous = loop.get_task_factory()

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
        task = (
            previous(loop, coro, **kwargs)
            if previous is not None
            else asyncio.Task(coro, loop=loop, **kwargs)
        )
        _created.append(task)
        return task

    loop.set_task_factory(factory)  # pyright: ignore[reportArgumentType]
    try:
        yield
    finally:
        loop.set_task_factory(previous)
        _created.clear()


async def settle(app: ModuleType) -> None:
    """Wait for the tasks resumed chats started since the last call to show
    files and questions; at least one must have started."""
    tasks = [task for task in _created if task.get_name() == app.AFTER_HISTORY_TASK]
    _created[:] = [task for task in _created if task not in tasks]
    assert tasks, "no resumed chat started its task"
    await asyncio.gather(*tasks)


def shown_again(page: Page) -> list[dict[str, Any]]:
    return [e for e in page.elements() if e.get("forId") == SHOWN_IN]


def asked(page: Page) -> list[str]:
    return [m for m in page.messages() if QUESTION in m]


async def test_a_live_resumed_chat_shows_its_files_and_question_again(
    app: ModuleType, clients: Clients, caplog: pytest.LogCaptureFixture
) -> None:
    state, thread = await saved_thread(clients)
    metadata = {app.STATE_KEY: state}
    connections = Connections(app, thread)
    try:
        page = await connections.connect(metadata)
        assert not shown_again(page) and not asked(page)  # not before the delay
        await settle(app)
    finally:
        await connections.close()

    [element] = shown_again(page)
    assert element["name"] == "chart.png"
    assert element["mime"] == "image/png"
    assert len(asked(page)) == 1
    assert [call.split()[0] for call in clients.files_calls] == ["files-1"]
    assert any("/content" in call for call in clients.files_calls)
    assert ui_errors(caplog) == []


async def test_a_chat_ended_during_the_delay_stops_quietly(
    app: ModuleType, clients: Clients, caplog: pytest.LogCaptureFixture
) -> None:
    state, thread = await saved_thread(clients)
    metadata = {app.STATE_KEY: state}
    connections = Connections(app, thread)
    try:
        page = await connections.connect(metadata)
        before = len(page.events)
        await connections.disconnect()
        await settle(app)
    finally:
        await connections.close()

    assert clients.files_calls == []
    assert page.events[before:] == []
    assert ui_errors(caplog) == []


async def test_reopening_connects_twice_and_shows_everything_once(
    app: ModuleType, clients: Clients, caplog: pytest.LogCaptureFixture
) -> None:
    state, thread = await saved_thread(clients)
    metadata = {app.STATE_KEY: state}
    connections = Connections(app, thread)
    try:
        first = await connections.connect(metadata)
        await connections.disconnect()
        second = await connections.connect(metadata)
        await settle(app)
    finally:
        await connections.close()

    assert not shown_again(first) and not asked(first)
    assert len(shown_again(second)) == 1
    assert len(asked(second)) == 1
    # Only the second connection's client went to the Files API.
    assert clients.files_calls
    assert {call.split()[0] for call in clients.files_calls} == {"files-2"}
    assert ui_errors(caplog) == []


async def test_a_chat_that_ends_while_it_opens_shows_no_error(
    app: ModuleType,
    clients: Clients,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seen in CI: a reopened thread's first connection ended while its
    resume was about to load the model; ``end_chat`` closed the client and
    the closed client's bare ``RuntimeError`` became an error message saved
    in the thread ("Cannot send a request, as the client has been closed.")."""
    state, thread = await saved_thread(clients)
    metadata = {app.STATE_KEY: state}
    connections = Connections(app, thread)
    load_session = app.load_session
    ended: list[bool] = []

    async def load_after_the_browser_left(
        client: Any, *args: Any, **kwargs: Any
    ) -> Any:
        await connections.disconnect()
        ended.append(client.is_closed())
        return await load_session(client, *args, **kwargs)

    monkeypatch.setattr(app, "load_session", load_after_the_browser_left)
    try:
        page = await connections.connect(metadata)
    finally:
        await connections.close()

    assert ended == [True]
    assert page.messages() == []
    assert ui_errors(caplog) == []


# --------------------------------------------------------------------------
# A reopened thread whose page reconnects mid-question or mid-turn.
#
# Chainlit's frontend may reconnect a page several times while it reopens a
# thread; each reconnect of the same Chainlit session puts the thread's saved
# metadata back into the user session and calls ``on_chat_resume`` again. A
# click on buttons an earlier connection showed may reach a later one before
# it asked the question itself, and a turn (the resume of the answered
# pause) may still run. The pause here is a real one from the demo API.
# --------------------------------------------------------------------------

REQUEST = "Refund order 42: the kettle arrived broken."
QUESTION_STEP = "msg-question"
"""The history message that asked the question (its buttons go back there)."""


async def paused_thread(clients: Clients) -> tuple[dict[str, Any], ThreadDict]:
    """A thread paused on the ``approval`` question, asked in ``msg-question``."""
    async with clients.lgos_client() as lgos:
        session = ChatSession.from_model(await lgos.models.retrieve(MODEL))
        await session.conversation.ask(lgos, REQUEST)
    pause = session.conversation.pending
    assert pause is not None
    question = pause.next_question()
    assert question is not None
    session.shown_question = {"call_id": question.call_id, "message_id": QUESTION_STEP}
    thread = thread_of(
        [
            {
                "id": QUESTION_STEP,
                "parentId": None,
                "createdAt": "2025-01-01T00:00:01Z",
                "type": "assistant_message",
                "name": MODEL,
                "output": "Your answer is needed: Approve this refund request?",
                "metadata": {"icon": "message-circle-question"},
            }
        ]
    )
    return session.to_state(), thread


def events(page: Page, name: str) -> list[dict[str, Any]]:
    return [data for event, data in page.events if event == name]


def answer_buttons(page: Page) -> list[dict[str, Any]]:
    return [a for a in events(page, "action") if a["forId"] == QUESTION_STEP]


async def click(
    connections: Connections, app: ModuleType, button: dict[str, Any]
) -> asyncio.Task[Any]:
    """Click ``button`` in the page: Chainlit runs the action's callback."""
    action = cl.Action(
        id=button["id"],
        name=button["name"],
        payload=button["payload"],
        label=button["label"],
        forId=button["forId"],
    )
    await connections._in_context(lambda: app.answer_button(action))
    assert connections.session is not None
    task = connections.session.current_task
    assert task is not None
    return task


async def test_buttons_an_earlier_connection_showed_go_when_clicked(
    app: ModuleType, clients: Clients, caplog: pytest.LogCaptureFixture
) -> None:
    state, thread = await paused_thread(clients)
    metadata = {app.STATE_KEY: state}
    connections = Connections(app, thread)
    try:
        first = await connections.connect(metadata)
        await settle(app)
        shown = answer_buttons(first)
        assert [b["label"] for b in shown] == [
            "approve",
            "reject",
            "Type another answer",
        ]
        # The page reconnects; the click reaches the new connection before
        # it asks the question itself.
        second = await connections.connect(metadata)
        approve = next(b for b in shown if b["label"] == "approve")
        run = await click(connections, app, approve)
        await run
        await settle(app)
    finally:
        await connections.close()

    # The buttons the first connection showed are removed, by their IDs.
    assert {a["id"] for a in events(second, "remove_action")} == {
        b["id"] for b in shown
    }
    [answered] = [
        m for m in events(second, "update_message") if m["id"] == QUESTION_STEP
    ]
    assert "**Your answer:** approve" in answered["output"]
    assert answered["createdAt"] == "2025-01-01T00:00:01Z"
    assert answer_buttons(second) == []  # not asked again
    assert any("Approved." in m for m in second.messages())
    assert ui_errors(caplog) == []


async def test_buttons_keep_their_ids_when_asked_again(
    app: ModuleType, clients: Clients
) -> None:
    state, thread = await paused_thread(clients)
    metadata = {app.STATE_KEY: state}
    connections = Connections(app, thread)
    try:
        first = await connections.connect(metadata)
        await settle(app)
        second = await connections.connect(metadata)
        await settle(app)
    finally:
        await connections.close()

    shown = [b["id"] for b in answer_buttons(first)]
    assert len(shown) == 3
    # The second connection removes the first one's buttons, then shows the
    # same ones: the page holds one set.
    assert [a["id"] for a in events(second, "remove_action")] == shown
    assert [b["id"] for b in answer_buttons(second)] == shown


async def test_a_reconnect_while_the_resume_runs_keeps_the_running_chat(
    app: ModuleType, clients: Clients, caplog: pytest.LogCaptureFixture
) -> None:
    state, thread = await paused_thread(clients)
    connections = Connections(app, thread)
    try:
        first = await connections.connect({app.STATE_KEY: state})
        await settle(app)
        assert connections.session is not None
        running: ChatSession = user_sessions[connections.session.id][app.SESSION_KEY]
        approve = next(b for b in answer_buttons(first) if b["label"] == "approve")
        run = await click(connections, app, approve)
        assert not run.done()
        # What the thread's metadata holds now: the pause, answered.
        answered = user_sessions[connections.session.id][app.STATE_KEY]
        await connections.disconnect()
        second = await connections.connect({app.STATE_KEY: answered})
        kept = user_sessions[connections.session.id][app.SESSION_KEY]
        await run
        await settle(app)
        after = user_sessions[connections.session.id]
    finally:
        await connections.close()

    assert kept is running
    assert events(second, "action") == []  # the answered pause is not asked again
    assert any("Approved." in m for m in second.messages())
    assert running.conversation.pending is None
    assert after[app.STATE_KEY]["conversation"]["pending"] is None
    assert ui_errors(caplog) == []


async def test_a_reconnect_after_an_interrupted_resume_asks_again(
    app: ModuleType, clients: Clients
) -> None:
    """No turn runs: an answered pause whose resume never finished is asked."""
    state, thread = await paused_thread(clients)
    connections = Connections(app, thread)
    try:
        first = await connections.connect({app.STATE_KEY: state})
        await settle(app)
        assert connections.session is not None
        approve = next(b for b in answer_buttons(first) if b["label"] == "approve")
        run = await click(connections, app, approve)
        answered = user_sessions[connections.session.id][app.STATE_KEY]
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)
        second = await connections.connect({app.STATE_KEY: answered})
        await settle(app)
    finally:
        await connections.close()

    again = [m for m in second.messages() if "Approve this refund request?" in m]
    assert len(again) == 1


async def test_a_mid_turn_reconnect_sends_messages_saved_after_the_read(
    app: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page redraws the thread as read; a later save is sent once more."""
    from chainlit.user import User

    from lgos_chainlit.chat_state import show_saved_changes
    from lgos_chainlit.persistence import LgosDataLayer

    layer = LgosDataLayer(f"sqlite+aiosqlite:///{tmp_path / 'history.sqlite3'}")
    await layer.create_schema()
    monkeypatch.setattr(chainlit.data, "_data_layer", layer)
    thread_id = str(uuid.uuid4())
    steps: list[Any] = [
        {
            "id": step_id,
            "threadId": thread_id,
            "name": MODEL,
            "type": "assistant_message",
            "output": output,
            "createdAt": f"2025-01-01T00:00:0{n}Z",
            "streaming": False,
        }
        for n, (step_id, output) in enumerate(
            [("msg-a", "Your answer is needed"), ("msg-b", "unchanged")]
        )
    ]
    connections = Connections(app, {"id": thread_id})  # type: ignore[typeddict-item]
    page = Page("sid-1")
    connections.session = WebsocketSession(
        id=str(uuid.uuid4()),
        socket_id=page.socket_id,
        emit=page.emit,  # pyright: ignore[reportArgumentType]
        emit_call=page.emit_call,
        user_env={},
        client_type="webapp",
        thread_id=thread_id,
    )
    connections.session.has_first_interaction = True  # a resumed thread's session
    sent: list[int] = []

    async def reconnect() -> None:
        user = await layer.create_user(User(identifier="demo"))
        assert user is not None
        await layer.update_thread(thread_id, name="Refund", user_id=user.id)
        for step in steps:
            await layer.create_step(dict(step))
        read = await layer.get_thread(thread_id)
        assert read is not None
        await layer.update_step({**steps[0], "output": "**Answered**"})

        sent.append(await show_saved_changes(read))
        sent.append(await show_saved_changes(read | {"id": ""}))

    try:
        await connections._in_context(reconnect)
    finally:
        await connections.close()
        await layer.close()

    assert sent == [1, 0]
    [update] = [data for event, data in page.events if event == "update_message"]
    assert update["id"] == "msg-a"
    assert update["output"] == "**Answered**"
