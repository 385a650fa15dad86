"""The connection pool's liveness check for PostgreSQL (extra ``postgres``).

:func:`check_connection` is the ``check`` that ``lgos serve`` gives its
``AsyncConnectionPool``: it asks the server only when a connection's socket
says something happened.
"""

from __future__ import annotations

import select
from typing import Any

try:
    from psycopg_pool import AsyncConnectionPool
except ImportError as exc:  # pragma: no cover - depends on installed extras
    msg = "Install langgraph-openai-serve[postgres] for PostgreSQL support."
    raise ImportError(msg) from exc

__all__ = ["check_connection"]


async def check_connection(connection: Any) -> None:
    """Check a pooled connection, asking the server only when it spoke unasked.

    A pool ``check`` for ``AsyncConnectionPool(check=...)``: psycopg_pool's
    ``check_connection`` (an empty query: one round trip per checkout) runs
    only when the connection is closed or broken, or when its socket has
    something to read. An idle connection in autocommit receives nothing
    until it sends a query, unless the server ended the session (a restart,
    ``pg_terminate_backend``: it sends the error and closes the socket) or
    notifies it, so a quiet socket is a live session as far as any check
    could tell without waiting for the network.

    Raises:
        Exception: What psycopg_pool's check raises for a dead connection.

    """
    try:
        quiet = (
            not (connection.closed or connection.broken)
            and not select.select([connection.fileno()], [], [], 0)[0]
        )
    except (OSError, ValueError):
        quiet = False
    if not quiet:
        await AsyncConnectionPool.check_connection(connection)
