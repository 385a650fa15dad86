"""MCP tools: the ones Open WebUI attached to the chat, offered as functions."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from lgos_client.functions import error_output, function_tool
from lgos_open_webui.plumbing import log

MCP_TOOLS_FEATURE = "mcp_tools"


@dataclass(frozen=True, slots=True)
class McpTool:
    """One MCP tool Open WebUI attached to the chat, offered as a function.

    Open WebUI connects the MCP servers the chat (or the model) selected and
    hands a pipe each of their tools in ``__tools__``: a ``spec`` (name,
    description, JSON Schema parameters; the name is ``<server id>_<tool>``)
    and a ``callable`` that runs ``tools/call`` on its server.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    call: Callable[..., Any]

    def tool(self) -> dict[str, Any]:
        """Return the flat Responses function tool (``strict`` False)."""
        return function_tool(self.name, self.description, self.parameters, strict=False)

    async def run(self, arguments: str | None) -> tuple[str, bool]:
        """Run one call; never raise for a bad call (cancellation passes).

        Returns:
            ``(output, ok)``: the text of the result's content blocks (Open
            WebUI's MCP client adds ``structuredContent`` as JSON text when
            the text differs), or ``{"error": "..."}`` with ``ok`` False for
            arguments that are not a JSON object, an ``isError`` result
            (Open WebUI raises it) or an unreachable server, as the MCP
            rules of docs/how-to/mcp-tools.md say.

        """
        try:
            parsed = json.loads(arguments or "{}")
            if not isinstance(parsed, dict):
                raise ValueError("the arguments are not a JSON object")
        except ValueError as exc:
            return error_output(f"{self.name} failed: {exc}"), False
        try:
            result = self.call(**parsed)
            if inspect.isawaitable(result):
                result = await result
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("MCP tool %s failed: %s", self.name, exc)
            return error_output(f"{self.name} failed: {exc}"), False
        return mcp_result_text(result), True


def mcp_result_text(result: object) -> str:
    """Return the output text of what Open WebUI's MCP client returned.

    A list of content blocks gives their text, one per line (an image or
    other binary block a ``[image image/png]`` placeholder); anything else
    is sent as compact JSON.
    """
    if isinstance(result, str):
        return result
    if isinstance(result, list):
        lines = []
        for block in result:
            if isinstance(block, Mapping) and block.get("type") == "text":
                lines.append(str(block.get("text") or ""))
            elif isinstance(block, Mapping):
                kind = block.get("type") or "content"
                mime = block.get("mimeType")
                lines.append(f"[{kind} {mime}]" if mime else f"[{kind}]")
            else:
                lines.append(str(block))
        return "\n".join(lines)
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def mcp_tools_from(tools: object, reserved: Collection[str]) -> dict[str, McpTool]:
    """Return the MCP tools among Open WebUI's ``__tools__``, by function name.

    Only entries of ``type`` ``mcp`` with a ``spec`` and a ``callable`` are
    taken (Open WebUI's own built-in tools are not MCP tools); a name in
    ``reserved`` (the pipe's own functions, ``lgos_interrupt``) is skipped.
    """
    found: dict[str, McpTool] = {}
    if not isinstance(tools, Mapping):
        return found
    for key, entry in tools.items():
        if not isinstance(entry, Mapping) or entry.get("type") != "mcp":
            continue
        spec, call = entry.get("spec"), entry.get("callable")
        if not isinstance(spec, Mapping) or not callable(call):
            continue
        name = str(spec.get("name") or key)
        if name in reserved or name in found:
            continue
        parameters = spec.get("parameters")
        parameters = dict(parameters) if isinstance(parameters, Mapping) else {}
        parameters.setdefault("type", "object")
        if parameters["type"] == "object":
            parameters.setdefault("properties", {})
        found[name] = McpTool(
            name=name,
            description=str(spec.get("description") or f"MCP tool {name}"),
            parameters=parameters,
            call=call,
        )
    return found
