"""Run the demo MCP server: `python -m lgos_demo_api.mcp_server [--host H] [--port P]`.

Settings come from `DEMO_MCP_*` variables and `.env`; `--host` and `--port`
override `DEMO_MCP_HOST` and `DEMO_MCP_PORT`. MCP is served at `/mcp`
(streamable HTTP), the health check at `/health`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import uvicorn
from pydantic import ValidationError

from lgos_demo_api.mcp_server.server import create_app
from lgos_demo_api.mcp_server.settings import McpServerSettings


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m lgos_demo_api.mcp_server",
        description="The LGOS demo's MCP server (streamable HTTP at /mcp).",
    )
    parser.add_argument("--host", help="interface to bind (DEMO_MCP_HOST)")
    parser.add_argument("--port", type=int, help="port to listen on (DEMO_MCP_PORT)")
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug", "trace"],
    )
    args = parser.parse_args(argv)
    try:
        settings = McpServerSettings()
    except ValidationError as exc:
        print(f"lgos_demo_api.mcp_server: invalid settings: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if args.host:
        settings = settings.model_copy(update={"host": args.host})
    if args.port is not None:
        settings = settings.model_copy(update={"port": args.port})
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=args.log_level,
    )


if __name__ == "__main__":
    main()
