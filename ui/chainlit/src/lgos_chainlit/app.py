"""The Chainlit chat UI for LGOS; it speaks to LGOS only through ``AsyncOpenAI``.

One module: Chainlit's callbacks, which share the turn runner ``_stream``.

Each LGOS graph (an OpenAI ``model``) is a chat profile. Starting a chat
retrieves the selected model, says what it does, renders its runtime
settings (plus a switch per server tool the model offers: "Web search" and
each custom tool by name) as Chainlit chat settings, and streams answers
from the Responses API while the client keeps the input ledger. Commentary
shows as steps, citations as linked markers and a Sources list, and the UI
runs the functions a graph calls (those listed in its ``lgos.client_tools``,
and an MCP server's tools for a model with the ``mcp_tools`` feature, see
:mod:`lgos_chainlit.mcp_chat`) as tool steps (:mod:`lgos_chainlit.view`).

A graph that pauses (``lgos_interrupt`` calls) gets its questions asked one
at a time, with the choices as buttons and typed answers where allowed; the
answers go back in one resume request. Users sign in (a demo login), and
Chainlit's SQLAlchemy data layer keeps their threads: the ledger, settings
and any pending pause are saved in the thread's metadata before a question
is asked, so a reloaded page can reopen the thread and answer it.

Run from the repository root (see ``ui/chainlit/README.md``)::

    uv run python -m lgos_chainlit --host 127.0.0.1 --port 8001
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import chainlit as cl
import openai
from chainlit.config import APP_ROOT as CHAINLIT_APP_ROOT
from chainlit.data import get_data_layer
from chainlit.types import ThreadDict
from openai import AsyncOpenAI

import lgos_chainlit.login  # registers the login and its hint route
import lgos_chainlit.reconnect  # a page's second socket gets the opening again
import lgos_chainlit.stopping  # noqa: F401 - Stop posts no message of Chainlit's
from lgos_chainlit.attachments import Attachment, upload_attachment
from lgos_chainlit.chat_state import (
    CLIENT_KEY,
    FILES_KEY,
    SESSION_KEY,
    STATE_KEY,
    files_client,
    keep_running_chat,
    lgos_client,
    remember_chat,
    running_chat,
    save_chat,
    show_saved_changes,
    wait_for_saved_messages,
)
from lgos_chainlit.file_messages import show_reshown_files
from lgos_chainlit.literal_text import protect_markdown
from lgos_chainlit.loop_hooks import finalize_async_generators_in_tasks
from lgos_chainlit.mcp_chat import attach_mcp_tools, retry_mcp_tools, show_mcp_notice
from lgos_chainlit.model_catalog import (
    discover_models,
    first_model_id,
    load_session,
)
from lgos_chainlit.page import serve_page_offline
from lgos_chainlit.paths import APP_ROOT, app_root_is_configured
from lgos_chainlit.persistence import LgosDataLayer, resolve_database_url
from lgos_chainlit.questions import (
    ANSWER_ACTION,
    WRITE_ACTION,
    adopt_question,
    ask_next,
    prompt_typing,
    record_answer,
)
from lgos_chainlit.session import (
    ChatSession,
    chat_profiles_for,
)
from lgos_chainlit.settings import get_settings, make_client
from lgos_chainlit.turn_result import TurnResult
from lgos_chainlit.view import ChainlitTurnView
from lgos_client.api_errors import format_api_error
from lgos_client.display_file import reshow_files
from lgos_client.interrupts import InterruptQuestion

logger = logging.getLogger("lgos_chainlit")

RESUME_ASK_DELAY = 0.5
"""Seconds between resuming a thread and asking its pending question again,
so the question lands after the browser has redrawn the thread's history."""
AFTER_HISTORY_TASK = "lgos_after_history"
"""Name of the task a resumed chat starts to show its files and question again."""

serve_page_offline()

if not app_root_is_configured(CHAINLIT_APP_ROOT):
    logger.warning(
        "Chainlit app root is %s, not %s: the LGOS config (.chainlit/config.toml, "
        "chainlit.md) is not used. Set CHAINLIT_APP_ROOT=%s or run "
        "`python -m lgos_chainlit`.",
        CHAINLIT_APP_ROOT,
        APP_ROOT,
        APP_ROOT,
    )

# --------------------------------------------------------------------------
# Chat history (the login is in lgos_chainlit.login)
# --------------------------------------------------------------------------


