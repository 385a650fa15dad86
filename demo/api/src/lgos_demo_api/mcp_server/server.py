"""The demo MCP server: four tools on FastMCP, over streamable HTTP.

`create_server` builds the `FastMCP` server with the tools `convert_units`,
`save_note`, `list_notes` and `search_corpus`, and a `GET /health` route;
`create_app` returns its Starlette app, serving MCP at `/mcp` in stateless
mode (every request stands alone, so any number of clients and a restart
need no session bookkeeping).

Each tool returns a pydantic model, so clients get both `structuredContent`
(with the tool's `outputSchema`) and the same JSON as text; every result
carries a one-line `text` summary a model can quote. A tool that cannot do
what was asked raises `ToolError`, which clients receive as a result with
`isError: true` and the message as text.
"""

from __future__ import annotations

import inspect
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse

from lgos_demo_api.mcp_server.corpus_search import CorpusResults
from lgos_demo_api.mcp_server.corpus_search import search_corpus as find_passages
from lgos_demo_api.mcp_server.notes import NoteList, NotesError, NoteStore, SavedNote
from lgos_demo_api.mcp_server.settings import LOOPBACK_HOSTS, McpServerSettings
from lgos_demo_api.mcp_server.units import Conversion, ConversionError, Unit, convert

__all__ = ["SERVER_NAME", "create_app", "create_server", "transport_security"]

SERVER_NAME = "lgos-demo"
"""The name the server gives itself in the MCP handshake."""

_INSTRUCTIONS = (
    "Small deterministic tools of the LGOS demo: convert units, keep notes, "
    "search the demo's offline documentation corpus."
)


def transport_security(settings: McpServerSettings) -> TransportSecuritySettings:
    """Return the DNS-rebinding protection the settings ask for.

    The `Host` header must name a loopback host (any port) or one of
    `settings.allowed_hosts`; `Origin`, when a browser sends one, must be
    `http://` one of those. An `allowed_hosts` of `["*"]` turns the check
    off. Refused requests get 421 (bad `Host`) or 403 (bad `Origin`).
    """
    if "*" in settings.allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = [f"{host}:*" for host in LOOPBACK_HOSTS]
    hosts += [host for host in settings.allowed_hosts if host not in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *(h.removesuffix(":*") for h in hosts)],
        allowed_origins=[f"http://{host}" for host in hosts],
    )


def create_server(settings: McpServerSettings) -> FastMCP:
    """Build the demo MCP server.

    Args:
        settings: Where notes persist, which hosts may call, where corpus
            pages are served.

    Returns:
        A stateless `FastMCP` server with the four tools and `GET /health`.

    """
    server = FastMCP(
        SERVER_NAME,
        instructions=_INSTRUCTIONS,
        host=settings.host,
        port=settings.port,
        stateless_http=True,
        transport_security=transport_security(settings),
    )
    store = NoteStore(settings.notes_path)

    def convert_units(
        value: Annotated[float, Field(description="The number to convert.")],
        from_unit: Annotated[Unit, Field(description="The unit of `value`.")],
        to_unit: Annotated[Unit, Field(description="The unit to convert to.")],
    ) -> Conversion:
        """Convert a value between units of length, mass, temperature or volume.

        Units are symbols: length mm, cm, m, km, in (inches), ft (feet),
        yd (yards), mi (miles); mass mg, g, kg, oz (ounces), lb (pounds);
        temperature C (Celsius), F (Fahrenheit), K (kelvin); volume ml, l
        (litres), gal (US gallons). Both units must measure the same thing.
        """
        try:
            return convert(value, from_unit, to_unit)
        except ConversionError as exc:
            raise ToolError(str(exc)) from exc

    async def save_note(
        text: Annotated[str, Field(description="The note to save (not blank).")],
        title: Annotated[
            str | None,
            Field(description="A short title; derived from the text when omitted."),
        ] = None,
    ) -> SavedNote:
        """Save a note (remember some text) in the demo's notes store.

        Returns the saved note with its number; notes persist across restarts
        and `list_notes` reads them back.
        """
        try:
            return await store.save(text, title)
        except (ValueError, NotesError) as exc:
            raise ToolError(str(exc)) from exc

    async def list_notes(
        query: Annotated[
            str | None,
            Field(
                description=(
                    "Keep only notes whose title or text contains this "
                    "(case-insensitive); omit for all notes."
                )
            ),
        ] = None,
    ) -> NoteList:
        """List (show, read back) the saved notes, newest first."""
        try:
            return await store.list_notes(query)
        except NotesError as exc:
            raise ToolError(str(exc)) from exc

    async def search_corpus(
        query: Annotated[str, Field(description="What to look for, in words.")],
        limit: Annotated[
            int, Field(ge=1, le=10, description="The most passages to return.")
        ] = 3,
    ) -> CorpusResults:
        """Search (look up) the LGOS demo's offline documentation corpus.

        The corpus is the LGOS documentation and a few pages about LangGraph
        and the OpenAI API; each result has a title, a URL on the demo's
        corpus server and a snippet.
        """
        return await find_passages(query, limit, settings.corpus_base_url)

    for tool in (convert_units, save_note, list_notes, search_corpus):
        server.add_tool(tool, description=inspect.cleandoc(tool.__doc__ or ""))

    @server.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return server


def create_app(settings: McpServerSettings | None = None) -> Starlette:
    """Build the ASGI app: MCP at `/mcp`, `GET /health` answering `{"status": "ok"}`.

    Args:
        settings: The server settings; read from the environment when None.

    Returns:
        The Starlette app to serve with uvicorn (its lifespan runs the MCP
        session manager).

    """
    return create_server(settings or McpServerSettings()).streamable_http_app()
