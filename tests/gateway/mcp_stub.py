"""A small MCP server for the gateway tests: ``python -m tests.gateway.mcp_stub --port P``.

Built on the official MCP SDK's FastMCP and served over streamable HTTP at
``/mcp`` with ``GET /health``, as the demo MCP server is, so the tests of
LiteLLM's MCP gateway do not depend on the demo server's tool set. Its tools:
a deterministic unit conversion, one that always fails, and one that reports
which headers reached it (whether the gateway forwards the client's key).
"""

from __future__ import annotations

import argparse

from mcp.server.fastmcp import Context, FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

FACTORS = {("mi", "km"): 1.609344, ("km", "mi"): 1 / 1.609344}


def build(host: str, port: int) -> FastMCP:
    """Return the stub server bound to ``host``:``port``."""
    server = FastMCP("lgos-test-stub", host=host, port=port)

    @server.tool()
    def convert_units(value: float, from_unit: str, to_unit: str) -> str:
        """Convert a distance between miles (mi) and kilometres (km)."""
        factor = FACTORS.get((from_unit, to_unit))
        if factor is None:
            raise ValueError(f"cannot convert {from_unit} to {to_unit}")
        return f"{value:g} {from_unit} = {value * factor:.3f} {to_unit}"

    @server.tool()
    def always_fails(reason: str) -> str:
        """Fail with the given reason (a tool error, not a protocol error)."""
        raise RuntimeError(reason)

    @server.tool()
    def seen_headers(ctx: Context) -> list[str]:
        """List the names of the HTTP headers of this call's request."""
        request = ctx.request_context.request
        headers = getattr(request, "headers", {})
        return sorted(name.lower() for name in headers)

    @server.custom_route("/health", methods=["GET"])
    async def health(_request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    return server


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.gateway.mcp_stub")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    build(args.host, args.port).run(transport="streamable-http")


if __name__ == "__main__":
    main()
