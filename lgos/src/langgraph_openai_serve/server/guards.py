"""HTTP guards against web pages that drive a local server: Host and Origin.

A page the user visits can send requests to a server on the user's machine:
through DNS rebinding (its own host name made to resolve to 127.0.0.1, the
attack of Ollama's CVE-2024-28224) or as a cross-site request that needs no
CORS preflight (a form post, a ``fetch`` with a ``text/plain`` body). The MCP
specification asks its servers to check ``Origin`` for the same reason.
:class:`HostOriginGuard` answers both, and :func:`install_guards` puts it (and
Starlette's ``CORSMiddleware`` when origins are allowed) on an app. ``lgos
serve``, the demo's Files service and its corpus server all use it, with the
same settings:

- ``LGOS_ALLOWED_HOSTS``: host names (``api``, ``*.example.com``, ``*`` for
  any) accepted in the ``Host`` header besides the loopback names
  (``localhost``, ``*.localhost``, ``127.0.0.1``, ``::1``). Unset, a
  connection that arrived on a loopback address accepts only the loopback
  names, and a connection on another address any name (the server cannot
  know its public names: set the list there). A refused host is HTTP 421.
- ``LGOS_CORS_ALLOW_ORIGINS``: origins (``https://app.example.com``, ``*``)
  whose browser requests are served, with CORS headers. A request with an
  ``Origin`` header that is neither listed nor the server's own origin (its
  ``Host``) is HTTP 403, preflights included; a request without ``Origin``
  (an SDK, curl, a server-side UI) is not concerned.

Probe paths (``exempt``) are served whatever their ``Host``: a kubelet sends
the pod's IP address.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Sequence
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from langgraph_openai_serve.errors import error_envelope

__all__ = [
    "LOOPBACK_HOSTS",
    "GuardSettings",
    "HostOriginGuard",
    "install_guards",
]

logger = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("localhost", "*.localhost", "127.0.0.1", "::1")
"""Host names always accepted: the loopback names (RFC 6761 for ``localhost``)."""

INVALID_HOST = "invalid_host"
"""The ``code`` of a 421 for a ``Host`` this server does not answer to."""

CROSS_ORIGIN = "cross_origin_request"
"""The ``code`` of a 403 for a browser request from an origin not allowed."""


def _split(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class GuardSettings(BaseSettings):
    """The guards' settings, read from ``LGOS_*`` variables.

    Attributes:
        allowed_hosts: ``LGOS_ALLOWED_HOSTS``, names separated by commas;
            ``*.example.com`` matches every subdomain, ``*`` any name. Empty
            (the default): loopback names on loopback connections, any name
            on others.
        cors_allow_origins: ``LGOS_CORS_ALLOW_ORIGINS``, origins
            (``scheme://host[:port]``) separated by commas, or ``*``.

    """

    model_config = SettingsConfigDict(env_prefix="LGOS_", extra="ignore")

    allowed_hosts: Annotated[list[str], NoDecode] = []
    cors_allow_origins: Annotated[list[str], NoDecode] = []

    _split_hosts = field_validator("allowed_hosts", mode="before")(_split)
    _split_origins = field_validator("cors_allow_origins", mode="before")(_split)


def _host_name(host_header: str) -> str:
    """Return the name of a ``Host`` value, without port or IPv6 brackets."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _matches(name: str, patterns: Sequence[str]) -> bool:
    for pattern in patterns:
        if pattern == "*" or name == pattern:
            return True
        if pattern.startswith("*.") and name.endswith(pattern[1:]):
            return True
    return False


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class HostOriginGuard:
    """Pure ASGI middleware refusing foreign ``Host`` and ``Origin`` headers.

    Args:
        app: The application to protect.
        allowed_hosts: Names accepted besides :data:`LOOPBACK_HOSTS`; empty:
            see the module's rule for loopback and other connections.
        allowed_origins: Origins accepted besides the server's own; ``*``
            accepts every origin.
        exempt: Paths served without the checks (probes), each with every
            path under it.

    Refusals are JSON in OpenAI's error envelope: 421 ``invalid_host``,
    403 ``cross_origin_request``. A WebSocket handshake (a chat UI's socket)
    is checked the same way and refused by closing it before it is accepted,
    which the server answers with HTTP 403 (the ASGI specification's rule);
    a browser sends ``Origin`` on every handshake. Other scopes (lifespan)
    pass unchanged.

    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Sequence[str] = (),
        allowed_origins: Sequence[str] = (),
        exempt: Sequence[str] = (),
    ) -> None:
        self.app = app
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts)
        self.allowed_origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)
        self.exempt = tuple(exempt)

    def _host_allowed(self, scope: Scope, name: str) -> bool:
        if _matches(name, LOOPBACK_HOSTS) or _matches(name, self.allowed_hosts):
            return True
        if self.allowed_hosts:
            return False
        server = scope.get("server")
        on_loopback = bool(server) and _is_loopback(str(server[0]))
        return not on_loopback

    def _origin_allowed(self, origin: str, host_header: str) -> bool:
        origin = origin.strip().rstrip("/").lower()
        if "*" in self.allowed_origins or origin in self.allowed_origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc == host_header.lower()

    def _exempt(self, path: str) -> bool:
        return any(path == p or path.startswith(p + "/") for p in self.exempt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one connection, refusing a request from a foreign page."""
        if scope["type"] not in ("http", "websocket") or self._exempt(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = {k: v for k, v in scope["headers"] if k in (b"host", b"origin")}
        host_header = headers.get(b"host", b"").decode("latin-1")
        name = _host_name(host_header)
        if not self._host_allowed(scope, name):
            logger.warning("Refused a request for host %r (LGOS_ALLOWED_HOSTS)", name)
            message = (
                f"This server does not answer to the host name {name!r}; "
                "add it to LGOS_ALLOWED_HOSTS if it is yours."
            )
            await _refuse(421, message, INVALID_HOST, scope, receive, send)
            return
        origin = headers.get(b"origin")
        if origin is not None:
            text = origin.decode("latin-1")
            if not self._origin_allowed(text, host_header):
                logger.warning(
                    "Refused a request from origin %r (LGOS_CORS_ALLOW_ORIGINS)", text
                )
                message = (
                    f"Requests from the web origin {text!r} are not allowed; add it "
                    "to LGOS_CORS_ALLOW_ORIGINS if it is yours."
                )
                await _refuse(403, message, CROSS_ORIGIN, scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _refuse(
    status: int, message: str, code: str, scope: Scope, receive: Receive, send: Send
) -> None:
    if scope["type"] == "websocket":
        # 1008: policy violation. Closed before acceptance: an HTTP 403.
        await WebSocketClose(code=1008, reason=code)(scope, receive, send)
        return
    body = error_envelope(message, code=code)
    await JSONResponse(body, status_code=status)(scope, receive, send)


def install_guards(
    app: Any,
    settings: GuardSettings | None = None,
    *,
    exempt: Sequence[str] = (),
) -> None:
    """Put the Host and Origin guard, and CORS when origins are allowed, on ``app``.

    Call it before ``app`` starts (it adds middleware to a Starlette or
    FastAPI app). CORS (Starlette's ``CORSMiddleware``) wraps the guard, so an
    allowed origin's preflight is answered with CORS headers; its credentials
    are off (the API's keys travel in ``Authorization``, which is allowed).

    Args:
        app: The Starlette or FastAPI application.
        settings: The guards' settings; read from ``LGOS_*`` variables when None.
        exempt: Paths served without the checks (the probes).

    """
    settings = settings if settings is not None else GuardSettings()
    app.add_middleware(
        HostOriginGuard,
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.cors_allow_origins,
        exempt=exempt,
    )
    if settings.cors_allow_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_allow_origins,
            allow_methods=["*"],
            allow_headers=["*"],
            expose_headers=["x-request-id", "retry-after"],
        )
