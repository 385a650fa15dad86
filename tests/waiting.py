"""Wait for a condition to hold, instead of sleeping a fixed time and hoping.

A test that needs something to happen first (a run to start, a lease to be
taken, a log line, a process to answer) polls that condition here, with a
deadline, and fails with a message naming what never happened. Prefer an
``asyncio.Event`` set by the code under test (or a test graph's node) where
there is one; poll only what offers no event.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

T = TypeVar("T")

Message = str | Callable[[], str] | None


def _describe(predicate: Callable[[], object], message: Message) -> str:
    if callable(message):
        return message()
    if message:
        return message
    return getattr(predicate, "__qualname__", repr(predicate))


async def eventually(
    predicate: Callable[[], T | Awaitable[T | None] | None],
    *,
    timeout: float = 10,  # noqa: ASYNC109 - the polling deadline, named in the failure
    interval: float = 0.01,
    message: Message = None,
) -> T:
    """Return the first truthy value of ``predicate()``, polled until ``timeout``.

    ``predicate`` may be a coroutine function. ``message`` (or a function
    building it, called only on failure) says what was awaited.

    Raises:
        AssertionError: ``predicate()`` stayed falsy for ``timeout`` seconds.

    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return cast(T, value)
        if time.monotonic() >= deadline:
            what = _describe(predicate, message)
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(interval)


def wait_until(
    predicate: Callable[[], T | None],
    *,
    timeout: float = 10,
    interval: float = 0.05,
    message: Message = None,
) -> T:
    """:func:`eventually` for synchronous tests (a real process, a browser)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            what = _describe(predicate, message)
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)
