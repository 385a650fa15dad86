"""A new chat's opening survives a second socket before its first message.

Chainlit 2.12's page may connect twice for one new chat: its ``connect`` is
debounced per callback, and switching the chat profile changes that callback
more than once, so two connections with the same session id can follow each
other, the second closing the first. The server restores the session for the
second socket and, the chat having started, does not run ``on_chat_start``
again (its ``connection_successful`` handler), so whatever the opening had
sent to the first socket (the welcome line naming the model, its notice, the
chat settings) never reaches the page: a chat with no welcome and no
settings. Upstream Chainlit/chainlit#2535 reports the same symptom.

Importing this module wraps that handler. Until a chat's first interaction,
what its callbacks send to the page (``new_message`` and ``update_message``
steps, by message id, and the last ``chat_settings``) is noted; a restored
session that has started its chat but had no interaction yet gets them again
on its new socket. The page replaces a message whose id it already shows
(``addMessage`` in Chainlit's react client), so nothing shows twice.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import chainlit.socket  # noqa: F401 - its handlers are registered first
from chainlit.server import sio
from chainlit.session import WebsocketSession

__all__ = ["Opening", "connection_successful"]

logger = logging.getLogger(__name__)

_STEP_EVENTS = ("new_message", "update_message")

Emit = Callable[[str, Any], Awaitable[Any]]


class Opening:
    """What a chat sent its page before the first interaction.

    ``steps`` maps a message id to its latest step dict (Chainlit's
    ``StepDict``); ``settings`` is the last ``chat_settings`` payload (a list
    of input widget dicts), or ``None``.
    """

    def __init__(self) -> None:
        self.steps: dict[str, Any] = {}
        self.settings: Any = None

    def note(self, event: str, data: Any) -> None:
        """Keep ``data`` if ``event`` is part of the opening."""
        if event in _STEP_EVENTS and isinstance(data, dict) and data.get("id"):
            self.steps[str(data["id"])] = data
        elif event == "chat_settings":
            self.settings = data

    async def send_again(self, emit: Emit) -> int:
        """Emit the noted steps (as ``new_message``), then the settings; count steps."""
        for step in list(self.steps.values()):
            await emit("new_message", step)
        if self.settings is not None:
            await emit("chat_settings", self.settings)
        return len(self.steps)


_openings: weakref.WeakKeyDictionary[WebsocketSession, Opening] = (
    weakref.WeakKeyDictionary()
)


def _record(session: WebsocketSession) -> None:
    """Note the opening of ``session`` from what its current socket is sent."""
    opening = _openings.setdefault(session, Opening())
    emit: Emit = session.emit  # pyright: ignore[reportAssignmentType]

    def emit_and_note(event: str, data: Any) -> Awaitable[Any]:
        if not session.has_first_interaction:
            opening.note(event, data)
        return emit(event, data)

    session.emit = emit_and_note  # pyright: ignore[reportAttributeAccessIssue]


_chainlit_handler: Callable[[str], Awaitable[None]] = sio.handlers["/"][
    "connection_successful"
]


async def connection_successful(sid: str) -> None:
    """Chainlit's handler, then the opening again for a restored new chat.

    ``sid`` is the socket.io id of the connection that just opened.
    """
    session = WebsocketSession.get(sid)
    if session is None:
        await _chainlit_handler(sid)
        return
    opened_before = session.chat_started and not session.has_first_interaction
    if session.has_first_interaction:
        _openings.pop(session, None)
    else:
        _record(session)
    await _chainlit_handler(sid)
    opening = _openings.get(session)
    if not (session.restored and opened_before and opening is not None):
        return
    # Chainlit's handler set up the context of this session for this task.
    sent = await opening.send_again(session.emit)  # pyright: ignore[reportArgumentType]
    logger.info(
        "Session %s reconnected before its first message: its opening sent again "
        "(%d messages)",
        session.id,
        sent,
    )


sio.on("connection_successful", connection_successful)
