"""Only this machine's names reach the UI, and only its own pages open its socket.

A web page the user visits must not drive the chat UI with the user's
session. Two ways in, two checks:

- DNS rebinding: a page's own host name made to resolve to 127.0.0.1 is
  same-origin with the UI, so neither cookies nor CORS stop it. Starlette's
  ``TrustedHostMiddleware`` answers a ``Host`` the UI does not go by with
  HTTP 400, on every request and socket handshake. The names are
  :func:`allowed_hosts`.
- Another site's page opening the UI's Socket.IO connection: browsers apply
  no CORS to WebSockets, and Chainlit turns Engine.IO's origin check off
  (``cors_allowed_origins=[]``, as its HTTP CORS is its own middleware), so
  a page on another port of this host (same site, so the login cookie goes
  along) could chat as the user. :func:`same_host_origin` puts the check
  back: a handshake's ``Origin`` must name the host it was sent to.

:func:`install` applies both to Chainlit's app; ``python -m lgos_chainlit``
calls it before the server starts.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from starlette.middleware.trustedhost import TrustedHostMiddleware

from lgos_chainlit.settings import ChainlitSettings

__all__ = ["LOOPBACK_HOSTS", "allowed_hosts", "install", "same_host_origin"]

LOOPBACK_HOSTS = ("localhost", "*.localhost", "127.0.0.1")
"""Names always accepted (RFC 6761 for ``localhost``)."""


def _is_loopback(address: str) -> bool:
    if address.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(settings: ChainlitSettings, bind_host: str) -> list[str]:
    """Return the ``Host`` names the UI answers to, for ``TrustedHostMiddleware``.

    Args:
        settings: ``allowed_hosts`` (``DEMO_CHAINLIT_ALLOWED_HOSTS``) adds
            names; ``publish_address`` is where users reach the UI when it
            is not ``bind_host`` (Compose).
        bind_host: The address the UI listens on.

    Returns:
        The loopback names plus the configured ones; with none configured,
        ``["*"]`` (any name) when the UI is reached on a non-loopback
        address, whose public names it cannot know.

    """
    if settings.allowed_hosts:
        return [*LOOPBACK_HOSTS, *settings.allowed_hosts]
    if _is_loopback(settings.publish_address or bind_host):
        return list(LOOPBACK_HOSTS)
    return ["*"]


def same_host_origin(origin: str | None, environ: dict[str, Any]) -> bool:
    """Tell Engine.IO whether ``origin`` names the host it was sent to.

    Either scheme is accepted (a TLS proxy in front may not say so), the host
    and port must be the request's ``Host``. A request without ``Origin`` (not
    a browser) is not checked by Engine.IO at all.
    """
    if not origin:
        return False
    parts = urlsplit(origin.strip().lower())
    host = str(environ.get("HTTP_HOST", "")).lower()
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host


def install(app: Any, sio: Any, settings: ChainlitSettings, bind_host: str) -> None:
    """Put both checks on Chainlit's ``app`` (FastAPI) and ``sio`` (Socket.IO).

    Call before the server starts: middleware cannot be added afterwards.
    """
    app.add_middleware(
        TrustedHostMiddleware, allowed_hosts=allowed_hosts(settings, bind_host)
    )
    sio.eio.cors_allowed_origins = same_host_origin
