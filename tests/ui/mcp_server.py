"""A real MCP server for the UI's MCP client tests: FastMCP over streamable HTTP.

:func:`serving_mcp` runs :func:`tools_server` with Uvicorn on a free loopback
port, in the test's event loop, behind a small ASGI layer that records each
request's headers and, when given a key, answers 401 to requests without
``Authorization: Bearer <key>``. Nothing is faked: the UI's client speaks
the MCP protocol to the official SDK's server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import BaseModel
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.procs import free_port
from tests.waiting import eventually

KM_PER_MILE = 1.609344


class Conversion(BaseModel):
    value: float
    unit: str


def tools_server() -> FastMCP:
    """Five tools: structured, text-only, failing, slow, and two awkward names.

    ``convert_units`` answers with structured content; ``shout`` with text
    only; ``explode`` raises ``ToolError``; ``nap`` sleeps as long as asked;
    ``notes.save`` is a valid MCP name but no OpenAI function name; and
    ``roll_dice`` clashes with one of the UI's own functions.
    """
    server = FastMCP("ui-test", log_level="WARNING")
    notes: list[str] = []

    @server.tool(description="Convert a distance between miles and kilometres.")
    def convert_units(value: float, from_unit: str, to_unit: str) -> Conversion:
        if (from_unit, to_unit) == ("mi", "km"):
            return Conversion(value=round(value * KM_PER_MILE, 3), unit="km")
        if (from_unit, to_unit) == ("km", "mi"):
            return Conversion(value=round(value / KM_PER_MILE, 3), unit="mi")
        raise ToolError(f"cannot convert {from_unit} to {to_unit}")

    @server.tool(description="Repeat the text in capitals.", structured_output=False)
    def shout(text: str) -> str:
        return text.upper()

    @server.tool(description="Always fails.")
    def explode(reason: str) -> str:
        raise ToolError(f"exploded: {reason}")

    @server.tool(description="Sleep, then answer.")
    async def nap(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return "rested"

    @server.tool(name="notes.save", description="Save a note.")
    def save_note(text: str) -> dict[str, Any]:
        notes.append(text)
        return {"saved": text, "count": len(notes)}

    @server.tool(description="Roll dice on the server.")
    def roll_dice(sides: int = 6) -> int:
        return sides

    return server


@dataclass(slots=True)
class McpSite:
    """A running test MCP server."""

    url: str
    headers: list[dict[str, str]] = field(default_factory=list)
    server: uvicorn.Server | None = None
    task: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        """Stop the server (idempotent); later requests cannot connect."""
        if self.server is not None and self.task is not None:
            self.server.should_exit = True
            await self.task
            self.server = self.task = None


def _guarded(app: ASGIApp, site: McpSite, key: str | None) -> ASGIApp:
    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {
                name.decode().lower(): value.decode()
                for name, value in scope["headers"]
            }
            site.headers.append(headers)
            if key is not None and headers.get("authorization") != f"Bearer {key}":
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain")],
                    }
                )
                await send({"type": "http.response.body", "body": b"no key"})
                return
        await app(scope, receive, send)

    return guarded


@asynccontextmanager
async def serving_mcp(
    server: FastMCP | None = None, *, key: str | None = None, port: int | None = None
) -> AsyncIterator[McpSite]:
    """Serve ``server`` (default :func:`tools_server`); yield where it listens.

    ``port``: the loopback port to listen on (default: a free one).
    """
    server = server or tools_server()
    port = port or free_port()
    site = McpSite(url=f"http://127.0.0.1:{port}/mcp")
    app = _guarded(server.streamable_http_app(), site, key)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=2,
    )
    site.server = uvicorn.Server(config)
    site.task = asyncio.create_task(site.server.serve())
    # uvicorn offers no event for it: poll its flag.
    await eventually(lambda: site.server is None or site.server.started)
    try:
        yield site
    finally:
        await site.stop()
