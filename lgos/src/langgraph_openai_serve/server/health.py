"""The probes of ``lgos serve``: ``GET /health/live`` and ``GET /health/ready``.

Both live at the root of the server, outside the OpenAI prefix, where
Kubernetes probes and load balancers conventionally look (and where API keys
do not apply). ``{prefix}/health`` (``/v1/health``) keeps answering as before.

- ``/health/live``: 200 ``{"status": "ok"}`` while the process serves HTTP,
  also while it shuts down (restarting a draining process would cut its runs).
- ``/health/ready``: 200 when every check passes, else 503; the body names
  each check and, under ``failing``, the ones that failed::

      {"status": "not_ready", "failing": ["postgres"],
       "checks": {"registry": "ok", "shutdown": "ok",
                  "postgres": "no answer within 0.8 s"}}

The checks: ``registry`` (the registry factory's registry is loaded),
``shutdown`` (the server is not shutting down), ``postgres`` when
``LGOS_POSTGRES_URI`` is set (a pooled connection answers ``select 1``),
``hatchet`` when ``LGOS_BACKGROUND_ENGINE=hatchet`` (the engine's REST API
answers its readiness route). They run concurrently, each within
:data:`READY_TIMEOUT_SECONDS`; concurrent probes share one round of checks,
and no check opens a connection of its own, so polling every second is cheap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from langgraph_openai_serve.api.json_response import json_response

__all__ = [
    "READY_TIMEOUT_SECONDS",
    "NotReady",
    "Readiness",
    "ReadinessCheck",
    "ReadinessChecks",
    "probe_routes",
]

logger = logging.getLogger(__name__)

READY_TIMEOUT_SECONDS = 0.8
"""How long one readiness check may take before it counts as failed.

Below Kubernetes' default probe timeout (1 s), so a slow dependency is
reported by name instead of as a probe timeout.
"""

ReadinessCheck = Callable[[], Awaitable[None]]
"""A readiness check: returns when its dependency works, raises otherwise."""

ReadinessChecks = dict[str, ReadinessCheck]
"""Readiness checks by the name reported in ``/health/ready``."""


class NotReady(Exception):
    """Raised by a readiness check; its message is the reason reported."""


class Readiness:
    """Run named readiness checks and report them as ``/health/ready`` does.

    Args:
        checks: The checks by name; the dict may still be filled after this
            object is created (the server's resources add theirs when they
            open).
        timeout: Seconds each check may take.

    """

    def __init__(
        self, checks: ReadinessChecks, *, timeout: float = READY_TIMEOUT_SECONDS
    ) -> None:
        self.checks = checks
        self.timeout = timeout
        self._round: asyncio.Future[dict[str, str]] | None = None
        self._failing: set[str] = set()

    async def report(self) -> dict[str, str]:
        """Run every check once (sharing a round already running).

        Returns:
            ``{name: "ok" | reason}`` for every check.

        """
        current = self._round
        if current is None or current.done() or current.get_loop().is_closed():
            current = asyncio.ensure_future(self._run())
            self._round = current
        return await asyncio.shield(current)

    async def _run(self) -> dict[str, str]:
        names = list(self.checks)
        results = await asyncio.gather(*(self._one(n) for n in names))
        return dict(zip(names, results, strict=True))

    async def _one(self, name: str) -> str:
        try:
            async with asyncio.timeout(self.timeout):
                await self.checks[name]()
        except TimeoutError:
            return self._failed(name, f"no answer within {self.timeout:g} s", None)
        except NotReady as exc:
            return self._failed(name, str(exc), None)
        except Exception as exc:  # any failure is "not ready", by name
            return self._failed(name, f"failed ({type(exc).__name__})", exc)
        if name in self._failing:
            self._failing.discard(name)
            logger.info("Readiness check %r passes again", name)
        return "ok"

    def _failed(self, name: str, reason: str, exc: BaseException | None) -> str:
        # Logged when the check starts failing, not on every probe.
        if name not in self._failing:
            self._failing.add(name)
            logger.warning("Readiness check %r fails: %s", name, reason, exc_info=exc)
        return reason


def probe_routes(readiness: Callable[[Request], Readiness]) -> list[Route]:
    """Return the ``/health/live`` and ``/health/ready`` routes.

    Args:
        readiness: Returns the :class:`Readiness` of the request's app.

    """

    async def live(_request: Request) -> Response:
        return json_response({"status": "ok"})

    async def ready(request: Request) -> Response:
        checks = await readiness(request).report()
        failing = [name for name, result in checks.items() if result != "ok"]
        if failing:
            body = {"status": "not_ready", "failing": failing, "checks": checks}
            return json_response(body, 503)
        return json_response({"status": "ready", "checks": checks})

    return [
        Route("/health/live", live, methods=["GET"], name="health_live"),
        Route("/health/ready", ready, methods=["GET"], name="health_ready"),
    ]
