"""One chat's state in Chainlit's user session: its clients and its saved state.

Each browser session keeps its own OpenAI clients (LGOS and the Files API)
and its :class:`~lgos_chainlit.session.ChatSession` in ``cl.user_session``;
:func:`save_chat` writes the chat's state there and into the thread's
metadata, so a reopened thread gets its ledger and pending pause back.

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

import logging

import chainlit as cl
from chainlit.data import get_data_layer
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
    "lgos_client",
    "save_chat",
]

logger = logging.getLogger(__name__)

CLIENT_KEY = "lgos_client"
FILES_KEY = "lgos_files_client"
SESSION_KEY = "lgos_session"
STATE_KEY = "lgos"
"""The chat's saved state: the same key in ``cl.user_session`` and in the
thread's metadata (Chainlit also writes the user session into the metadata
when the browser disconnects, so the two must always agree)."""


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
