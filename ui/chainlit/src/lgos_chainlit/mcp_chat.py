"""The chat's MCP tools in Chainlit: find them, and say which are attached.

A chat with a model whose ``lgos.features`` list ``mcp_tools`` lists the
tools of the configured MCP server (``DEMO_CHAINLIT_MCP_URL``) when it opens
(chat start, model switch, thread resume) and shows one message saying which
server and tools are attached, that none is configured, or that the server
could not be reached; a failed discovery is tried again before each turn.
These messages say how things stand now, so they are shown but never saved
with the thread (:data:`~lgos_chainlit.persistence.TRANSIENT`): a reopened
thread shows the current one instead of one more per opening.
The tools are kept in the chat's :class:`~lgos_chainlit.session.ChatSession`
(see :mod:`lgos_chainlit.mcp_toolset`).

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

import logging

import chainlit as cl

from lgos_chainlit.literal_text import protect_markdown
from lgos_chainlit.mcp_tools import McpServer
from lgos_chainlit.mcp_toolset import McpToolset
from lgos_chainlit.persistence import TRANSIENT
from lgos_chainlit.session import ChatSession
from lgos_chainlit.settings import get_settings

__all__ = ["attach_mcp_tools", "retry_mcp_tools", "show_mcp_notice"]

logger = logging.getLogger(__name__)


async def attach_mcp_tools(session: ChatSession, *, notify: bool = True) -> None:
    """Find the configured MCP server's tools for the chat; show the notice.

    Does nothing for a model without the ``mcp_tools`` feature. Never raises
    for an unreachable server: the notice says so and the model chats
    without the tools. A reopened thread passes ``notify=False`` and shows
    the notice with :func:`show_mcp_notice` once the browser has drawn the
    thread's history (which would replace a message shown before it).
    """
    if not session.offers_mcp_tools:
        return
    session.mcp = McpToolset(server=McpServer.from_settings(get_settings()))
    await session.mcp.discover(session.reserved_function_names)
    if session.mcp.failed:
        logger.warning("MCP discovery failed: %s", session.mcp.error)
    if notify:
        await show_mcp_notice(session)


async def retry_mcp_tools(session: ChatSession) -> None:
    """Try a failed discovery again before a turn; say so once it works.

    A discovery that fails again stays quiet (the first notice said the
    next message tries again).
    """
    if not session.offers_mcp_tools or not session.mcp.failed:
        return
    await session.mcp.discover(session.reserved_function_names)
    if session.mcp.failed:
        logger.info("MCP discovery failed again: %s", session.mcp.error)
        return
    await show_mcp_notice(session)


async def show_mcp_notice(session: ChatSession) -> None:
    """Show the chat's MCP notice (not saved with the thread), if it has one."""
    if not session.offers_mcp_tools:
        return
    await cl.Message(
        content=protect_markdown(session.mcp.notice()), metadata={TRANSIENT: True}
    ).send()
