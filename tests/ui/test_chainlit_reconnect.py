"""A new chat whose page connects twice still shows its welcome and settings.

Switching the chat profile in Chainlit 2.12's page can open two sockets for
the one new session, the second closing the first; Chainlit restores the
session for the second and does not run ``on_chat_start`` again, so what the
opening sent to the first socket is lost (seen in CI as a chat with no
welcome line after a profile switch). :mod:`lgos_chainlit.reconnect` sends it
again. Chainlit's real ``WebsocketSession``, context, emitter and socket
handler run; each page is a recorder of what Chainlit emits to its socket;
the model comes from the demo API in process.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from chainlit.session import WebsocketSession
from chainlit.user_session import user_sessions

from lgos_chainlit import reconnect
from tests.ui.in_process import Page

pytestmark = pytest.mark.anyio

MODEL = "chat"
"""A model with runtime settings (its temperature), so the opening has some."""


def messages(page: Page) -> list[dict[str, Any]]:
    return [data for event, data in page.events if event == "new_message"]


def shown(page: Page) -> dict[str, dict[str, Any]]:
    """What the page shows: each message by id, as last sent or updated."""
    return {
        data["id"]: data
        for event, data in page.events
        if event in ("new_message", "update_message")
    }


def settings(page: Page) -> list[Any]:
    return [data for event, data in page.events if event == "chat_settings"]


class Browser:
    """One Chainlit session and the sockets its page opened, in order."""

    def __init__(self) -> None:
        self.pages: list[Page] = []
        self.session: WebsocketSession | None = None

    def connect(self) -> Page:
        """Chainlit's ``connect`` handler: a new session, or the same one restored."""
        page = Page(f"sid-{uuid.uuid4().hex[:8]}")
        self.pages.append(page)
        if self.session is None:
            self.session = WebsocketSession(
                id=str(uuid.uuid4()),
                socket_id=page.socket_id,
                emit=page.emit,  # pyright: ignore[reportArgumentType]
                emit_call=page.emit_call,
                user_env={},
                client_type="webapp",
                chat_profile=MODEL,
            )
        else:
            self.session.restore(new_socket_id=page.socket_id)
            self.session.emit = page.emit  # pyright: ignore[reportAttributeAccessIssue]
            self.session.emit_call = page.emit_call
        return page

    async def opened(self) -> None:
        """Wait for the chat's ``on_chat_start`` task."""
        assert self.session is not None and self.session.current_task is not None
        await self.session.current_task


@pytest.fixture
async def browser(app: ModuleType) -> AsyncIterator[Browser]:
    made = Browser()
    yield made
    if made.session is not None:
        # Close the chat's clients the way Chainlit does when the page goes.
        user_sessions.pop(made.session.id, None)
        await made.session.delete()


async def test_a_second_socket_gets_the_opening_again(browser: Browser) -> None:
    first = browser.connect()
    await reconnect.connection_successful(first.socket_id)
    await browser.opened()
    opening = messages(first)
    said = [m["output"] for m in opening if m["type"] == "assistant_message"]
    assert said[0].startswith(f"**{MODEL}** —")
    assert settings(first), "the opening sent the model's settings"

    second = browser.connect()
    await reconnect.connection_successful(second.socket_id)

    # The same messages as last sent (by id: the page replaces one it has),
    # and the same settings widgets.
    assert shown(second) == shown(first)
    assert len(messages(second)) == len(opening)
    assert settings(second) == settings(first)[-1:]


async def test_chainlit_alone_sends_the_second_socket_nothing(
    browser: Browser,
) -> None:
    """What the wrapper is for: Chainlit's own handler leaves the page blank."""
    first = browser.connect()
    await reconnect.connection_successful(first.socket_id)
    await browser.opened()

    second = browser.connect()
    await reconnect._chainlit_handler(second.socket_id)

    assert messages(second) == []
    assert settings(second) == []


async def test_after_the_first_message_a_reconnect_sends_no_opening(
    browser: Browser,
) -> None:
    first = browser.connect()
    await reconnect.connection_successful(first.socket_id)
    await browser.opened()
    assert browser.session is not None
    browser.session.has_first_interaction = True

    second = browser.connect()
    await reconnect.connection_successful(second.socket_id)

    assert messages(second) == []
    assert settings(second) == []
