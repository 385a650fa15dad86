"""One chat's MCP tools: the configured server, its discovered tools, the notice.

A chat with a model whose ``lgos.features`` list ``mcp_tools`` keeps one
:class:`McpToolset` (in its :class:`~lgos_chainlit.session.ChatSession`): the
tools found when the chat opened, or why none were, so the user sees which
server and tools are attached (:meth:`McpToolset.notice`). A failed
discovery is tried again on the next message, so a server that starts after
the UI is picked up (:mod:`lgos_chainlit.mcp_chat` does both).

Nothing here depends on Chainlit.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from lgos_chainlit.mcp_tools import McpFailure, McpServer, McpTool, tools_from_listing

__all__ = ["McpToolset"]


@dataclass(slots=True)
class McpToolset:
    """One chat's MCP tools: the configured server and what its discovery found.

    Attributes:
        server: The configured server; ``None`` when none is.
        tools: The tools of the last successful discovery.
        error: Why the last discovery failed (``None``: it did not).
        discovered: Whether a discovery succeeded once.

    """

    server: McpServer | None = None
    tools: tuple[McpTool, ...] = ()
    error: str | None = None
    discovered: bool = False

    @property
    def failed(self) -> bool:
        """Whether a server is configured and its last discovery failed."""
        return self.server is not None and self.error is not None

    async def discover(self, reserved: Collection[str] = ()) -> None:
        """List the server's tools (nothing to do when none is configured).

        On failure :attr:`tools` are emptied and :attr:`error` says why; it
        never raises for an unreachable or failing server.
        """
        if self.server is None:
            return
        try:
            listing = await self.server.list_tools()
        except McpFailure as exc:
            self.tools, self.error = (), str(exc)
            return
        self.tools = tools_from_listing(self.server, listing, reserved)
        self.error, self.discovered = None, True

    def notice(self) -> str:
        """Markdown saying which server and tools are attached, or why none.

        Shapes: ``🔌 MCP server `<url>`: `a`, `b`.`` (a renamed tool shows
        its MCP name in parentheses); ``… offers no tools.``; a missing
        server asks to start ``just demo --mcp`` or set
        ``DEMO_CHAINLIT_MCP_URL``; a failed discovery says why and that the
        next message tries again.
        """
        if self.server is None:
            return (
                "🔌 **No MCP server configured**: this model can use MCP tools; "
                "start the demo with `just demo --mcp` or set "
                "`DEMO_CHAINLIT_MCP_URL`."
            )
        url = f"`{self.server.url}`"
        if self.error is not None:
            return (
                f"⚠️ **MCP server** {url} **unavailable** ({self.error}): "
                "chatting without its tools; your next message tries again."
            )
        if not self.tools:
            return f"🔌 **MCP server** {url} offers no tools."
        names = ", ".join(
            f"`{tool.name}`"
            + (f" (`{tool.mcp_name}`)" if tool.name != tool.mcp_name else "")
            for tool in self.tools
        )
        return f"🔌 **MCP server** {url}: {names}."
