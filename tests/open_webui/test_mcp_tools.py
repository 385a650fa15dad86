"""MCP tools in the Open WebUI pipe, against the real demo MCP server.

Open WebUI connects the MCP servers a chat selected and hands a pipe their
tools in ``__tools__`` (``type`` ``mcp``, a ``spec`` named
``<server id>_<tool>`` and a ``callable``). Here each callable runs
``tools/call`` with the official MCP client on the real demo server
(``python -m lgos_demo_api.mcp_server``) and returns what Open WebUI's own
MCP client returns: the result's content blocks, or an exception for an
``isError`` result. The pipe talks to the in-process offline demo API.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.demo.mcp_helpers import McpServer, mcp_server, mcp_session
from tests.open_webui.conftest import lgos_pipe
from tests.open_webui.pipe_events import Events

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

SERVER_ID = "lgos-demo"


@pytest.fixture(scope="module")
def demo_mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    with mcp_server(tmp_path_factory.mktemp("owui-mcp")) as server:
        yield server


async def open_webui_tools(server: McpServer) -> dict[str, Any]:
    """``__tools__`` as Open WebUI 0.12 builds it for an attached MCP server."""
    async with mcp_session(server.url) as session:
        listing = (await session.list_tools()).tools

    def caller(name: str) -> Any:
        async def call(**arguments: Any) -> list[dict[str, Any]]:
            async with mcp_session(server.url) as session:
                result = await session.call_tool(name, arguments)
            blocks = [block.model_dump(mode="json") for block in result.content]
            if result.isError:
                texts = [b["text"] for b in blocks if b.get("type") == "text"]
                raise RuntimeError(
                    "\n".join(texts) or "MCP tool call returned an error."
                )
            return blocks

        return call

    return {
        f"{SERVER_ID}_{tool.name}": {
            "spec": {
                "name": f"{SERVER_ID}_{tool.name}",
                "description": tool.description,
                "parameters": tool.inputSchema,
            },
            "callable": caller(tool.name),
            "type": "mcp",
            "direct": False,
        }
        for tool in listing
    }


async def run_with_tools(
    pipe: Any, model: str, text: str, events: Events, tools: dict[str, Any]
) -> str:
    await pipe.discover()
    gen = pipe.pipe(
        {"model": f"lgos.{model}", "messages": [{"role": "user", "content": text}]},
        __user__={"valves": pipe.UserValves()},
        __event_emitter__=events.emit,
        __event_call__=events.call,
        __chat_id__="chat-mcp",
        __tools__=tools,
    )
    return "".join([part async for part in gen])


def saved_notes(server: McpServer) -> str:
    return server.notes_path.read_text() if server.notes_path.exists() else ""


async def test_the_mcp_graph_runs_the_attached_tools(
    pipe: Any, demo_mcp: McpServer
) -> None:
    tools = await open_webui_tools(demo_mcp)
    events = Events()
    text = await run_with_tools(
        pipe, "mcp", "Convert 5 miles to km and save it as a note", events, tools
    )
    statuses = [s["description"] for s in events.of("status")]
    ran = [s for s in statuses if s.startswith("Ran ") and " on MCP → " in s]
    assert [s.split("(", 1)[0] for s in ran] == [
        f"Ran {SERVER_ID}_convert_units",
        f"Ran {SERVER_ID}_save_note",
    ]
    assert "8.047" in ran[0]
    # The status lines end with one closing line, marked done, that counts them.
    *steps, closing = events.of("status")
    assert closing == {
        "description": f"Done after {len(steps)} steps",
        "done": True,
        "hidden": False,
    }
    assert not any(step["done"] for step in steps)
    # The note is on the server, and the answer comes from both results.
    assert "8.047" in saved_notes(demo_mcp)
    assert "8.047" in text
    # The next turn replays the calls and their outputs (the stored items).
    record = pipe.store().answer("chat-mcp", text)
    kinds = [item.get("type") for item in record["items"]]
    assert kinds.count("function_call") == kinds.count("function_call_output") == 2


async def test_a_failing_tool_goes_back_to_the_graph(
    pipe: Any, demo_mcp: McpServer
) -> None:
    tools = await open_webui_tools(demo_mcp)
    events = Events()
    text = await run_with_tools(pipe, "mcp", "Convert 5 kg to km", events, tools)
    failed = [
        s["description"]
        for s in events.of("status")
        if s["description"].startswith("Failed ")
    ]
    assert len(failed) == 1
    output = failed[0].split(" on MCP → ", 1)[1]
    assert "Cannot convert kg (mass) to km (length)" in json.loads(output)["error"]
    # The turn is not broken: the graph answers from the error it was sent.
    assert "Cannot convert kg (mass) to km (length)" in text


async def test_models_without_the_feature_are_not_offered_them(
    pipe: Any, demo_mcp: McpServer
) -> None:
    tools = await open_webui_tools(demo_mcp)
    called: list[str] = []
    for entry in tools.values():
        real = entry["callable"]

        async def spy(_real: Any = real, **arguments: Any) -> Any:
            called.append(json.dumps(arguments))
            return await _real(**arguments)

        entry["callable"] = spy
    events = Events()
    text = await run_with_tools(
        pipe, "chat", "Convert 5 miles to km and save it as a note", events, tools
    )
    assert 'You said: "Convert 5 miles to km' in text
    assert called == []


def test_only_mcp_entries_are_taken() -> None:
    async def call(**_arguments: Any) -> list[dict[str, Any]]:
        return []

    tools = {
        "web_search": {"spec": {"name": "web_search"}, "callable": call},
        "lgos-demo_convert_units": {
            "spec": {"name": "lgos-demo_convert_units", "parameters": None},
            "callable": call,
            "type": "mcp",
        },
        "roll_dice": {"spec": {"name": "roll_dice"}, "callable": call, "type": "mcp"},
        "broken": {"spec": "not a spec", "callable": call, "type": "mcp"},
    }
    found = lgos_pipe.mcp_tools_from(tools, reserved={"roll_dice"})
    assert list(found) == ["lgos-demo_convert_units"]
    assert found["lgos-demo_convert_units"].tool() == {
        "type": "function",
        "name": "lgos-demo_convert_units",
        "description": "MCP tool lgos-demo_convert_units",
        "parameters": {"type": "object", "properties": {}},
        "strict": False,
    }


def test_result_text() -> None:
    assert (
        lgos_pipe.mcp_result_text(
            [
                {"type": "text", "text": '{"km": 8.047}'},
                {"type": "image", "mimeType": "image/png", "data": "..."},
            ]
        )
        == '{"km": 8.047}\n[image image/png]'
    )
    assert lgos_pipe.mcp_result_text({"km": 8.047}) == '{"km":8.047}'
