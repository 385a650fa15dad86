"""API key authentication of the OpenAI routes, and the tenant a key names.

:class:`ApiKeyMiddleware` wraps the mounted OpenAI app when
``LanggraphOpenaiServe(..., api_keys=...)`` is given keys (``lgos serve``
does with ``LGOS_API_KEYS`` or ``LGOS_API_KEY_FILE``): every request under
the prefix needs ``Authorization: Bearer <key>``, except the health probes
(``{prefix}/health`` and every path under it). A missing or unknown key is
HTTP 401 in OpenAI's envelope, ``type`` ``invalid_request_error`` and
``code`` ``invalid_api_key``, with ``WWW-Authenticate: Bearer`` (RFC 6750);
the OpenAI SDKs raise ``AuthenticationError`` for it.

The key's tenant is kept on the request (:func:`api_key_tenant`);
:func:`tenant_checkpoint_scope` turns it into the checkpoint scope, so the
paused runs and background Responses of one tenant are out of reach of
another tenant's keys.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from langgraph_openai_serve.api.api_keys import ApiKeyMatch, ApiKeys
from langgraph_openai_serve.api.asgi import route_path
from langgraph_openai_serve.api.json_response import json_response
from langgraph_openai_serve.errors import error_envelope
from langgraph_openai_serve.graph.prepare import DEFAULT_CHECKPOINT_SCOPE

__all__ = [
    "INVALID_API_KEY",
    "ApiKeyMiddleware",
    "api_key_tenant",
    "bearer_token",
    "tenant_checkpoint_scope",
]

INVALID_API_KEY = "invalid_api_key"
"""The ``code`` of a 401 for a missing or wrong key (OpenAI's own)."""

_SCOPE_KEY = "lgos.api_key"
"""Where the match of the request's key is kept in the ASGI scope."""

_NO_KEY = (
    "You didn't provide an API key. Send it in an Authorization header using "
    "Bearer auth (Authorization: Bearer YOUR_KEY)."
)
_WRONG_KEY = "Incorrect API key provided."


def bearer_token(authorization: str | None) -> str | None:
    """Return the key of an ``Authorization: Bearer <key>`` value, else None.

    The scheme is case-insensitive (RFC 7235); an empty key is None.
    """
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


class ApiKeyMiddleware:
    """Pure ASGI middleware: require a known bearer key on every HTTP request.

    Args:
        app: The application to protect.
        keys: The accepted keys.
        exempt: Paths (below the mount) served without a key, each with
            every path under it: ``("/health",)`` exempts ``/health`` and
            ``/health/ready``, not ``/healthz``.

    A matched key is stored on the request for :func:`api_key_tenant`.
    Other ASGI scopes (WebSocket, lifespan) pass through unchanged.

    """

    def __init__(
        self, app: ASGIApp, keys: ApiKeys, exempt: Sequence[str] = ("/health",)
    ) -> None:
        self.app = app
        self.keys = keys
        self.exempt = tuple(exempt)

    def _is_exempt(self, path: str) -> bool:
        return any(path == p or path.startswith(p + "/") for p in self.exempt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one connection, refusing an HTTP request without a known key."""
        if scope["type"] != "http" or self._is_exempt(route_path(scope)):
            await self.app(scope, receive, send)
            return
        token = bearer_token(_header(scope, b"authorization"))
        match = self.keys.match(token) if token is not None else None
        if match is None:
            response = json_response(
                error_envelope(
                    _NO_KEY if token is None else _WRONG_KEY, code=INVALID_API_KEY
                ),
                status_code=401,
            )
            response.headers["www-authenticate"] = "Bearer"
            await response(scope, receive, send)
            return
        scope[_SCOPE_KEY] = match
        await self.app(scope, receive, send)


def api_key_tenant(request: Request) -> str | None:
    """Return the tenant named by the key that authenticated ``request``.

    None when the request came without a key check (no keys configured, or
    a health probe) or its key names no tenant. For a checkpoint scope
    resolver of your own (``LanggraphOpenaiServe(checkpoint_scope=...)``).
    """
    match: ApiKeyMatch | None = request.scope.get(_SCOPE_KEY)
    return match.tenant if match is not None else None


def tenant_checkpoint_scope(request: Request) -> str:
    """Return a request's checkpoint scope: its key's tenant, else ``"default"``.

    The resolver ``LanggraphOpenaiServe`` uses when it has keys and no
    ``checkpoint_scope`` of the application's: keys without a tenant share
    the default scope.
    """
    return api_key_tenant(request) or DEFAULT_CHECKPOINT_SCOPE
