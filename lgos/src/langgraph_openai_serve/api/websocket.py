"""WebSocket connections: LGOS serves the OpenAI API over HTTP only.

OpenAI's Responses API also has a WebSocket mode: a client opens a
WebSocket on ``/v1/responses`` and sends ``response.create`` events over
it. LGOS does not serve that mode, nor any other WebSocket. A router would
close such a connection before accepting it, which the server turns into a
bare 403; instead, every WebSocket connection under the API prefix that no
route takes is refused with a message saying what to do.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from langgraph_openai_serve.api.json_response import json_response
from langgraph_openai_serve.errors import error_envelope

__all__ = ["http_only", "refuse_websocket", "with_websocket_refusal"]

_POLICY_VIOLATION = 1008
_REASON_BYTES = 123  # the most a WebSocket close frame's reason holds


def http_only(prefix: str) -> str:
    """Return the message refusing a WebSocket under the API ``prefix`` (``/v1``)."""
    return (
        "LGOS serves the OpenAI API over HTTP only; WebSocket connections (such"
        " as the Responses API's WebSocket mode) are not served. Send POST"
        f" {prefix}/responses instead, with stream: true for Server-Sent Events."
    )


def _close_reason(prefix: str) -> str:
    reason = f"LGOS serves the OpenAI API over HTTP only: POST {prefix}/responses"
    encoded = reason.encode()
    if len(encoded) <= _REASON_BYTES:
        return reason
    return encoded[:_REASON_BYTES].decode(errors="ignore")


async def refuse_websocket(scope: Scope, receive: Receive, send: Send) -> None:
    """Refuse one WebSocket connection (an ASGI ``websocket`` scope) clearly.

    When the server supports ASGI's WebSocket denial response (Uvicorn
    does), the handshake is answered with HTTP 404 and OpenAI's error
    envelope (``code: "not_found"``, message :func:`http_only`). Otherwise
    the connection is accepted and closed at once with code 1008 (policy
    violation) and a reason saying the same in short.
    """
    websocket = WebSocket(scope, receive, send)
    prefix = scope.get("root_path", "")  # the mount's path, such as /v1
    if "websocket.http.response" in scope.get("extensions", {}):
        envelope = error_envelope(http_only(prefix), code="not_found")
        await websocket.send_denial_response(json_response(envelope, 404))
        return
    await websocket.accept()
    await websocket.close(code=_POLICY_VIOLATION, reason=_close_reason(prefix))


def with_websocket_refusal(fallback: ASGIApp) -> ASGIApp:
    """Wrap a router's default app: WebSockets are refused, the rest go on.

    For ``Router.default``: it runs only when no route matched, so a
    WebSocket route a host adds is still served.
    """

    async def default(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await refuse_websocket(scope, receive, send)
            return
        await fallback(scope, receive, send)

    return default