@cl.data_layer
def data_layer() -> LgosDataLayer:
    """Chainlit's SQLAlchemy data layer on SQLite (default) or PostgreSQL."""
    return LgosDataLayer(resolve_database_url(get_settings()))


@cl.on_app_startup
async def create_tables() -> None:
    """Create the chat history tables (Chainlit does not).

    Also closes abandoned async generators in tasks from now on, which
    Chainlit's nest_asyncio loop does not (:mod:`lgos_chainlit.loop_hooks`).
    """
    finalize_async_generators_in_tasks()
    layer = get_data_layer()
    if isinstance(layer, LgosDataLayer):
        await layer.create_schema()
        logger.info("Chat history in %s", layer.engine.url.render_as_string())


# --------------------------------------------------------------------------
# Models, chats and settings
# --------------------------------------------------------------------------


@cl.set_chat_profiles
async def chat_profiles(
    current_user: cl.User | None = None, language: str | None = None
) -> list[cl.ChatProfile]:
    """One chat profile per LGOS model, described by its ``lgos.description``.

    The models come from ``/v1/models``, or from a LiteLLM gateway's
    ``/model/info`` (``DEMO_CHAINLIT_DISCOVERY=litellm``).
    """
    settings = get_settings()
    try:
        async with make_client(settings) as client:
            models = await discover_models(client, settings.discovery)
    except openai.OpenAIError as exc:
        logger.warning("Cannot list LGOS models: %s", format_api_error(exc))
        return []
    return chat_profiles_for(models, settings.default_model)


async def _open_chat(
    client: AsyncOpenAI, *, welcome: bool, resumed: bool = False
) -> ChatSession | None:
    """Load the selected model into the user session and show its settings.

    A saved state in the user session (a resumed thread) is restored: the
    model it was saved for, its ledger, settings and pending pause. A
    ``resumed`` thread shows its MCP notice after its history (see
    :func:`resume_chat`).
    """
    settings = get_settings()
    saved = cl.user_session.get(STATE_KEY)
    saved_model = saved.get("model") if isinstance(saved, dict) else None
    model_id = (
        saved_model or cl.user_session.get("chat_profile") or settings.default_model
    )
    try:
        if not model_id:
            model_id = await first_model_id(client, settings.discovery)
        if not model_id:
            await cl.ErrorMessage(content="LGOS serves no models.").send()
            return None
        session = await load_session(
            client,
            model_id,
            discovery=settings.discovery,
            conversation_id=cl.context.session.thread_id,
        )
    except openai.OpenAIError as exc:
        if client.is_closed():
            # The chat ended while it was opening (see SessionHttpClient).
            logger.info("Chat for %r ended before it opened", model_id)
            return None
        target = f"model `{model_id}`" if model_id else "the model list"
        await cl.ErrorMessage(
            content=f"Cannot load {target} from LGOS. {format_api_error(exc)}"
        ).send()
        return None
    if saved is not None:
        session.restore(saved)
    remember_chat(session)
    if welcome:
        await cl.Message(content=protect_markdown(session.welcome)).send()
    if session.notice:
        await cl.Message(content=protect_markdown(session.notice)).send()
    await attach_mcp_tools(session, notify=not resumed)
    widgets = session.widgets
    if widgets:
        await cl.ChatSettings(widgets).send()
    return session


async def _session() -> ChatSession | None:
    session: ChatSession | None = cl.user_session.get(SESSION_KEY)
    if session is None:
        # LGOS was unreachable when the chat started: try again now.
        session = await _open_chat(lgos_client(), welcome=False)
    return session


@cl.on_chat_start
async def start_chat() -> None:
    """Say which model answers, and render its runtime settings."""
    await _open_chat(lgos_client(), welcome=True)


