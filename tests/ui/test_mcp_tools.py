"""The UI's MCP client against a real FastMCP server over streamable HTTP.

Discovery, the function tools offered, calls (structured and text results,
tool errors, unknown tools, timeouts, a server gone), the key's headers,
the notices, and which models are offered the tools.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lgos_chainlit.mcp_tools import (
    McpServer,
    McpTool,
    function_name,
    function_step_labels,
)
from lgos_chainlit.mcp_toolset import McpToolset
from lgos_chainlit.session import ChatSession
from lgos_chainlit.settings import ChainlitSettings
from lgos_chainlit.turn import TurnContext
from lgos_client.functions import LOCAL_FUNCTIONS, ClientFunction, FunctionCall
from tests.procs import free_port
from tests.ui.mcp_model import model
from tests.ui.mcp_server import McpSite, serving_mcp

pytestmark = pytest.mark.anyio

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.fixture
async def site() -> AsyncIterator[McpSite]:
    async with serving_mcp() as running:
        yield running


async def discovered(site: McpSite, **server: Any) -> McpToolset:
    toolset = McpToolset(server=McpServer(url=site.url, **server))
    await toolset.discover(reserved=LOCAL_FUNCTIONS)
    assert toolset.error is None, toolset.error
    return toolset


def call(name: str, arguments: dict[str, Any] | str) -> FunctionCall:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return FunctionCall(call_id=f"call_{name}", name=name, arguments=text)


def by_name(toolset: McpToolset) -> dict[str, McpTool]:
    return {tool.name: tool for tool in toolset.tools}


async def test_discovery_offers_every_tool_as_a_function_tool(site: McpSite) -> None:
    toolset = await discovered(site)

    names = [tool.name for tool in toolset.tools]
    assert names == [
        "convert_units",
        "shout",
        "explode",
        "nap",
        "notes_save",
        "mcp_roll_dice",
    ]
    assert [tool.mcp_name for tool in toolset.tools][-2:] == ["notes.save", "roll_dice"]
    assert all(OPENAI_NAME.match(name) for name in names)
    convert = by_name(toolset)["convert_units"].tool()
    assert convert["type"] == "function"
    assert convert["strict"] is False
    assert convert["description"] == "Convert a distance between miles and kilometres."
    assert convert["parameters"]["type"] == "object"
    assert convert["parameters"]["required"] == ["value", "from_unit", "to_unit"]
    assert convert["parameters"]["properties"]["value"]["type"] == "number"
    assert isinstance(by_name(toolset)["notes_save"], ClientFunction)


async def test_structured_and_text_results(site: McpSite) -> None:
    tools = by_name(await discovered(site))

    output, ok = await tools["convert_units"].execute(
        call("convert_units", {"value": 5, "from_unit": "mi", "to_unit": "km"})
    )
    assert ok
    assert output == '{"value":8.047,"unit":"km"}'

    output, ok = await tools["shout"].execute(call("shout", {"text": "hi there"}))
    assert (output, ok) == ("HI THERE", True)

    # The sanitized name is mapped back to the MCP name on the call.
    output, ok = await tools["notes_save"].execute(call("notes_save", {"text": "a"}))
    assert ok
    assert json.loads(output) == {"saved": "a", "count": 1}


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("explode", {"reason": "on purpose"}, "exploded: on purpose"),
        ("convert_units", {"value": 1, "from_unit": "mi", "to_unit": "l"}, "cannot"),
        ("convert_units", {"value": "far"}, "validation error"),
        ("convert_units", "not json", "convert_units failed"),
        ("convert_units", "[1]", "not a JSON object"),
    ],
)
async def test_tool_errors_become_error_outputs(
    site: McpSite, name: str, arguments: Any, error: str
) -> None:
    tools = by_name(await discovered(site))
    output, ok = await tools[name].execute(call(name, arguments))
    assert not ok
    assert error in json.loads(output)["error"]


async def test_an_unknown_tool_is_an_error_output(site: McpSite) -> None:
    server = McpServer(url=site.url)
    gone = McpTool("vanished", "vanished", "Gone.", {"type": "object"}, server)
    output, ok = await gone.execute(call("vanished", {}))
    assert not ok
    assert "vanished" in json.loads(output)["error"]

    # A name the turn never offered does not reach the server at all.
    turn = TurnContext(client=None, model="mcp", functions=(gone,))  # type: ignore[arg-type]
    output, ok = await turn.runner(call("nope", {}))()
    assert (json.loads(output), ok) == ({"error": "unknown function 'nope'"}, False)


async def test_a_call_that_takes_too_long_is_an_error_output(site: McpSite) -> None:
    tools = by_name(await discovered(site, timeout=0.5))
    output, ok = await tools["nap"].execute(call("nap", {"seconds": 5}))
    assert not ok
    error = json.loads(output)["error"]
    assert error.startswith(f"nap failed on {site.url}:"), error
    # The session is free again afterwards.
    assert (await tools["nap"].execute(call("nap", {"seconds": 0})))[1]


async def test_a_server_stopped_mid_session_gives_error_outputs(site: McpSite) -> None:
    toolset = await discovered(site)
    await site.stop()

    output, ok = await by_name(toolset)["shout"].execute(call("shout", {"text": "x"}))
    assert not ok
    assert json.loads(output) == {
        "error": f"shout failed on {site.url}: cannot connect"
    }

    await toolset.discover()
    assert toolset.failed
    assert toolset.tools == ()
    assert toolset.notice() == (
        f"⚠️ **MCP server** `{site.url}` **unavailable** (cannot connect): "
        "chatting without its tools; your next message tries again."
    )


async def test_the_key_reaches_the_server() -> None:
    async with serving_mcp(key="sk-test") as site:
        toolset = await discovered(site, api_key="sk-test")
        assert (await by_name(toolset)["shout"].execute(call("shout", {"text": "k"})))[
            1
        ]
        assert site.headers
        for headers in site.headers:
            assert headers["authorization"] == "Bearer sk-test"
            assert headers["x-litellm-api-key"] == "Bearer sk-test"

        refused = McpToolset(server=McpServer(url=site.url))
        await refused.discover()
        assert refused.error == "HTTP 401 Unauthorized"


async def test_no_key_no_authorization_header(site: McpSite) -> None:
    await discovered(site)
    assert site.headers
    assert not any("authorization" in headers for headers in site.headers)


async def test_notices(site: McpSite) -> None:
    toolset = await discovered(site)
    assert toolset.notice() == (
        f"🔌 **MCP server** `{site.url}`: `convert_units`, `shout`, `explode`, "
        "`nap`, `notes_save` (`notes.save`), `mcp_roll_dice` (`roll_dice`)."
    )
    assert McpToolset().notice() == (
        "🔌 **No MCP server configured**: this model can use MCP tools; start "
        "the demo with `just demo --mcp` or set `DEMO_CHAINLIT_MCP_URL`."
    )
    unreachable = McpToolset(
        server=McpServer(url=f"http://127.0.0.1:{free_port()}/mcp", timeout=5)
    )
    await unreachable.discover()
    assert unreachable.failed
    assert "**unavailable** (cannot connect)" in unreachable.notice()
    wrong_path = McpToolset(server=McpServer(url=site.url.replace("/mcp", "/v1")))
    await wrong_path.discover()
    assert wrong_path.error == (
        "MCP error: Session terminated (HTTP 404: is the URL the MCP endpoint?)"
    )


async def test_a_late_server_is_found_on_the_next_discovery() -> None:
    async with serving_mcp() as site:
        url = site.url
    toolset = McpToolset(server=McpServer(url=url, timeout=5))
    await toolset.discover()
    assert toolset.failed
    async with serving_mcp() as site:
        toolset.server = McpServer(url=site.url)
        await toolset.discover()
        assert not toolset.failed
        assert len(toolset.tools) == 6


async def test_only_mcp_models_are_offered_mcp_tools(site: McpSite) -> None:
    with_mcp = ChatSession.from_model(model("mcp_tools", client_tools=("roll_dice",)))
    without = ChatSession.from_model(model(client_tools=("roll_dice",)))
    assert with_mcp.offers_mcp_tools
    assert not without.offers_mcp_tools
    for session in (with_mcp, without):
        session.mcp = McpToolset(server=McpServer(url=site.url))
        await session.mcp.discover(session.reserved_function_names)

    # The UI's own roll_dice keeps its name; the server's is renamed.
    assert [f.name for f in with_mcp.functions] == [
        "roll_dice",
        "convert_units",
        "shout",
        "explode",
        "nap",
        "notes_save",
        "mcp_roll_dice",
    ]
    assert [f.name for f in without.functions] == ["roll_dice"]


def test_function_names() -> None:
    assert function_name("convert_units", ()) == "convert_units"
    assert function_name("notes.save/v1", ()) == "notes_save_v1"
    assert function_name("display_file", {"display_file"}) == "mcp_display_file"
    assert (
        function_name("roll_dice", {"roll_dice", "mcp_roll_dice"}) == "mcp_roll_dice_2"
    )
    long = function_name("x" * 128, ())
    assert long == "x" * 64
    clash = function_name("x" * 128, {"x" * 64, "mcp_" + "x" * 60})
    assert clash == "mcp_" + "x" * 58 + "_2"
    assert OPENAI_NAME.match(clash)
    assert function_name("ü", ()) == "_"
    assert function_name("", ()) == "tool"


def test_settings_and_step_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_CHAINLIT_MCP_URL", "")
    assert McpServer.from_settings(ChainlitSettings()) is None
    monkeypatch.setenv("DEMO_CHAINLIT_MCP_URL", "http://127.0.0.1:4000/mcp")
    monkeypatch.setenv("DEMO_CHAINLIT_MCP_API_KEY", "sk-1")
    monkeypatch.setenv("DEMO_CHAINLIT_MCP_TIMEOUT", "7")
    server = McpServer.from_settings(ChainlitSettings())
    assert server == McpServer("http://127.0.0.1:4000/mcp", "sk-1", 7.0)
    assert server is not None
    assert "sk-1" not in repr(server)

    tool = McpTool("notes_save", "notes.save", "Save.", {"type": "object"}, server)
    assert function_step_labels("notes_save", {"notes_save": tool}) == (
        "notes.save on MCP 127.0.0.1:4000",
        "**MCP tool** `notes.save` on `http://127.0.0.1:4000/mcp`\n\n",
    )
    assert function_step_labels("roll_dice", {"notes_save": tool}) == ("roll_dice", "")
