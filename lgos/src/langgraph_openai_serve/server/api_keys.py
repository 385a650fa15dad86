"""The API keys of ``lgos serve``: from its settings, reloaded on ``SIGHUP``.

``LGOS_API_KEYS`` and ``LGOS_API_KEY_FILE`` give the keys
(:class:`~langgraph_openai_serve.api.api_keys.ApiKeys` describes the
format); either one turns authentication on. ``SIGHUP`` to a single
``lgos serve`` process re-reads the key file at once (with ``--workers N``,
Uvicorn's supervisor answers ``SIGHUP`` by restarting its workers, which
read it too). Serving on a non-loopback address with neither keys nor a
checkpoint scope resolver is allowed, with one warning at start-up.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager

from langgraph_openai_serve.api.api_keys import ApiKeys, parse_key_entries
from langgraph_openai_serve.server.server_settings import ServerSettings

__all__ = [
    "api_keys_from_settings",
    "is_loopback",
    "open_api_warning",
    "reload_on_sighup",
]

logger = logging.getLogger(__name__)


def api_keys_from_settings(settings: ServerSettings) -> ApiKeys | None:
    """Return the keys ``LGOS_API_KEYS`` and ``LGOS_API_KEY_FILE`` give.

    Returns:
        The keys, or None when neither setting is set (no authentication).
        A key file with no keys yet is still authentication: it refuses
        every request until keys are added.

    Raises:
        ApiKeyError: An entry is malformed or the key file cannot be read;
            the message names the entry's position, never its text.

    """
    if settings.api_keys is None and settings.api_key_file is None:
        return None
    text = settings.api_keys.get_secret_value() if settings.api_keys else ""
    return ApiKeys(parse_key_entries(text), key_file=settings.api_key_file)


@contextmanager
def reload_on_sighup(keys: ApiKeys | None) -> Iterator[None]:
    """Re-read the key file on ``SIGHUP`` for the block (when there is one).

    Installed on the running event loop; nothing is installed outside the
    main thread (an app served from a thread), on a platform without
    ``SIGHUP``, or without a key file. The previous handler comes back at
    the end.
    """
    hup = getattr(signal, "SIGHUP", None)
    if keys is None or keys.key_file is None or hup is None:
        yield
        return
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(hup, keys.reload, "SIGHUP")
    except (RuntimeError, ValueError):  # not the main thread
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(hup)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only.

    ``localhost`` and loopback addresses are; a name is resolved, and it is
    loopback when every address it resolves to is (a name that does not
    resolve is not). ``0.0.0.0`` and ``::`` (every interface) are not.
    """
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(name, None)
    except OSError:
        return False
    return bool(infos) and all(
        ipaddress.ip_address(info[4][0]).is_loopback for info in infos
    )


def open_api_warning(settings: ServerSettings, host: str | None) -> str | None:
    """Return the start-up warning for an open API on the network, or None.

    Args:
        settings: The server settings (keys, key file, scope resolver).
        host: The address ``lgos serve`` binds; None for a Unix socket or an
            inherited file descriptor, which get no warning.

    Returns:
        One line when ``host`` is not loopback and there are no keys and no
        checkpoint scope resolver; None otherwise.

    """
    if host is None or is_loopback(host):
        return None
    if (
        settings.api_keys is not None
        or settings.api_key_file is not None
        or settings.checkpoint_scope_resolver is not None
    ):
        return None
    return (
        f"The API is open: lgos serve listens on {host} with no API keys and no "
        "checkpoint scope resolver, so anyone who reaches it can call every "
        "graph and share one checkpoint scope. Set LGOS_API_KEYS or "
        "LGOS_API_KEY_FILE (see the Security page of the docs)."
    )
