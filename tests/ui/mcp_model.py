"""The ``mcp`` model as LGOS's model discovery describes it, with the
features and client tools a test gives it."""

from __future__ import annotations

from typing import Any


def model(*features: str, client_tools: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "id": "mcp",
        "object": "model",
        "created": 0,
        "owned_by": "lgos",
        "lgos": {
            "schema_version": 1,
            "description": "Uses MCP tools.",
            "features": list(features),
            "client_tools": list(client_tools),
        },
    }
