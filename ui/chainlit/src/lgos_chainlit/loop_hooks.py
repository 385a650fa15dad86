"""Close abandoned async generators in a task, as asyncio does, under Chainlit.

``chainlit run`` applies ``nest_asyncio`` and serves with ``asyncio.run``,
which nest_asyncio runs through its own ``run_until_complete``; unlike
``run_forever``, that never installs the loop's async generator hooks. An
async generator left unfinished (the OpenAI SDK leaves its SSE iterator so
when a stream ends, and a closed page leaves a streamed answer's) is then
closed by the garbage collector *outside any task*, wherever collection
happens to run. httpx's cleanup asks ``sniffio`` which async library runs
it, finds none, and the log shows ``Exception ignored in: <async_generator
object PoolByteStream.__aiter__>`` with a ``sniffio.AsyncLibraryNotFoundError``
traceback (seen when a page was reloaded or closed).

:func:`finalize_async_generators_in_tasks`, called at app start-up inside
the serving loop, installs the hook asyncio's ``run_forever`` would: an
abandoned generator is closed with ``aclose()`` in a task of that loop.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from typing import Any

__all__ = ["finalize_async_generators_in_tasks"]


def finalize_async_generators_in_tasks() -> bool:
    """Install an async generator finalizer for the running loop, if none is.

    Returns:
        Whether it was installed (``False``: the thread already has one, as
        under ``asyncio.run`` without nest_asyncio).

    Raises:
        RuntimeError: No event loop is running.

    """
    loop = asyncio.get_running_loop()
    firstiter, finalizer = sys.get_asyncgen_hooks()
    if finalizer is not None:
        return False

    def finalize(generator: AsyncGenerator[Any, Any]) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(loop.create_task, generator.aclose())

    sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalize)
    return True
