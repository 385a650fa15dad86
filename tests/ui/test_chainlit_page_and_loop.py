"""The UI's process: its page asks no CDN, its loop closes generators in tasks.

- Chainlit's page linked KaTeX's stylesheet from a CDN although the UI
  renders no math: the page the UI serves has no such link.
- ``chainlit run`` serves on a nest_asyncio loop, which installs no async
  generator hooks: a stream's abandoned generator was closed by the garbage
  collector outside any task, and httpx's ``sniffio`` check logged
  ``AsyncLibraryNotFoundError``. The loop here is left as nest_asyncio's
  ``run_until_complete`` leaves it: without those hooks.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any

import chainlit.server
import pytest
import sniffio
from chainlit.config import config

from lgos_chainlit.loop_hooks import finalize_async_generators_in_tasks
from lgos_chainlit.page import serve_page_offline, without_katex_cdn


def test_the_page_has_no_katex_cdn_link(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config.features, "latex", False)
    serve_page_offline()
    serve_page_offline()  # once is enough: no double wrapping
    html = chainlit.server.get_html_template("")
    assert "katex" not in html
    assert "cdn.jsdelivr.net" not in html
    assert '<script type="module"' in html  # the rest of the page is there
    # With LaTeX on, the stylesheet is Chainlit's own again.
    monkeypatch.setattr(config.features, "latex", True)
    assert "katex" in chainlit.server.get_html_template("")
    assert without_katex_cdn('<link rel="stylesheet" href="/x.css">') == (
        '<link rel="stylesheet" href="/x.css">'
    )


def _libraries_seen_when_abandoned(install: bool) -> list[str]:
    """Abandon a started async generator on Chainlit's kind of loop.

    The generator's cleanup asks sniffio for the async library, as httpx's
    does; the last reference goes in a loop callback, as when a closed page
    drops a session.
    """
    seen: list[str] = []

    async def chunks() -> AsyncIterator[int]:
        try:
            yield 1
            yield 2
        finally:
            try:
                seen.append(sniffio.current_async_library())
            except sniffio.AsyncLibraryNotFoundError:
                seen.append("none")

    async def main() -> None:
        # What nest_asyncio's run_until_complete leaves: no hooks.
        sys.set_asyncgen_hooks(firstiter=None, finalizer=None)
        if install:
            assert finalize_async_generators_in_tasks()
        holder = [chunks()]
        assert await holder[0].__anext__() == 1
        loop = asyncio.get_running_loop()
        loop.call_soon(holder.clear)  # the generator dies outside any task
        for _ in range(5):
            await asyncio.sleep(0)

    hooks = sys.get_asyncgen_hooks()
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
    finally:
        sys.set_asyncgen_hooks(*hooks)
        loop.close()
    return seen


def test_abandoned_generators_are_closed_in_a_task() -> None:
    # Chainlit's loop alone: closed outside any task, sniffio finds nothing.
    assert _libraries_seen_when_abandoned(install=False) == ["none"]
    # With the UI's start-up hook: closed in a task of the loop.
    assert _libraries_seen_when_abandoned(install=True) == ["asyncio"]


def test_the_hook_keeps_a_finalizer_already_there() -> None:
    def theirs(generator: Any) -> None:  # pragma: no cover - never called
        pass

    async def main() -> bool:
        # A finalizer is set (as asyncio's run_forever sets one; set here by
        # hand, since nest_asyncio, once applied by another test, patches
        # every loop of this class not to).
        sys.set_asyncgen_hooks(firstiter=None, finalizer=theirs)
        installed = finalize_async_generators_in_tasks()
        assert sys.get_asyncgen_hooks().finalizer is theirs
        return installed

    hooks = sys.get_asyncgen_hooks()
    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(main()) is False
    finally:
        sys.set_asyncgen_hooks(*hooks)
        loop.close()
