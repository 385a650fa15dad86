"""Load shedding: a cap on the runs one OpenAI mount executes at once.

A burst of requests beyond what the process can run (1,500 streams at once on
one process made ``GET /v1/models`` wait 20 s) is better refused at once than
queued on the event loop: :class:`RunLimitMiddleware` answers a run request
over ``LGOS_MAX_CONCURRENT_RUNS`` with a retryable 503 ``server_overloaded``
and ``Retry-After``, which the OpenAI SDKs retry and a load balancer sends to
another replica. Only the routes that start runs count
(``POST {prefix}/responses``, ``POST {prefix}/chat/completions``), a stream
until its last event; listing models, retrieving or cancelling a background
Response and the probes are never refused.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from langgraph_openai_serve.api.asgi import route_path, send_error
from langgraph_openai_serve.api.run_failures import RETRY_AFTER_SECONDS
from langgraph_openai_serve.errors import ServerError
from langgraph_openai_serve.metrics import count_error

__all__ = ["SERVER_OVERLOADED", "RunLimitMiddleware"]

SERVER_OVERLOADED = "server_overloaded"
"""The ``code`` of the 503 for a run request over the cap."""

_RUN_ROUTES = frozenset({"/responses", "/chat/completions"})


class RunLimitMiddleware:
    """Pure ASGI middleware refusing run requests beyond ``limit`` at once.

    Args:
        app: The OpenAI app.
        limit: Run requests answered at once (a stream counts until it
            ends); the next one gets 503 ``server_overloaded`` with
            ``Retry-After: 1``.

    Attributes:
        running: Run requests being answered now.

    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.running = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection, refusing a run request over the cap."""
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or route_path(scope) not in _RUN_ROUTES
        ):
            await self.app(scope, receive, send)
            return
        if self.running >= self.limit:
            count_error(SERVER_OVERLOADED)
            error = ServerError(
                f"This server is running its maximum of {self.limit} requests at "
                "once; retry the request.",
                code=SERVER_OVERLOADED,
                status_code=503,
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
            await send_error(send, error)
            return
        self.running += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.running -= 1
