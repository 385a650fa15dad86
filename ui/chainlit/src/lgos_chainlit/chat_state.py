"""One chat's state in Chainlit's user session: its clients and its saved state.

Each browser session keeps its own OpenAI clients (LGOS and the Files API)
and its :class:`~lgos_chainlit.session.ChatSession` in ``cl.user_session``;
:func:`save_chat` writes the chat's state there and into the thread's
metadata, so a reopened thread gets its ledger and pending pause back.

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

import logging
import weakref

import chainlit as cl
from chainlit.data import get_data_layer
from chainlit.types import ThreadDict
from openai import AsyncOpenAI

from lgos_chainlit.persistence import LgosDataLayer
from lgos_chainlit.session import ChatSession
from lgos_chainlit.settings import get_settings, make_client, make_files_client

__all__ = [
    "CLIENT_KEY",
    "FILES_KEY",
    "SESSION_KEY",
    "STATE_KEY",
    "files_client",
    "keep_running_chat",
    "lgos_client",
    "remember_chat",
    "running_chat",
    "save_chat",
    "show_saved_changes",
    "wait_for_saved_messages",
]

logger = logging.getLogger(__name__)

CLIENT_KEY = "lgos_client"
FILES_KEY = "lgos_files_client"
SESSION_KEY = "lgos_session"
STATE_KEY = "lgos"
"""The chat's saved state: the same key in ``cl.user_session`` and in the
thread's metadata (Chainlit also writes the user session into the metadata
when the browser disconnects, so the two must always agree)."""

_CHATS: weakref.WeakValueDictionary[str, ChatSession] = weakref.WeakValueDictionary()
"""The chat each Chainlit session (by ID) uses, while anything holds it."""


def remember_chat(session: ChatSession) -> None:
    """Put ``session`` in the user session as this Chainlit session's chat."""
    cl.user_session.set(SESSION_KEY, session)
    _CHATS[cl.context.session.id] = session


def running_chat() -> ChatSession | None:
    """Return the chat whose turn still runs in this Chainlit session, if any.

    A page that reconnects keeps its Chainlit session, but for a reopened
    thread Chainlit puts the thread's saved metadata back into the user
    session and calls ``on_chat_resume`` again, mid-turn if a turn (or the
    resume of an answered pause) runs. That turn's chat is newer than the
    saved state; this finds it so the resumed chat can keep it.
    """
    task = cl.context.session.current_task
    if task is None or task.done():
        return None
    return _CHATS.get(cl.context.session.id)


def keep_running_chat(session: ChatSession) -> None:
    """Make ``session`` (from :func:`running_chat`) the chat again, state included."""
    remember_chat(session)
    cl.user_session.set(STATE_KEY, session.to_state())


async def save_chat(session: ChatSession) -> bool:
    """Save the chat's state in the user session and the thread's metadata.

    Returns:
        Whether the database has it (a chat without history keeps it in the
        browser session only). A failed write is logged, not raised.

    """
    state = session.to_state()
    cl.user_session.set(STATE_KEY, state)
    layer = get_data_layer()
    if not isinstance(layer, LgosDataLayer):
        return False
    try:
        await layer.put_thread_metadata(
            cl.context.session.thread_id, {STATE_KEY: state}
        )
    except Exception:
        logger.exception(
            "Cannot save the chat state of thread %s", cl.context.session.thread_id
        )
        return False
    return True


async def wait_for_saved_messages() -> None:
    """Wait until the messages and steps sent so far are in the database.

    Called when a turn ends, so a page reloaded as soon as the Stop button
    goes away draws the whole turn (see :meth:`LgosDataLayer.flush`). Does
    nothing without the LGOS data layer.
    """
    layer = get_data_layer()
    if isinstance(layer, LgosDataLayer):
        await layer.flush()


def lgos_client() -> AsyncOpenAI:
    """Return the session's LGOS client, made on first use."""
    client = cl.user_session.get(CLIENT_KEY)
    if client is None:
        client = make_client(get_settings())
        cl.user_session.set(CLIENT_KEY, client)
    return client


def files_client() -> AsyncOpenAI:
    """Return the session's Files API client, made on first use."""
    client = cl.user_session.get(FILES_KEY)
    if client is None:
        client = make_files_client(get_settings())
        cl.user_session.set(FILES_KEY, client)
    return client


async def show_saved_changes(thread: ThreadDict) -> int:
    """Send again the thread's messages whose text changed since ``thread`` was read.

    A page that reconnects mid-turn redraws the thread as Chainlit read it
    when the connection began: a message saved after that read (a question
    marked answered) shows its old text until this sends the saved one.

    Returns:
        How many messages were sent again (``0`` without a data layer).

    """
    layer = get_data_layer()
    thread_id = thread.get("id")
    if layer is None or not thread_id:
        return 0
    saved = await layer.get_thread(thread_id)
    if not saved:
        return 0
    drawn = {step.get("id"): step.get("output") for step in thread.get("steps") or []}
    sent = 0
    for step in saved.get("steps") or []:
        step_id = step.get("id")
        if step_id in drawn and step.get("output") != drawn[step_id]:
            await cl.context.emitter.update_step(step)
            sent += 1
    return sent
