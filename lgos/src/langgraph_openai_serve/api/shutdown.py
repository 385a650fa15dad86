"""An OpenAI app's graceful shutdown: refuse new requests, finish or stop the rest.

:class:`ShutdownState` is what a server drives when it is told to stop
(``lgos serve`` on SIGTERM, see :mod:`langgraph_openai_serve.server.shutdown`):
:meth:`~ShutdownState.begin` makes :class:`ShutdownMiddleware` answer every new
request with a retryable 503 ``server_shutting_down``;
:meth:`~ShutdownState.wait_idle` waits for the requests already in flight;
:meth:`~ShutdownState.stop_runs` stops the runs still executing (they fail
with :class:`~langgraph_openai_serve.graph.run_stop.RunStoppedError`, which
keeps any pause they were answering).
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Receive, Scope, Send

from langgraph_openai_serve.api.asgi import route_path, send_error
from langgraph_openai_serve.api.run_failures import shutting_down
from langgraph_openai_serve.graph.run_stop import RunStop

__all__ = ["ShutdownMiddleware", "ShutdownState"]

_ALWAYS_SERVED = frozenset({"/health"})
"""Routes answered while shutting down (and not counted as in flight)."""


class ShutdownState:
    """One OpenAI app's shutdown: refusal, requests in flight, and its run switch.

    Attributes:
        run_stop: The switch handed to every run the app starts
            (``RunSession.stop``).

    """

    def __init__(self) -> None:
        self.run_stop = RunStop()
        self._shutting_down = False
        self._in_flight = 0
        self._waiters: set[asyncio.Future[None]] = set()

    @property
    def shutting_down(self) -> bool:
        """Whether :meth:`begin` was called: new requests are refused."""
        return self._shutting_down

    @property
    def in_flight(self) -> int:
        """Requests being answered now (a stream counts until its last event)."""
        return self._in_flight

    def begin(self) -> None:
        """Refuse new requests from now on (idempotent)."""
        self._shutting_down = True

    def stop_runs(self) -> None:
        """Stop every run still executing (they fail as ``server_shutting_down``)."""
        self.run_stop.stop()

    async def wait_idle(self, seconds: float) -> bool:
        """Wait up to ``seconds`` until no request is in flight.

        Returns:
            True when idle, False when requests were still in flight.

        """
        if self._in_flight == 0:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), seconds)
        except TimeoutError:
            return False
        finally:
            self._waiters.discard(waiter)
        return True

    def _enter(self) -> None:
        self._in_flight += 1

    def _leave(self) -> None:
        self._in_flight -= 1
        if self._in_flight == 0:
            for waiter in self._waiters:
                if not waiter.done():
                    waiter.set_result(None)


class ShutdownMiddleware:
    """Pure ASGI middleware of the OpenAI mount: count requests, refuse when stopping.

    Once ``state.begin()`` was called, a request to any route but
    ``{prefix}/health`` gets 503 ``server_shutting_down`` in OpenAI's error
    envelope with ``Retry-After``: the OpenAI SDKs retry it, and a load
    balancer sends the retry to another replica.
    """

    def __init__(self, app: ASGIApp, state: ShutdownState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection; only ``http`` scopes are counted."""
        if scope["type"] != "http" or route_path(scope) in _ALWAYS_SERVED:
            await self.app(scope, receive, send)
            return
        state = self.state
        if state.shutting_down:
            await send_error(send, shutting_down())
            return
        state._enter()
        try:
            await self.app(scope, receive, send)
        finally:
            state._leave()