@cl.on_chat_resume
async def resume_chat(thread: ThreadDict) -> None:
    """Reopen a saved thread: its ledger, settings, shown files, pending question.

    Chainlit has put the thread's metadata into the user session already
    (the saved state included). Once the browser has drawn the thread's
    history, the files that ``display_file`` calls showed are downloaded and
    shown again (Chainlit keeps no elements), and a pending question is
    asked again.

    Reopening a thread may connect twice: the first connection ends
    (:func:`end_chat`) while it waits, and a second one resumes again. The
    waiting task of an ended chat stops without a request or a message.
    Chainlit also calls this again when the page reconnects mid-turn (the
    same Chainlit session, the user session reset to the saved metadata):
    the running turn's chat is kept, its answered pause is not asked again,
    and messages saved since Chainlit read the thread are sent again
    (:func:`~lgos_chainlit.chat_state.show_saved_changes`). The buttons an
    earlier connection may have shown are taken over
    (:func:`~lgos_chainlit.questions.adopt_question`).
    """
    thread_id = thread.get("id")
    running = running_chat()
    session = await _open_chat(lgos_client(), welcome=False, resumed=True)
    if session is None:
        return
    pause = session.conversation.pending
    if running is not None:
        # The page reconnected mid-turn: the turn's chat stays the chat.
        session = running
        keep_running_chat(session)
    elif pause is not None and pause.complete:
        # Answered, but the resume never finished here: ask again.
        pause.answers.clear()
        session.shown_question = None
        await save_chat(session)
    adopt_question(session, thread)
    files = files_client()

    def chat_ended() -> bool:
        # Chainlit keeps a disconnected session (no flag says so) until its
        # timeout, but end_chat drops this client from the user session, and
        # a new connection resumes with a user session and client of its own.
        return cl.user_session.get(FILES_KEY) is not files

    async def after_history() -> None:
        await asyncio.sleep(RESUME_ASK_DELAY)
        if chat_ended():
            logger.debug("Thread %s was left before its files came back", thread_id)
            return
        if running is not None:
            await show_saved_changes(thread)
        try:
            reshown = await reshow_files(files, session.conversation.items)
            if chat_ended():
                return
            if reshown:
                await show_reshown_files(reshown, thread.get("steps", []))
        except Exception:
            if chat_ended():
                logger.debug("Thread %s was left while its files came back", thread_id)
                return
            logger.exception("Showing the files of thread %s again failed", thread_id)
        if chat_ended():
            return
        await show_mcp_notice(session)
        if session.conversation.pending is not None:
            await ask_next(session, reminder=True, history=thread)

    asyncio.create_task(  # noqa: RUF006 - short-lived, logs itself
        after_history(), name=AFTER_HISTORY_TASK
    )


@cl.on_settings_update
async def update_settings(values: dict[str, Any]) -> None:
    """Keep the settings the user confirmed; they are sent on every request."""
    session: ChatSession | None = cl.user_session.get(SESSION_KEY)
    if session is not None:
        current = session.update_settings(values)
        logger.debug("Settings of %s: %s", session.model_id, current)
        if cl.context.session.has_first_interaction:
            await save_chat(session)


# --------------------------------------------------------------------------
# Turns
# --------------------------------------------------------------------------


async def _stream(
    session: ChatSession,
    run: Callable[[ChainlitTurnView], Awaitable[TurnResult]],
) -> None:
    """Run one turn (or resume), then save the chat and ask what is pending.

    The turn ends (Chainlit's Stop button goes away) once its messages are
    in the database, so a reload at once draws them.

    A turn the user stops is labelled as not kept, in one line that says
    whether a question still waits; the conversation forgets it, and the
    saved state says so too.
    """
    await retry_mcp_tools(session)
    view = ChainlitTurnView(files=files_client(), functions=session.functions)
    resuming = session.conversation.pending is not None
    try:
        result = await run(view)
    except asyncio.CancelledError:
        logger.info("Turn of %s stopped by the user", session.model_id)
        waiting = session.conversation.pending is not None
        await view.on_cancelled(answered=resuming and not waiting, waiting=waiting)
        await save_chat(session)
        raise
    pause = session.conversation.pending
    if pause is not None and result.retryable:
        # The resume did not reach LGOS (or the run was busy): ask again.
        pause.answers.clear()
    session.shown_question = None
    await save_chat(session)
    if pause is not None:
        await ask_next(session, reminder=not result.paused)
    await wait_for_saved_messages()


@cl.on_message
async def answer(message: cl.Message) -> None:
    """Send the user turn with the whole ledger and stream the answer.

    While a question is pending, the message answers it instead (when typed
    answers are allowed, or it names a choice).
    """
    session = await _session()
    if session is None:
        return
    if session.conversation.pending is not None:
        await _answer_by_text(session, message.content)
        return
    attachments = await _upload(session, message)
    if attachments is None:
        return
    client = lgos_client()
    await _stream(
        session,
        lambda view: session.conversation.ask(
            client,
            message.content,
            metadata=session.request_metadata(),
            listener=view,
            functions=session.functions,
            server_tools=session.server_tools,
            attachments=attachments,
            background=session.runs_in_background,
            poll_interval=get_settings().background_poll_interval,
        ),
    )


