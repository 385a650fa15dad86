"""The tools of an MCP server, offered to a graph as client functions.

For a model whose ``lgos.features`` list ``mcp_tools`` the UI is an MCP
client: LGOS does no MCP discovery, so "the native UI client discovers
gateway tools, supplies their standard function definitions, and executes
returned calls" (seed 000, "Tool Calls And Interrupts"; seed 001,
``GraphFeature.MCP_TOOLS``). :class:`McpServer` is the configured server or
gateway (``DEMO_CHAINLIT_MCP_URL``) and :class:`McpTool` one of its tools as
a :class:`~lgos_client.functions.ClientFunction`; one chat's tools are a
:class:`~lgos_chainlit.mcp_toolset.McpToolset`.

Every operation opens its own MCP session over streamable HTTP (the official
``mcp`` client: ``initialize``, then ``tools/list`` or ``tools/call``, then
the session ends). No connection outlives a Chainlit callback (an anyio task
group must end in the task that opened it), and a server that restarted or
started late is reached by the next operation. The price is one
``initialize`` per call, small beside a model round.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from mcp import ClientSession, McpError, types
from mcp.client.streamable_http import streamable_http_client

from lgos_chainlit.settings import ChainlitSettings
from lgos_client.functions import FunctionCall, error_output, function_tool

__all__ = [
    "MCP_TOOLS_FEATURE",
    "McpFailure",
    "McpServer",
    "McpTool",
    "function_name",
    "function_step_labels",
    "result_output",
    "tools_from_listing",
]

logger = logging.getLogger(__name__)

MCP_TOOLS_FEATURE = "mcp_tools"
"""The ``lgos.features`` value of graphs that take the client's MCP tools."""

_NAME_LIMIT = 64
_MAX_PAGES = 100


class McpFailure(Exception):
    """An MCP operation failed: unreachable, refused, timed out, or a protocol error.

    The message says why in one line, for a notice or a tool's error output.
    """


def _reason(exc: BaseException) -> str:
    """One line for an exception, the first leaf of an exception group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, httpx.HTTPStatusError):
        response = exc.response
        return f"HTTP {response.status_code} {response.reason_phrase}".strip()
    if isinstance(exc, httpx.ConnectError):
        return "cannot connect"
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return "no answer in time"
    if isinstance(exc, McpError):
        if exc.error.message == "Session terminated":
            # What the client makes of a 404, such as a URL without /mcp.
            return (
                "MCP error: Session terminated (HTTP 404: is the URL the MCP endpoint?)"
            )
        return f"MCP error: {exc.error.message}"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True, slots=True)
class McpServer:
    """An MCP server (or gateway) reached over streamable HTTP.

    Attributes:
        url: The endpoint, e.g. ``http://127.0.0.1:8005/mcp``.
        api_key: Sent as ``Authorization: Bearer <key>`` and as
            ``x-litellm-api-key: Bearer <key>`` (the header LiteLLM's MCP
            gateway documents for its keys); ``None``: no key.
        timeout: Seconds one operation (connect, initialize, list or call)
            may take in all.

    """

    url: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 30.0

    @classmethod
    def from_settings(cls, settings: ChainlitSettings) -> McpServer | None:
        """Read the server from ``DEMO_CHAINLIT_MCP_*``; ``None`` when no URL is set."""
        url = (settings.mcp_url or "").strip()
        if not url:
            return None
        key = settings.mcp_api_key.get_secret_value() if settings.mcp_api_key else ""
        return cls(url=url, api_key=key.strip() or None, timeout=settings.mcp_timeout)

    @property
    def label(self) -> str:
        """A short name for step titles: the URL's ``host:port``."""
        return urlsplit(self.url).netloc or self.url

    def headers(self) -> dict[str, str]:
        """Return the HTTP headers of every request (the key, when there is one)."""
        if not self.api_key:
            return {}
        bearer = f"Bearer {self.api_key}"
        return {"Authorization": bearer, "x-litellm-api-key": bearer}

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[ClientSession]:
        async with (
            httpx.AsyncClient(
                headers=self.headers(), timeout=httpx.Timeout(self.timeout)
            ) as http,
            streamable_http_client(self.url, http_client=http) as (read, write, _),
            ClientSession(
                read, write, read_timeout_seconds=timedelta(seconds=self.timeout)
            ) as session,
        ):
            await session.initialize()
            yield session

    async def list_tools(self) -> list[types.Tool]:
        """List every tool, following ``nextCursor`` pages (at most 100).

        Raises:
            McpFailure: The server could not be reached, refused the request
                (say, HTTP 401 for a missing key), did not answer within
                :attr:`timeout`, or answered with an error.

        """
        try:
            async with asyncio.timeout(self.timeout), self._session() as session:
                tools: list[types.Tool] = []
                cursor: str | None = None
                for _ in range(_MAX_PAGES):
                    page = await session.list_tools(
                        params=types.PaginatedRequestParams(cursor=cursor)
                        if cursor
                        else None
                    )
                    tools.extend(page.tools)
                    cursor = page.nextCursor
                    if not cursor:
                        break
                return tools
        except Exception as exc:
            raise McpFailure(_reason(exc)) from exc

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any]
    ) -> types.CallToolResult:
        """Call the tool ``name`` (its MCP name) with ``arguments``.

        Raises:
            McpFailure: As :meth:`list_tools`; a tool's own failure is no
                exception but a result with ``isError`` (see
                :func:`result_output`).

        """
        try:
            async with asyncio.timeout(self.timeout), self._session() as session:
                return await session.call_tool(name, dict(arguments))
        except Exception as exc:
            raise McpFailure(_reason(exc)) from exc


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _content_text(block: types.ContentBlock) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return resource.text
        return f"[resource {resource.uri} ({resource.mimeType or 'binary'})]"
    if isinstance(block, types.ResourceLink):
        return f"[resource {block.uri}]"
    if isinstance(block, types.ImageContent | types.AudioContent):
        return f"[{block.type} {block.mimeType}]"
    return f"[{getattr(block, 'type', 'content')}]"


