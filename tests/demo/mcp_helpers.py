"""The demo MCP server as a real process, and an MCP client session on it.

Both the server's own tests and the `mcp` graph's end-to-end tests start
`python -m lgos_demo_api.mcp_server` on a free loopback port with a
temporary notes file, and talk to it with the official `mcp` client.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.demo_services import clean_env
from tests.procs import free_port, running


@dataclass(frozen=True)
class McpServer:
    """A running demo MCP server."""

    base_url: str
    notes_path: Path

    @property
    def url(self) -> str:
        """The streamable HTTP endpoint."""
        return f"{self.base_url}/mcp"


@contextmanager
def mcp_server(
    folder: Path, *, port: int | None = None, env: dict[str, str] | None = None
) -> Iterator[McpServer]:
    """Run the demo MCP server until the block ends; notes in `folder`."""
    port = port or free_port()
    notes = folder / "notes.json"
    environment = clean_env() | {
        "DEMO_MCP_NOTES_PATH": str(notes),
        "DEMO_MCP_ALLOWED_HOSTS": "mcp:*",
        "DEMO_MCP_CORPUS_BASE_URL": "http://127.0.0.1:8002",
        **(env or {}),
    }
    base = f"http://127.0.0.1:{port}"
    with running(
        [
            sys.executable,
            "-m",
            "lgos_demo_api.mcp_server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        ready_url=f"{base}/health",
        log=folder / f"mcp-{port}.log",
        env=environment,
        cwd=folder,
    ):
        yield McpServer(base, notes)


@asynccontextmanager
async def mcp_session(url: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP client session on `url`."""
    async with (
        streamable_http_client(url) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session
