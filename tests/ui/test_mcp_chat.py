"""MCP tools in the Chainlit chat: the notices and the tool steps, as the page gets them.

Chainlit's own ``Message`` and ``Step`` run in a Chainlit context whose
emitter records what the page is sent (``in_chainlit``, from
:mod:`tests.ui.chainlit_context`); the MCP server is a real FastMCP server
(:mod:`tests.ui.mcp_server`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from lgos_chainlit.mcp_chat import attach_mcp_tools, retry_mcp_tools
from lgos_chainlit.session import ChatSession
from lgos_chainlit.settings import get_settings
from lgos_chainlit.turn import TurnContext
from lgos_chainlit.view import ChainlitTurnView
from lgos_client.functions import FunctionCall
from tests.procs import free_port
from tests.ui.chainlit_context import in_chainlit
from tests.ui.mcp_model import model
from tests.ui.mcp_server import McpSite, serving_mcp

pytestmark = pytest.mark.anyio


@pytest.fixture
async def site() -> AsyncIterator[McpSite]:
    async with serving_mcp() as running:
        yield running


@pytest.fixture
def configure(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Set ``DEMO_CHAINLIT_MCP_URL`` (``None``: unset) for the UI's settings."""

    def set_url(url: str | None) -> None:
        if url is None:
            monkeypatch.delenv("DEMO_CHAINLIT_MCP_URL", raising=False)
        else:
            monkeypatch.setenv("DEMO_CHAINLIT_MCP_URL", url)
        monkeypatch.delenv("DEMO_CHAINLIT_MCP_API_KEY", raising=False)
        monkeypatch.setenv("DEMO_CHAINLIT_MCP_TIMEOUT", "5")
        get_settings.cache_clear()

    yield set_url
    get_settings.cache_clear()


def messages(shown: dict[str, dict[str, Any]]) -> list[str]:
    return [
        step["output"] for step in shown.values() if step["type"] == "assistant_message"
    ]


async def test_the_attached_server_and_tools_are_named(
    site: McpSite, configure: Any
) -> None:
    configure(site.url)
    session = ChatSession.from_model(model("mcp_tools"))

    _, shown = await in_chainlit(str(uuid.uuid4()), lambda: attach_mcp_tools(session))

    assert messages(shown) == [
        f"🔌 **MCP server** `{site.url}`: `convert_units`, `shout`, `explode`, "
        "`nap`, `notes_save` (`notes.save`), `mcp_roll_dice` (`roll_dice`)."
    ]
    assert len(session.functions) == 6


async def test_no_server_configured(configure: Any) -> None:
    configure(None)
    session = ChatSession.from_model(model("mcp_tools"))
    _, shown = await in_chainlit(str(uuid.uuid4()), lambda: attach_mcp_tools(session))
    [notice] = messages(shown)
    assert "**No MCP server configured**" in notice
    assert "`just demo --mcp`" in notice
    assert session.functions == ()


async def test_models_without_the_feature_hear_nothing(
    site: McpSite, configure: Any
) -> None:
    configure(site.url)
    session = ChatSession.from_model(model())
    _, shown = await in_chainlit(str(uuid.uuid4()), lambda: attach_mcp_tools(session))
    assert messages(shown) == []
    assert site.headers == []


async def test_a_late_server_is_attached_before_the_next_turn(configure: Any) -> None:
    port = free_port()
    configure(f"http://127.0.0.1:{port}/mcp")
    session = ChatSession.from_model(model("mcp_tools"))
    thread = str(uuid.uuid4())

    _, shown = await in_chainlit(thread, lambda: attach_mcp_tools(session))
    [notice] = messages(shown)
    assert "**unavailable** (cannot connect)" in notice
    assert session.functions == ()

    # Still down: the retry says nothing more.
    _, shown = await in_chainlit(thread, lambda: retry_mcp_tools(session))
    assert messages(shown) == []

    async with serving_mcp(port=port) as site:
        _, shown = await in_chainlit(thread, lambda: retry_mcp_tools(session))
        assert messages(shown) == [
            f"🔌 **MCP server** `{site.url}`: `convert_units`, `shout`, `explode`, "
            "`nap`, `notes_save` (`notes.save`), `mcp_roll_dice` (`roll_dice`)."
        ]
        assert len(session.functions) == 6


async def test_mcp_calls_are_tool_steps_naming_the_server(
    site: McpSite, configure: Any
) -> None:
    configure(site.url)
    session = ChatSession.from_model(model("mcp_tools", client_tools=("roll_dice",)))
    thread = str(uuid.uuid4())
    await in_chainlit(thread, lambda: attach_mcp_tools(session))
    view = ChainlitTurnView(functions=session.functions)
    turn = TurnContext(client=None, model="mcp", functions=session.functions)  # type: ignore[arg-type]
    label = site.url.split("/")[2]

    async def run(name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        call = FunctionCall(f"call_{name}", name, json.dumps(arguments))
        return await view.run_function(call, turn.runner(call))

    (output, ok), shown = await in_chainlit(
        thread, lambda: run("notes_save", {"text": "hello"})
    )
    assert ok, output
    [step] = [step for step in shown.values() if step["type"] == "tool"]
    assert step["name"] == f"Ran notes.save on MCP {label}"
    assert step["output"].startswith(
        f"**MCP tool** `notes.save` on `{site.url}`\n\n**Arguments** "
    )
    assert '"saved": "hello"' in step["output"]

    (output, ok), shown = await in_chainlit(
        thread, lambda: run("explode", {"reason": "x"})
    )
    assert not ok
    [step] = [step for step in shown.values() if step["type"] == "tool"]
    assert step["name"] == f"explode on MCP {label} failed"
    assert step["isError"] is True

    # The UI's own function keeps its plain step.
    (output, ok), shown = await in_chainlit(thread, lambda: run("roll_dice", {}))
    assert ok, output
    [step] = [step for step in shown.values() if step["type"] == "tool"]
    assert step["name"] == "Ran roll_dice"
