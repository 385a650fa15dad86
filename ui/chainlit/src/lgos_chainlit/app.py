"""The Chainlit chat UI for LGOS; it speaks to LGOS only through ``AsyncOpenAI``.

Each LGOS graph (an OpenAI ``model``) is a chat profile. Starting a chat
retrieves the selected model, renders its runtime settings as Chainlit chat
settings, and streams answers from the Responses API while the client keeps
the input ledger. Commentary shows as steps, citations as linked markers and
a Sources list, and the UI runs the functions a graph calls (those listed in
its ``lgos.client_tools``) as tool steps (:mod:`lgos_chainlit.view`).

Run from the repository root (see ``ui/chainlit/README.md``)::

    CHAINLIT_APP_ROOT=ui/chainlit uv run chainlit run \
        ui/chainlit/src/lgos_chainlit/app.py --headless --host 127.0.0.1 --port 8001
"""

from __future__ import annotations

import logging
from typing import Any

import chainlit as cl
import openai
from chainlit.config import APP_ROOT as CHAINLIT_APP_ROOT
from openai import AsyncOpenAI

from lgos_chainlit.conversation import format_api_error
from lgos_chainlit.paths import APP_ROOT, app_root_is_configured
from lgos_chainlit.session import (
    ChatSession,
    chat_profiles_for,
    first_model_id,
    load_session,
)
from lgos_chainlit.settings import get_settings, make_client
from lgos_chainlit.view import ChainlitTurnView

logger = logging.getLogger("lgos_chainlit")

CLIENT_KEY = "lgos_client"
SESSION_KEY = "lgos_session"

if not app_root_is_configured(CHAINLIT_APP_ROOT):
    logger.warning(
        "Chainlit app root is %s, not %s: the LGOS config (.chainlit/config.toml, "
        "chainlit.md) is not used. Set CHAINLIT_APP_ROOT=%s or run "
        "`python -m lgos_chainlit`.",
        CHAINLIT_APP_ROOT,
        APP_ROOT,
        APP_ROOT,
    )


@cl.set_chat_profiles
async def chat_profiles(
    current_user: cl.User | None = None, language: str | None = None
) -> list[cl.ChatProfile]:
    """One chat profile per LGOS model, described by its ``lgos.description``."""
    settings = get_settings()
    try:
        async with make_client(settings) as client:
            models = [model async for model in client.models.list()]
    except openai.OpenAIError as exc:
        logger.warning("Cannot list LGOS models: %s", format_api_error(exc))
        return []
    return chat_profiles_for(models, settings.default_model)


async def _open_chat(client: AsyncOpenAI) -> ChatSession | None:
    """Load the selected model into the user session and show its settings."""
    model_id = cl.user_session.get("chat_profile") or get_settings().default_model
    try:
        if not model_id:
            model_id = await first_model_id(client)
        if not model_id:
            await cl.ErrorMessage(content="LGOS serves no models.").send()
            return None
        session = await load_session(
            client, model_id, conversation_id=cl.context.session.thread_id
        )
    except openai.OpenAIError as exc:
        target = f"model `{model_id}`" if model_id else "the model list"
        await cl.ErrorMessage(
            content=f"Cannot load {target} from LGOS. {format_api_error(exc)}"
        ).send()
        return None
    cl.user_session.set(SESSION_KEY, session)
    if session.notice:
        await cl.Message(content=session.notice).send()
    if session.widgets:
        await cl.ChatSettings(session.widgets).send()
    return session


def _client() -> AsyncOpenAI:
    client = cl.user_session.get(CLIENT_KEY)
    if client is None:
        client = make_client(get_settings())
        cl.user_session.set(CLIENT_KEY, client)
    return client


@cl.on_chat_start
async def start_chat() -> None:
    """Retrieve the selected model and render its runtime settings."""
    await _open_chat(_client())


@cl.on_settings_update
async def update_settings(values: dict[str, Any]) -> None:
    """Keep the settings the user confirmed; they are sent on every request."""
    session: ChatSession | None = cl.user_session.get(SESSION_KEY)
    if session is not None:
        current = session.update_settings(values)
        logger.debug("Settings of %s: %s", session.model_id, current)


@cl.on_message
async def answer(message: cl.Message) -> None:
    """Send the user turn with the whole ledger and stream the answer.

    Commentary appears as steps, the answer as a message with its citations,
    and function calls the graph makes to this UI's functions run as tool
    steps, followed automatically by the next request (see
    :meth:`Conversation.ask`).
    """
    client = _client()
    session: ChatSession | None = cl.user_session.get(SESSION_KEY)
    if session is None:
        # LGOS was unreachable when the chat started: try again now.
        session = await _open_chat(client)
        if session is None:
            return
    await session.conversation.ask(
        client,
        message.content,
        metadata=session.request_metadata(),
        listener=ChainlitTurnView(),
        functions=session.functions,
    )


@cl.on_chat_end
async def end_chat() -> None:
    """Close the session's OpenAI client.

    Chainlit calls this on every disconnect, and a reconnecting browser may
    resume the session: the next callback then opens a new client.
    """
    client: AsyncOpenAI | None = cl.user_session.get(CLIENT_KEY)
    cl.user_session.set(CLIENT_KEY, None)
    if client is not None:
        await client.close()
