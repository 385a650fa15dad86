"""LiteLLM's MCP gateway in front of an MCP server, for real (`just demo --gateway --mcp`).

The session's gateway (``tests/gateway/conftest.py``) runs the pinned proxy on
the configuration `lgos_demo_gateway` generates with ``DEMO_GATEWAY_MCP_URL``
set to a FastMCP server (``tests/gateway/mcp_stub.py``). The official MCP
client (``streamable_http_client``, ``ClientSession``) talks to the gateway's ``/mcp``
with the master key, exactly as the Chainlit UI does with ``just demo
--gateway --mcp``. What the pinned release does on the way:

- ``/mcp`` lists every configured server's tools, each named
  ``<server name>-<tool>`` (``lgos_demo-convert_units``), with the
  server's description and input schema unchanged; a call by that name
  reaches the server and its result comes back unchanged, a tool error as a
  result with ``isError`` (not a protocol error). ``/mcp/`` and
  ``/lgos_demo/mcp`` list the same; a bare tool name still reaches the tool.
- Without a database the only key is the master key, in ``Authorization:
  Bearer`` or ``x-litellm-api-key``; another key is a 400 "No connected db.",
  no key a 500 (LiteLLM tries its database client, which is not installed).
- The client's key stays at the gateway: the MCP server never sees an
  ``Authorization`` header.
"""

from __future__ import annotations

import httpx
import pytest
import yaml

from tests.gateway.conftest import MASTER_KEY, Gateway
from tests.gateway.mcp_client import call_tool, list_tools, text

pytestmark = pytest.mark.timeout(300)

BEARER = {"Authorization": f"Bearer {MASTER_KEY}"}
PREFIX = "lgos_demo-"


def test_the_generated_configuration_names_the_mcp_server(gateway: Gateway) -> None:
    config = yaml.safe_load(gateway.config.read_text(encoding="utf-8"))
    assert config["mcp_servers"] == {
        "lgos_demo": {
            "url": gateway.mcp_server_url,
            "transport": "http",
            "description": "The LGOS demo MCP server's tools",
        }
    }


def test_the_gateway_lists_the_servers_tools_under_its_name(gateway: Gateway) -> None:
    direct = {tool.name: tool for tool in list_tools(gateway.mcp_server_url)}
    through = {tool.name: tool for tool in list_tools(gateway.mcp_url, BEARER)}
    assert set(through) == {PREFIX + name for name in direct}
    for name, tool in direct.items():
        assert through[PREFIX + name].description == tool.description
        assert through[PREFIX + name].inputSchema == tool.inputSchema


@pytest.mark.parametrize("path", ["/mcp/", "/lgos_demo/mcp"])
def test_the_other_paths_list_the_same_tools(gateway: Gateway, path: str) -> None:
    names = {tool.name for tool in list_tools(gateway.mcp_url, BEARER)}
    assert {tool.name for tool in list_tools(gateway.url + path, BEARER)} == names


def test_a_bare_tool_name_still_reaches_the_tool(gateway: Gateway) -> None:
    arguments = {"value": 1, "from_unit": "km", "to_unit": "mi"}
    result = call_tool(gateway.mcp_url, "convert_units", arguments, BEARER)
    assert not result.isError
    assert text(result) == "1 km = 0.621 mi"


def test_a_call_through_the_gateway_reaches_the_server(gateway: Gateway) -> None:
    result = call_tool(
        gateway.mcp_url,
        PREFIX + "convert_units",
        {"value": 5, "from_unit": "mi", "to_unit": "km"},
        BEARER,
    )
    assert not result.isError
    assert text(result) == "5 mi = 8.047 km"
    assert result.structuredContent == {"result": "5 mi = 8.047 km"}


def test_a_tool_error_comes_back_as_a_result(gateway: Gateway) -> None:
    result = call_tool(
        gateway.mcp_url, PREFIX + "always_fails", {"reason": "no such unit"}, BEARER
    )
    assert result.isError
    assert "no such unit" in text(result)


def test_the_master_key_works_in_either_header(gateway: Gateway) -> None:
    for headers in (
        BEARER,
        {"x-litellm-api-key": f"Bearer {MASTER_KEY}"},
        {"x-litellm-api-key": MASTER_KEY},
    ):
        names = {tool.name for tool in list_tools(gateway.mcp_url, headers)}
        assert PREFIX + "convert_units" in names, headers


@pytest.mark.parametrize(
    ("headers", "status", "body"),
    [
        ({"Authorization": "Bearer another-key"}, 400, "No connected db."),
        ({}, 500, "prisma"),
    ],
    ids=["another-key", "no-key"],
)
def test_without_the_master_key_the_gateway_refuses(
    gateway: Gateway, headers: dict[str, str], status: int, body: str
) -> None:
    response = httpx.post(
        gateway.mcp_url,
        headers={
            **headers,
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        timeout=30,
    )
    assert response.status_code == status
    assert body in response.text


def test_the_clients_key_stays_at_the_gateway(gateway: Gateway) -> None:
    direct = call_tool(gateway.mcp_server_url, "seen_headers", {}, BEARER)
    assert "authorization" in direct.structuredContent["result"]  # type: ignore[index]
    through = call_tool(gateway.mcp_url, PREFIX + "seen_headers", {}, BEARER)
    assert not through.isError, text(through)
    assert "authorization" not in through.structuredContent["result"]  # type: ignore[index]
