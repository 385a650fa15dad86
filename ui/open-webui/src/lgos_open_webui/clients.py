"""The OpenAI clients the pipe keeps open: one per event loop, URL, key, timeout."""

from __future__ import annotations

import asyncio
import weakref

from openai import AsyncOpenAI


class ClientCache:
    """One OpenAI client per event loop, URL, key and timeout, kept open.

    A client holds a connection pool and a TLS context that are slow to
    build on every request; its pool belongs to the loop it first ran
    on, hence one set of clients per loop (held weakly by the loop).
    """

    def __init__(self) -> None:
        """Start with no clients."""
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[tuple[str, str, float], AsyncOpenAI]
        ] = weakref.WeakKeyDictionary()

    def get(self, base_url: str, api_key: str, timeout: float) -> AsyncOpenAI:
        """Return the running loop's client for this URL, key and timeout."""
        loop = asyncio.get_running_loop()
        clients = self._clients.setdefault(loop, {})
        key = (base_url, api_key, timeout)
        client = clients.get(key)
        if client is None or client.is_closed():
            client = AsyncOpenAI(
                base_url=base_url,
                api_key=api_key or "lgos-demo",
                timeout=timeout,
                max_retries=1,
            )
            clients[key] = client
        return client

    async def close(self) -> None:
        """Close the clients made on the running loop."""
        clients = self._clients.pop(asyncio.get_running_loop(), {})
        for client in clients.values():
            await client.close()
