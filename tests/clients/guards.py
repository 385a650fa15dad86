"""The client matrix's guards: loopback only, and a record of what went on the wire.

``tests/clients/conftest.py`` makes them the fixtures ``offline_only`` and
``wire`` (the Python client modules annotate the latter with :class:`Wire`):

- ``offline_only`` fails a test that tries to reach anything but loopback
  (DNS lookups and connections are blocked while the test runs, by an audit
  hook, so a client's telemetry or price-map download cannot leave the
  machine even in a background thread).
- ``wire`` records the JSON body of every request the clients send, at
  ``httpx``/``httpx2`` ``send()``, whatever client object a library builds
  internally.
"""

from __future__ import annotations

import ipaddress
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

# --------------------------------------------------------------------------
# Loopback only
# --------------------------------------------------------------------------

_guard = {"active": False}
_blocked: list[str] = []


def _is_loopback(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str):
        return False
    if host in ("localhost", "localhost.", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _guard["active"]:
        return
    if event == "socket.getaddrinfo":
        host, port = args[0], args[1]
    elif event == "socket.connect":
        address = args[1]
        if not isinstance(address, tuple):  # a Unix socket path
            return
        host, port = address[0], address[1]
    else:
        return
    if _is_loopback(host):
        return
    _blocked.append(f"{event} {host!r}:{port}")
    raise ConnectionRefusedError(f"client matrix: {host!r} is not loopback")


sys.addaudithook(_audit)


@contextmanager
def loopback_only() -> Iterator[list[str]]:
    """Block any lookup or connection beyond loopback; yield what was blocked."""
    _blocked.clear()
    _guard["active"] = True
    try:
        yield _blocked
    finally:
        _guard["active"] = False


# --------------------------------------------------------------------------
# A record of what went on the wire
# --------------------------------------------------------------------------


@dataclass
class Sent:
    """One request a client sent."""

    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Wire:
    """Every request of a test, oldest first."""

    sent: list[Sent] = field(default_factory=list)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        """The JSON bodies of the POSTs whose path ends with ``path``."""
        return [
            s.body for s in self.sent if s.method == "POST" and s.path.endswith(path)
        ]

    def record(self, request: Any) -> None:
        content = request.content
        try:
            body = json.loads(content) if content else None
        except ValueError:
            body = content
        self.sent.append(
            Sent(request.method, request.url.path, body, dict(request.headers))
        )


def record_wire(monkeypatch: pytest.MonkeyPatch) -> Wire:
    """Record every request sent through httpx or httpx2 until ``monkeypatch`` undoes it."""
    import httpx2  # the OpenAI SDK's HTTP stack

    recorded = Wire()
    for module in (httpx, httpx2):
        sync_send, async_send = module.Client.send, module.AsyncClient.send

        def send(self, request, *a, _send=sync_send, **kw):  # type: ignore[no-untyped-def]
            recorded.record(request)
            return _send(self, request, *a, **kw)

        async def asend(self, request, *a, _send=async_send, **kw):  # type: ignore[no-untyped-def]
            recorded.record(request)
            return await _send(self, request, *a, **kw)

        monkeypatch.setattr(module.Client, "send", send)
        monkeypatch.setattr(module.AsyncClient, "send", asend)
    return recorded