async def _upload(session: ChatSession, message: cl.Message) -> list[Attachment] | None:
    """Upload the message's attached files to the Files API.

    Returns:
        The uploaded attachments (IDs and names), or ``None`` when the turn
        must not be sent (an upload failed, or the model takes no files).

    """
    files = [element for element in message.elements or [] if element.path]
    if not files:
        return []
    if not session.accepts_files:
        await cl.ErrorMessage(
            content=f"**{session.model_id}** does not accept attachments; "
            "the message was not sent."
        ).send()
        return None
    attachments = []
    for element in files:
        name = element.name or "attachment"
        try:
            data = await asyncio.to_thread(Path(str(element.path)).read_bytes)
            attachments.append(
                await upload_attachment(
                    files_client(),
                    name,
                    data,
                    element.mime or "application/octet-stream",
                )
            )
        except (OSError, openai.OpenAIError) as exc:
            detail = (
                format_api_error(exc).replace("LGOS", "the Files API")
                if isinstance(exc, openai.OpenAIError)
                else str(exc)
            )
            logger.warning("Uploading %s failed: %s", name, detail)
            await cl.ErrorMessage(
                content=f"Uploading **{name}** failed: {detail} "
                "The message was not sent."
            ).send()
            return None
    return attachments


@cl.on_chat_end
async def end_chat() -> None:
    """Close the session's OpenAI client, once no turn uses it.

    Chainlit calls this on every disconnect, and a reconnecting browser may
    resume the session: the next callback then opens a new client. A turn
    still running (the browser went away mid-answer) finishes first, so its
    result is saved with the thread.
    """
    for key in (CLIENT_KEY, FILES_KEY):
        client: AsyncOpenAI | None = cl.user_session.get(key)
        cl.user_session.set(key, None)
        if client is None:
            continue
        task = cl.context.session.current_task
        if task is not None and not task.done():
            task.add_done_callback(
                lambda _, client=client: asyncio.ensure_future(client.close())
            )
            continue
        await client.close()


# --------------------------------------------------------------------------
# Interrupts
# --------------------------------------------------------------------------


async def _record(session: ChatSession, question: InterruptQuestion, text: str) -> None:
    """Keep one answer; resume once every question of the batch has one."""
    if not await record_answer(session, question, text):
        return
    client = lgos_client()
    await _stream(
        session,
        lambda view: session.conversation.resume(
            client,
            listener=view,
            functions=session.functions,
            background=session.runs_in_background,
            poll_interval=get_settings().background_poll_interval,
        ),
    )


async def _answer_by_text(session: ChatSession, text: str) -> None:
    pause = session.conversation.pending
    question = pause.next_question() if pause is not None else None
    if question is None:
        return
    answer = question.answer_for(text)
    if answer is None:
        choices = ", ".join(f"**{choice}**" for choice in question.choices)
        await cl.Message(
            content=f"This question takes one of the answers offered: {choices}."
        ).send()
        await ask_next(session, reminder=True)
        return
    await _record(session, question, answer)


@cl.action_callback(ANSWER_ACTION)
async def answer_button(action: cl.Action) -> None:
    """Answer a question with its choice button (a stale button does nothing)."""
    session: ChatSession | None = cl.user_session.get(SESSION_KEY)
    pause = session.conversation.pending if session is not None else None
    payload = action.payload
    question = pause.next_question() if pause is not None else None
    if (
        session is None
        or pause is None
        or question is None
        or payload.get("response_id") != pause.response_id
        or payload.get("call_id") != question.call_id
        or not isinstance(payload.get("answer"), str)
    ):
        await action.remove()
        return

    async def run() -> None:
        # Like a message: the composer shows the run, and Stop cancels it.
        await cl.context.emitter.task_start()
        try:
            await _record(session, question, payload["answer"])
        except asyncio.CancelledError:
            pass
        except Exception:
            logger.exception("Answering %s failed", question.call_id)
            await cl.ErrorMessage(content="Sending the answer failed.").send()
        finally:
            await cl.context.emitter.task_end()

    cl.context.session.current_task = asyncio.create_task(run())


@cl.action_callback(WRITE_ACTION)
async def write_button(action: cl.Action) -> None:
    """Say where to type an answer ("Edit plan"); a stale button goes away."""
    session: ChatSession | None = cl.user_session.get(SESSION_KEY)
    if session is None or not await prompt_typing(session, action.payload):
        await action.remove()
