"""Server tools through the UI's conversation logic, against the demo in-process.

The ``server-tools`` graph (offline model, bundled corpus) runs the searches
the request selects; the listener sees each ``web_search_call`` start and
finish, and the ledger with those items replays on the next turn.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI

from lgos_chainlit.session import load_session
from lgos_chainlit.turn_listener import TurnListener

pytestmark = pytest.mark.anyio


@pytest.fixture
def client(demo_client: AsyncOpenAI) -> AsyncOpenAI:
    """The OpenAI SDK on the in-process offline demo (root conftest)."""
    return demo_client


class Tools(TurnListener):
    def __init__(self) -> None:
        self.seen: list[tuple[str, str, bool]] = []

    async def on_server_tool(self, item: dict[str, Any], *, done: bool) -> None:
        query = (item.get("action") or {}).get("query", "")
        self.seen.append((item["type"], query, done))


async def test_web_search_is_selected_shown_and_replayed(client: AsyncOpenAI) -> None:
    session = await load_session(client, "server-tools")
    assert session.offers_web_search and session.web_search
    assert session.server_tools == [{"type": "web_search"}]
    conversation = session.conversation
    tools = Tools()
    result = await conversation.ask(
        client,
        "Search: LangGraph streaming, LangGraph interrupts",
        listener=tools,
        server_tools=session.server_tools,
    )
    assert result.status == "completed"
    done = [(q, d) for kind, q, d in tools.seen if kind == "web_search_call" and d]
    assert sorted(q for q, _ in done) == ["LangGraph interrupts", "LangGraph streaming"]
    started = [s for s in tools.seen if not s[2]]
    assert len(started) == 2
    kinds = [item.get("type", "message") for item in conversation.items]
    assert kinds.count("web_search_call") == 2
    assert result.answer_parts and result.answer_parts[0].citations

    # Switched off: no tool is sent, and the replayed searches are accepted.
    session.update_settings({"lgos_web_search": False})
    assert session.server_tools == []
    again = await conversation.ask(
        client, "Thanks!", listener=tools, server_tools=session.server_tools
    )
    assert again.status == "completed"
    assert "No tool ran" in again.answer
