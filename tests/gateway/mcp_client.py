"""The official MCP client in a few blocking calls, for the tests.

Each call opens its own session over streamable HTTP
(``streamable_http_client`` and ``ClientSession``), as the Chainlit UI does,
with the given headers (e.g. a gateway's key as ``Authorization: Bearer``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent, Tool

__all__ = ["call_tool", "list_tools", "server_notes", "text", "with_session"]

T = TypeVar("T")


def with_session(
    url: str, headers: dict[str, str], work: Callable[[ClientSession], Awaitable[T]]
) -> T:
    """Open an MCP session on ``url`` (streamable HTTP) and run ``work`` in it."""

    async def run() -> T:
        async with (
            httpx.AsyncClient(
                headers=headers,
                timeout=httpx.Timeout(30, read=300),
                follow_redirects=True,
            ) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)

    # In a thread of its own: the caller's thread may run an event loop
    # already (Playwright's sync API does), where asyncio.run is refused.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(run())).result()


def list_tools(url: str, headers: dict[str, str] | None = None) -> list[Tool]:
    async def work(session: ClientSession) -> list[Tool]:
        return (await session.list_tools()).tools

    return with_session(url, headers or {}, work)


def call_tool(
    url: str,
    name: str,
    arguments: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> CallToolResult:
    async def work(session: ClientSession) -> CallToolResult:
        return await session.call_tool(name, arguments)

    return with_session(url, headers or {}, work)


def server_notes(server_url: str) -> list[str]:
    """The texts of the notes the demo MCP server at ``server_url`` (its base
    address, without ``/mcp``) holds, newest first (its ``list_notes`` tool)."""
    result = call_tool(f"{server_url}/mcp", "list_notes", {})
    assert not result.isError, result
    assert result.structuredContent is not None
    return [note["text"] for note in result.structuredContent["notes"]]


def text(result: CallToolResult) -> str:
    return "".join(
        part.text for part in result.content if isinstance(part, TextContent)
    )


def function_tools(tools: list[Tool]) -> list[dict[str, Any]]:
    """MCP tools as Responses function tools (name, description, schema)."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description or "",
            "parameters": tool.inputSchema,
        }
        for tool in tools
    ]


def mcp_turn(
    client: Any,
    model: str,
    question: str,
    mcp_url: str,
    headers: dict[str, str] | None = None,
    *,
    rounds: int = 6,
) -> tuple[list[tuple[str, dict[str, Any], str]], str]:
    """One chat turn with MCP tools, as the UI runs it (the ledger re-sent).

    Lists the tools at ``mcp_url``, offers them to ``model`` through the
    OpenAI SDK ``client``, runs every function call it returns through MCP
    and sends the result back as ``function_call_output``, until it answers.

    Returns:
        The calls made (name, arguments, result text) and the final answer.
    """
    import json

    tools = function_tools(list_tools(mcp_url, headers))
    ledger: list[Any] = [{"role": "user", "content": question}]
    calls: list[tuple[str, dict[str, Any], str]] = []
    for _ in range(rounds):
        response = client.responses.create(model=model, input=ledger, tools=tools)
        pending = [item for item in response.output if item.type == "function_call"]
        if not pending:
            return calls, response.output_text
        for call in pending:
            arguments = json.loads(call.arguments or "{}")
            result = call_tool(mcp_url, call.name, arguments, headers)
            output = text(result)
            calls.append((call.name, arguments, output))
            ledger += [
                call.model_dump(exclude_none=True),
                {
                    "type": "function_call_output",
                    "call_id": call.call_id,
                    "output": json.dumps({"error": output})
                    if result.isError
                    else output,
                },
            ]
    raise AssertionError(f"no answer after {rounds} rounds: {calls}")
