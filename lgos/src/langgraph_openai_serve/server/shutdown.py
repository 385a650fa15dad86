"""``lgos serve`` on SIGTERM: drain, then let Uvicorn shut down.

Uvicorn's own reaction to SIGTERM is to close its listening socket at once
and wait for open connections, while sse-starlette ends every open event
stream at the same moment. ``lgos serve`` puts a drain in front of it
(:func:`install_drain`, from the app's lifespan):

1. at once: ``/health/ready`` fails (check ``shutdown``) and every new request
   under the OpenAI prefix gets a retryable 503 ``server_shutting_down`` with
   ``Retry-After``; the socket stays open, so a load balancer that has not
   yet seen the failed probe gets that answer, not a refused connection;
2. the requests in flight get ``LGOS_SHUTDOWN_GRACE_SECONDS`` to finish;
3. the runs still executing then are stopped: each fails with
   ``server_shutting_down`` (``response.failed`` on a Responses stream) the
   way a lost lease stops a run, so a resume keeps the pause it answered
   and its lease is released;
4. Uvicorn's own SIGTERM handling takes over: it closes the socket, waits for
   the connections (``--timeout-graceful-shutdown`` bounds that wait), runs
   the lifespan's shutdown (the PostgreSQL pool closes) and exits; ``lgos
   serve`` exits 0.

A second SIGTERM skips what is left of the grace period. SIGINT (Ctrl-C) is
left to Uvicorn. With ``--workers N`` the supervisor forwards SIGTERM to each
worker process, which drains on its own.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

from langgraph_openai_serve.api.shutdown import ShutdownState
from langgraph_openai_serve.graph.run_stop import RunStop

__all__ = ["STOP_WAIT_SECONDS", "drain", "install_drain", "stop_after_grace"]

logger = logging.getLogger(__name__)

STOP_WAIT_SECONDS = 15.0
"""How long the drain waits, after stopping the runs, for their requests to end.

A stopped graph gets up to ``CANCEL_GRACE_SECONDS`` (10 s) to stop, then its
lease is released; what is still open after this goes to Uvicorn's wait.
"""


async def drain(shutdown: ShutdownState, grace: float) -> None:
    """Refuse new requests, give those in flight ``grace`` seconds, stop the rest.

    Returns once no request is in flight, or :data:`STOP_WAIT_SECONDS` after
    the runs were stopped.
    """
    shutdown.begin()
    if shutdown.in_flight:
        logger.info(
            "Shutting down: new requests are refused; waiting up to %g s for "
            "%d in flight",
            grace,
            shutdown.in_flight,
        )
    if await shutdown.wait_idle(grace):
        return
    logger.warning(
        "Shutting down: the grace period is over; stopping %d request(s) in flight",
        shutdown.in_flight,
    )
    shutdown.stop_runs()
    if not await shutdown.wait_idle(STOP_WAIT_SECONDS):
        logger.warning(
            "Shutting down: %d request(s) still in flight after their runs were "
            "stopped; Uvicorn's graceful shutdown takes over",
            shutdown.in_flight,
        )


def _uvicorn_handler(handler: Any) -> bool:
    """Whether ``handler`` is a running Uvicorn server's signal handler."""
    try:
        from uvicorn.server import Server
    except ImportError:  # pragma: no cover - the server extra is missing
        return False
    return isinstance(getattr(handler, "__self__", None), Server)


def _end_event_streams() -> None:
    """Let sse-starlette end any event stream still open (its documented switch)."""
    from sse_starlette.sse import AppStatus

    AppStatus.should_exit = True


def install_drain(shutdown: ShutdownState, grace: float) -> Callable[[], None] | None:
    """Put :func:`drain` in front of Uvicorn's SIGTERM handling.

    Call it from the app's lifespan startup, in the event loop's thread:
    Uvicorn has installed its signal handlers by then. Elsewhere (not the
    main thread, or not under Uvicorn, such as an in-process test client)
    nothing is installed.

    Args:
        shutdown: The OpenAI app's shutdown state.
        grace: Seconds the requests in flight get before their runs are
            stopped (``LGOS_SHUTDOWN_GRACE_SECONDS``).

    Returns:
        A function restoring Uvicorn's handler, or None when nothing was
        installed.

    """
    if threading.current_thread() is not threading.main_thread():
        return None
    uvicorn_handler = signal.getsignal(signal.SIGTERM)
    if not _uvicorn_handler(uvicorn_handler):
        return None
    assert callable(uvicorn_handler)
    loop = asyncio.get_running_loop()
    draining: list[asyncio.Task[None]] = []
    signalled: list[int] = []

    def hand_over() -> None:
        _end_event_streams()
        uvicorn_handler(signal.SIGTERM, None)

    def start() -> None:
        task = loop.create_task(drain(shutdown, grace), name="lgos.shutdown")
        task.add_done_callback(lambda _: hand_over())
        draining.append(task)

    def skip_grace() -> None:
        logger.warning("Shutting down: a second SIGTERM ends the grace period")
        shutdown.stop_runs()
        for task in draining:
            task.cancel()

    def on_sigterm(_signum: int, _frame: FrameType | None) -> None:
        # A signal handler runs between two bytecodes of the loop's thread:
        # set a flag, and leave the rest to the loop.
        if signalled:
            loop.call_soon_threadsafe(skip_grace)
            return
        signalled.append(_signum)
        shutdown.begin()  # readiness fails from the very next probe
        loop.call_soon_threadsafe(start)

    signal.signal(signal.SIGTERM, on_sigterm)

    def uninstall() -> None:
        if signal.getsignal(signal.SIGTERM) is on_sigterm:
            signal.signal(signal.SIGTERM, uvicorn_handler)

    return uninstall


def stop_after_grace(stop: RunStop, grace: float) -> Callable[[], None] | None:
    """Bound a SIGTERM handler's wait for running tasks: ``lgos worker``'s drain.

    Wraps the SIGTERM handler in place (the Hatchet SDK's: stop taking
    tasks, wait for the running ones, exit): it still runs on the first
    SIGTERM, and ``grace`` seconds later ``stop`` stops the runs still
    executing. A second SIGTERM stops them at once, instead of the SDK's
    forced exit. Call it from a coroutine on the worker's loop, in the main
    thread; elsewhere nothing is installed.

    Returns:
        A function restoring the wrapped handler, or None when nothing was
        installed.

    """
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGTERM)
    if not callable(handler):
        return None
    loop = asyncio.get_running_loop()
    signalled: list[int] = []

    def stop_now() -> None:
        if not stop.stopped:
            logger.warning("Shutting down: stopping the runs still executing")
        stop.stop()

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        if signalled:
            loop.call_soon_threadsafe(stop_now)
            return
        signalled.append(signum)
        handler(signum, frame)
        loop.call_soon_threadsafe(loop.call_later, grace, stop_now)

    signal.signal(signal.SIGTERM, on_sigterm)

    def restore() -> None:
        if signal.getsignal(signal.SIGTERM) is on_sigterm:
            signal.signal(signal.SIGTERM, handler)

    return restore
