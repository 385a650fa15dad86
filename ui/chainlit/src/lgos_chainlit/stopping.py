"""The Stop button without Chainlit's "Task manually stopped." message.

Chainlit 2.12's socket handler for Stop posts a message "Task manually
stopped." before it cancels the running task; the UI then says itself what
the Stop did (one line: what was dropped, whether a question still waits;
see :func:`lgos_chainlit.rendering.stopped_note`), so a stopped background
run showed three messages. Importing this module registers :func:`stop` in
its place: the same handler (cancel the session's task, call ``on_stop``),
without that message.
"""

from __future__ import annotations

import chainlit.socket  # noqa: F401 - its handlers are registered first
from chainlit.config import config
from chainlit.context import init_ws_context
from chainlit.server import sio
from chainlit.session import WebsocketSession

__all__ = ["stop"]


async def stop(sid: str) -> None:
    """Cancel the session's running task (Chainlit's handler, less its message)."""
    if session := WebsocketSession.get(sid):
        init_ws_context(session)
        if session.current_task:
            session.current_task.cancel()
        if config.code.on_stop:
            await config.code.on_stop()


sio.on("stop", stop)
