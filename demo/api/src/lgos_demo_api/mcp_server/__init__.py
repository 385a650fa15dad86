"""The demo MCP server: small deterministic tools for graphs that declare `MCP_TOOLS`.

An MCP server on the official MCP Python SDK (`FastMCP`), served over
streamable HTTP at `/mcp` (stateless), with `GET /health` for health checks.
Its tools:

- `convert_units(value, from_unit, to_unit)`: length, mass, temperature and
  volume (`units`);
- `save_note(text, title=None)` and `list_notes(query=None)`: notes kept in
  a JSON file (`notes`; `DEMO_MCP_NOTES_PATH`);
- `search_corpus(query, limit=3)`: the demo's offline documentation corpus
  (`corpus_search`).

Clients (the Chainlit UI, the LiteLLM gateway) discover these tools and hand
them to a graph as ordinary function tools; LGOS itself never talks MCP.

DNS-rebinding protection stays on wherever the server is bound: the `Host`
header must be a loopback name (`127.0.0.1`, `localhost`, `[::1]`, any port)
or one of `DEMO_MCP_ALLOWED_HOSTS` (comma separated, default `mcp:*`, the
Compose service name, which the UI and the gateway use inside Compose);
anything else is refused with 421. `DEMO_MCP_ALLOWED_HOSTS=*` turns the
check off. Settings: `DEMO_MCP_HOST` (127.0.0.1), `DEMO_MCP_PORT` (8005),
`DEMO_MCP_NOTES_PATH`, `DEMO_MCP_ALLOWED_HOSTS`, `DEMO_MCP_CORPUS_BASE_URL`
(see `settings`). Run it with::

    uv run python -m lgos_demo_api.mcp_server --host 127.0.0.1 --port 8005
"""

from lgos_demo_api.mcp_server.server import create_app, create_server
from lgos_demo_api.mcp_server.settings import McpServerSettings

__all__ = ["McpServerSettings", "create_app", "create_server"]