def result_output(result: types.CallToolResult) -> tuple[str, bool]:
    """Encode a ``tools/call`` result as a ``function_call_output``.

    Returns:
        ``(output, ok)``: ``structuredContent`` as compact JSON when the
        result has it, else its contents' text joined by newlines (an image
        or other binary block becomes a ``[image image/png]`` placeholder);
        a result with ``isError`` becomes ``{"error": <its text>}`` with
        ``ok`` False.

    """
    text = "\n".join(_content_text(block) for block in result.content)
    if result.isError:
        return error_output(text or "the tool failed"), False
    if result.structuredContent is not None:
        return _compact(result.structuredContent), True
    return text, True


@dataclass(frozen=True, slots=True)
class McpTool:
    """One MCP tool offered as a client function (a ``ClientFunction``).

    Attributes:
        name: The function name the model sees (see :func:`function_name`).
        mcp_name: The tool's name on the server, used for ``tools/call``.
        description: For the model (the tool's description, else its title).
        parameters: The tool's ``inputSchema`` (an object schema).
        server: Where it runs.

    """

    name: str
    mcp_name: str
    description: str
    parameters: Mapping[str, Any]
    server: McpServer

    def tool(self) -> dict[str, Any]:
        """Return the flat Responses function tool (``strict`` False)."""
        return function_tool(self.name, self.description, self.parameters, strict=False)

    async def execute(self, call: FunctionCall) -> tuple[str, bool]:
        """Run ``call`` with ``tools/call`` on the server.

        Never raises for a bad call (only ``asyncio.CancelledError`` passes):
        arguments that are not a JSON object, an unknown tool, a tool error,
        a timeout or an unreachable server all give ``{"error": "..."}`` with
        ``ok`` False, which goes back to the graph as the tool's output.
        """
        try:
            arguments = call.parsed_arguments()
        except ValueError as exc:
            return error_output(f"{self.mcp_name} failed: {exc}"), False
        try:
            result = await self.server.call_tool(self.mcp_name, arguments)
        except McpFailure as exc:
            logger.warning(
                "MCP tool %s on %s failed: %s", self.mcp_name, self.server.url, exc
            )
            return error_output(
                f"{self.mcp_name} failed on {self.server.url}: {exc}"
            ), False
        return result_output(result)


def function_step_labels(name: str, functions: Mapping[str, object]) -> tuple[str, str]:
    """Label the tool step of a call of ``name`` among the offered ``functions``.

    Returns:
        ``(title, source)``: the call as step titles name it, and Markdown
        put before the step's arguments. For an MCP tool
        ``"<mcp name> on MCP <host:port>"`` and the paragraph
        ``**MCP tool** `<mcp name>` on `<url>```; for any other function
        ``(name, "")``.

    """
    tool = functions.get(name)
    if not isinstance(tool, McpTool):
        return name, ""
    return (
        f"{tool.mcp_name} on MCP {tool.server.label}",
        f"**MCP tool** `{tool.mcp_name}` on `{tool.server.url}`\n\n",
    )


def function_name(mcp_name: str, taken: Collection[str]) -> str:
    """Name an MCP tool as an OpenAI function, unique among ``taken``.

    OpenAI allows ``^[a-zA-Z0-9_-]{1,64}$``; MCP names may also hold ``.``
    and ``/`` and run to 128 characters (SEP-986). Other characters become
    ``_`` and the name is cut to 64 characters. A name already ``taken``
    (one of the UI's own functions, a server tool of the model,
    ``lgos_interrupt``, or an earlier MCP tool) gets the prefix ``mcp_``,
    then a number (``mcp_roll_dice``, ``mcp_roll_dice_2``): the UI's own
    functions keep their names, since the model's ``client_tools`` name them.
    """
    base = re.sub(r"[^a-zA-Z0-9_-]", "_", mcp_name)[:_NAME_LIMIT] or "tool"
    candidates = [base, f"mcp_{base}"[:_NAME_LIMIT]]
    for candidate in candidates:
        if candidate not in taken:
            return candidate
    number = 2
    while True:
        suffix = f"_{number}"
        candidate = candidates[1][: _NAME_LIMIT - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        number += 1


def _parameters(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    parameters = dict(schema or {})
    parameters.setdefault("type", "object")
    if parameters["type"] == "object":
        parameters.setdefault("properties", {})
    return parameters


def tools_from_listing(
    server: McpServer, listing: Sequence[types.Tool], reserved: Collection[str] = ()
) -> tuple[McpTool, ...]:
    """Offerable tools from a ``tools/list`` answer, in the server's order.

    Args:
        server: Where the tools run.
        listing: The listed tools.
        reserved: Function names already in use (see :func:`function_name`).

    """
    taken = set(reserved)
    tools = []
    for tool in listing:
        name = function_name(tool.name, taken)
        taken.add(name)
        tools.append(
            McpTool(
                name=name,
                mcp_name=tool.name,
                description=tool.description or tool.title or f"MCP tool {tool.name}",
                parameters=_parameters(tool.inputSchema),
                server=server,
            )
        )
    return tuple(tools)
