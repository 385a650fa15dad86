"""Server tools through the UI's conversation logic, against the demo in-process.

The ``server-tools`` graph (offline model, bundled corpus) runs the searches
and custom tools the request selects; the listener sees each
``web_search_call`` start and finish and each ``custom_tool_call`` with its
output, and the ledger with those items replays on the next turn.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from openai import AsyncOpenAI

from lgos_chainlit.model_catalog import (
    load_session,
)
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
        self.seen.append((item["type"], query or item.get("name", ""), done))


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
    # The reply names the switches the settings panel shows.
    labels = [widget.label for widget in session.widgets]
    assert labels == ["Web search", "lgos_graph_topology", "lgos_package_version"]
    for label in labels:
        assert label in again.answer


async def test_a_custom_tool_switched_on_is_selected_and_runs(
    client: AsyncOpenAI,
) -> None:
    session = await load_session(client, "server-tools")
    assert session.server_tools == [{"type": "web_search"}]
    session.update_settings(
        {"lgos_web_search": False, "lgos_tool_lgos_package_version": True}
    )
    assert session.server_tools == [{"type": "custom", "name": "lgos_package_version"}]
    tools = Tools()
    result = await session.conversation.ask(
        client,
        "Which pydantic version is installed?",
        listener=tools,
        server_tools=session.server_tools,
    )
    assert result.status == "completed"
    assert ("custom_tool_call", "lgos_package_version", True) in tools.seen
    kinds = [item.get("type", "message") for item in session.conversation.items]
    assert (
        kinds.count("custom_tool_call") == kinds.count("custom_tool_call_output") == 1
    )
    assert f"pydantic=={version('pydantic')}" in result.answer

    # Still on but nothing to run: the reply says what to ask, and that the
    # other switches are off.
    again = await session.conversation.ask(
        client, "Thanks!", listener=tools, server_tools=session.server_tools
    )
    assert "With lgos_package_version on, ask for a package version" in again.answer
    assert "lgos_graph_topology and Web search are off" in again.answer
