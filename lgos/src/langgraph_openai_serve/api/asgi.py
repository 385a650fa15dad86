"""Helpers of the OpenAI mount's pure ASGI middleware: the route path, an error.

The mount's middleware (shutdown, API keys, the run limit) answer before any
route runs, so they write OpenAI's error envelope to the ASGI ``send``
themselves.
"""

from __future__ import annotations

import orjson
from starlette.types import Scope, Send

from langgraph_openai_serve.errors import OpenAIHTTPException

__all__ = ["route_path", "send_error"]


def route_path(scope: Scope) -> str:
    """Return the path below the mount (Starlette keeps the full one in ``path``).

    ``/v1/responses`` under the mount ``/v1`` is ``/responses``.
    """
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


async def send_error(send: Send, error: OpenAIHTTPException) -> None:
    """Send ``error`` as a complete JSON response: its status, headers, envelope."""
    headers = [(b"content-type", b"application/json")]
    headers.extend(
        (name.lower().encode(), value.encode())
        for name, value in (error.headers or {}).items()
    )
    await send(
        {"type": "http.response.start", "status": error.status_code, "headers": headers}
    )
    await send({"type": "http.response.body", "body": orjson.dumps(error.envelope())})
