"""The demo MCP server over the real protocol: tools, notes, health, Host checks.

The server runs as `python -m lgos_demo_api.mcp_server` on a free loopback
port with a temporary notes file; the tests talk to it with the official
`mcp` client (streamable HTTP), as the UI and the gateway do.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.types import CallToolResult, TextContent

from lgos_demo_api.mcp_server.settings import McpServerSettings
from lgos_demo_api.mcp_server.units import ConversionError, convert
from lgos_demo_api.search.corpus import OfflineSearchBackend
from tests.demo.mcp_helpers import McpServer, mcp_server, mcp_session
from tests.procs import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    with mcp_server(tmp_path_factory.mktemp("mcp")) as running:
        yield running


def text_of(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


async def call(server: McpServer, name: str, **arguments: Any) -> CallToolResult:
    async with mcp_session(server.url) as session:
        return await session.call_tool(name, arguments)


async def test_tools_are_listed_with_typed_described_schemas(server: McpServer) -> None:
    async with mcp_session(server.url) as session:
        listed = (await session.list_tools()).tools
    tools = {tool.name: tool for tool in listed}
    assert list(tools) == ["convert_units", "save_note", "list_notes", "search_corpus"]
    convert_schema = tools["convert_units"].inputSchema
    assert convert_schema["required"] == ["value", "from_unit", "to_unit"]
    props = convert_schema["properties"]
    assert props["value"]["type"] == "number"
    assert {"mi", "km", "lb", "C", "F", "K", "gal"} <= set(props["from_unit"]["enum"])
    assert props["from_unit"]["enum"] == props["to_unit"]["enum"]
    assert tools["save_note"].inputSchema["required"] == ["text"]
    assert "required" not in tools["list_notes"].inputSchema
    limit = tools["search_corpus"].inputSchema["properties"]["limit"]
    assert (limit["default"], limit["minimum"], limit["maximum"]) == (3, 1, 10)
    for tool in listed:
        assert tool.description and not tool.description.startswith(" ")
        assert "\n        " not in tool.description  # dedented docstrings
        for name, schema in tool.inputSchema["properties"].items():
            assert schema.get("description"), (tool.name, name)
        assert tool.outputSchema is not None
        assert "text" in tool.outputSchema["properties"]


@pytest.mark.parametrize(
    ("value", "source", "target", "result", "text"),
    [
        (5, "mi", "km", 8.04672, "5 mi = 8.047 km"),
        (100, "C", "F", 212.0, "100 °C = 212 °F"),
        (0, "K", "C", -273.15, "0 K = -273.15 °C"),
        (2, "gal", "l", 7.570823568, "2 gal = 7.571 l"),
        (1, "lb", "oz", 16.0, "1 lb = 16 oz"),
    ],
)
async def test_convert_units_returns_structured_content_and_text(
    server: McpServer,
    value: float,
    source: str,
    target: str,
    result: float,
    text: str,
) -> None:
    answer = await call(
        server, "convert_units", value=value, from_unit=source, to_unit=target
    )
    assert answer.isError is False
    expected = {
        "value": value,
        "from_unit": source,
        "to_unit": target,
        "result": pytest.approx(result),
        "text": text,
    }
    assert answer.structuredContent == expected
    assert json.loads(text_of(answer)) == expected


async def test_other_dimensions_are_a_tool_error(server: McpServer) -> None:
    answer = await call(server, "convert_units", value=5, from_unit="mi", to_unit="kg")
    assert answer.isError is True
    assert "Cannot convert mi (length) to kg (mass)" in text_of(answer)
    frozen = await call(server, "convert_units", value=-300, from_unit="C", to_unit="K")
    assert frozen.isError is True
    assert "below absolute zero" in text_of(frozen)
    unknown = await call(
        server, "convert_units", value=1, from_unit="parsec", to_unit="m"
    )
    assert unknown.isError is True


def test_conversion_rules_without_a_server() -> None:
    assert convert(1, "km", "mi").text == "1 km = 0.6214 mi"
    assert convert(-40, "F", "C").result == -40
    with pytest.raises(ConversionError, match="same thing"):
        convert(1, "l", "kg")


async def test_notes_are_saved_and_listed_newest_first(server: McpServer) -> None:
    first = await call(server, "save_note", text="5 mi = 8.047 km")
    assert first.isError is False
    assert first.structuredContent is not None
    note = first.structuredContent["note"]
    assert note["title"] == "5 mi = 8.047 km"  # derived from the text
    assert (
        first.structuredContent["text"]
        == f'Saved note {note["id"]}: "5 mi = 8.047 km".'
    )
    second = await call(server, "save_note", text="Buy milk", title="Shopping")
    assert second.structuredContent is not None
    assert second.structuredContent["note"]["id"] == note["id"] + 1
    assert second.structuredContent["note"]["title"] == "Shopping"

    listed = await call(server, "list_notes")
    assert listed.structuredContent is not None
    ids = [n["id"] for n in listed.structuredContent["notes"]]
    assert ids[:2] == [note["id"] + 1, note["id"]]
    assert listed.structuredContent["text"].startswith(f"{len(ids)} notes: ")
    filtered = await call(server, "list_notes", query="MILK")
    assert filtered.structuredContent is not None
    assert [n["text"] for n in filtered.structuredContent["notes"]] == ["Buy milk"]
    assert filtered.structuredContent["text"] == '1 note matching "MILK": #' + (
        f"{note['id'] + 1} Buy milk"
    )
    nothing = await call(server, "list_notes", query="no such words")
    assert nothing.structuredContent is not None
    assert nothing.structuredContent["notes"] == []
    blank = await call(server, "save_note", text="   ")
    assert blank.isError is True
    assert "needs some text" in text_of(blank)
    # Summaries keep text as written (they went out as \u00b0 escapes).
    cafe = await call(server, "save_note", text="Café at 5 °C")
    assert cafe.structuredContent is not None
    assert cafe.structuredContent["text"].endswith(': "Café at 5 °C".')
    found = await call(server, "list_notes", query="café")
    assert found.structuredContent is not None
    assert found.structuredContent["text"].startswith('1 note matching "café"')
    on_disk = json.loads(server.notes_path.read_text())
    assert {n["text"] for n in on_disk["notes"]} >= {"5 mi = 8.047 km", "Buy milk"}


async def test_concurrent_saves_keep_every_note(server: McpServer) -> None:
    async with mcp_session(server.url) as session:
        results = await asyncio.gather(
            *(session.call_tool("save_note", {"text": f"burst {i}"}) for i in range(20))
        )
    ids = [r.structuredContent["note"]["id"] for r in results if r.structuredContent]
    assert len(set(ids)) == 20
    stored = json.loads(server.notes_path.read_text())["notes"]
    assert {f"burst {i}" for i in range(20)} <= {n["text"] for n in stored}
    assert len({n["id"] for n in stored}) == len(stored)
    assert not list(server.notes_path.parent.glob("*.tmp"))


async def test_notes_survive_a_restart(tmp_path: Path) -> None:
    with mcp_server(tmp_path) as first:
        saved = await call(first, "save_note", text="Remember the milk")
        assert saved.isError is False
    with mcp_server(tmp_path) as again:
        listed = await call(again, "list_notes")
        assert listed.structuredContent is not None
        assert [n["text"] for n in listed.structuredContent["notes"]] == [
            "Remember the milk"
        ]
        more = await call(again, "save_note", text="and the eggs")
        assert more.structuredContent is not None
        assert more.structuredContent["note"]["id"] == 2


async def test_search_corpus_returns_the_offline_search_passages(
    server: McpServer,
) -> None:
    answer = await call(server, "search_corpus", query="checkpointer subgraph", limit=2)
    assert answer.isError is False
    content = answer.structuredContent
    assert content is not None
    expected = await OfflineSearchBackend("http://127.0.0.1:8002").search(
        "checkpointer subgraph", max_results=2
    )
    assert [(r["title"], r["url"], r["snippet"]) for r in content["results"]] == [
        (r.title, r.url, r.snippet) for r in expected
    ]
    assert len(content["results"]) == 2
    assert content["results"][0]["url"].startswith("http://127.0.0.1:8002/pages/")
    links = "; ".join(f"[{r.title}]({r.url})" for r in expected)
    assert content["text"] == (
        f"Found 2 passages for 'checkpointer subgraph': {links}."
    )
    none = await call(server, "search_corpus", query="zzzzqqqq")
    assert none.structuredContent is not None
    assert none.structuredContent["results"] == []


def test_health(server: McpServer) -> None:
    answer = httpx.get(f"{server.base_url}/health")
    assert (answer.status_code, answer.json()) == (200, {"status": "ok"})


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example", 421),
        ("evil.example:8005", 421),
        ("mcp:8005", 200),
        ("localhost:8005", 200),
    ],
)
def test_host_header_is_checked(server: McpServer, host: str, status: int) -> None:
    answer = httpx.post(
        server.url, json=INITIALIZE, headers={**MCP_HEADERS, "host": host}
    )
    assert answer.status_code == status, answer.text


def test_settings_defaults_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HOST", "PORT", "NOTES_PATH", "ALLOWED_HOSTS", "CORPUS_BASE_URL"):
        monkeypatch.delenv(f"DEMO_MCP_{name}", raising=False)
    defaults = McpServerSettings(_env_file=None)  # type: ignore[call-arg]
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8005)
    assert defaults.notes_path == ROOT / ".data" / "mcp" / "notes.json"
    assert defaults.allowed_hosts == ["mcp:*"]
    monkeypatch.setenv("DEMO_MCP_ALLOWED_HOSTS", "mcp:8005,gateway:*")
    monkeypatch.setenv("DEMO_MCP_PORT", "9005")
    configured = McpServerSettings(_env_file=None)  # type: ignore[call-arg]
    assert configured.allowed_hosts == ["mcp:8005", "gateway:*"]
    assert configured.port == 9005


def test_allowed_hosts_setting(tmp_path: Path) -> None:
    settings = McpServerSettings(
        _env_file=None,  # type: ignore[call-arg]
        notes_path=tmp_path / "n.json",
        allowed_hosts="gateway.internal:*, mcp.example:443",  # type: ignore[arg-type]
    )
    assert settings.allowed_hosts == ["gateway.internal:*", "mcp.example:443"]
    with mcp_server(tmp_path, env={"DEMO_MCP_ALLOWED_HOSTS": "*"}) as open_server:
        answer = httpx.post(
            open_server.url,
            json=INITIALIZE,
            headers={**MCP_HEADERS, "host": "evil.example"},
        )
        assert answer.status_code == 200
