"""Driving Open WebUI's chat page with Playwright (sync API).

Shared by the browser tests (``tests/e2e/test_open_webui.py``) and the
script that takes the documentation's screenshots
(``scripts/open-webui-screenshots.py``), so both drive the page the same way.
Selectors are Open WebUI 0.12's (the version ``scripts/ensure-open-webui.sh``
pins).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODEL_BUTTON = "#model-selector-model-button"
ANSWER = "#response-content-container"
"""Each assistant answer's rendered content (``.last`` is the newest)."""
PNG_DATA_URL = 'img[src^="data:image/png;base64,"]'
"""An image shown from a ``data:`` URL (how the pipe shows a display_file PNG)."""


LOAD_ATTEMPTS = 4
"""Page loads tried before a test fails (see ``load``)."""


def load(
    page: Any, navigate: Callable[[], Any], *, attempts: int = LOAD_ATTEMPTS
) -> None:
    """Run ``navigate`` (a ``goto`` or a ``reload``) until Open WebUI's app
    has started in the page: its model button shows.

    When it shows SvelteKit's "500: Internal Error" page instead, the load
    is tried again after two seconds, up to ``attempts`` loads in all; then
    ``AssertionError`` (Playwright's ``expect``), or Playwright's ``Error`` when the
    document itself failed to load on the last try. The cause, seen in CI: the
    app's first load fetches some fifty script chunks, and Chromium fails
    every request under way with ``net::ERR_NETWORK_CHANGED`` when the
    machine's addresses change, which a container engine does as it creates
    a network or starts a container (the Compose tier runs beside the
    browser tier). The failed dynamic import ends in that error page, as a
    user would see it; a user reloads, and so does the test.
    """
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    started = page.locator(MODEL_BUTTON)
    failed = page.get_by_text("500: Internal Error", exact=True)
    for attempt in range(1, attempts + 1):
        try:
            navigate()
        except PlaywrightError as error:
            # The document itself can be the request the change failed.
            if "ERR_NETWORK_CHANGED" not in str(error) or attempt == attempts:
                raise
        else:
            expect(started.or_(failed).first).to_be_visible(timeout=120_000)
            if not failed.is_visible() or attempt == attempts:
                break
        print(
            f"Open WebUI's page failed to load at {page.url} (load {attempt}): loading it again"
        )
        page.wait_for_timeout(2_000)
        navigate = page.reload
    expect(started).to_be_visible(timeout=120_000)


def reload(page: Any) -> None:
    """Reload the page and wait until Open WebUI's app has started (``load``)."""
    load(page, page.reload)


def open_new_chat(
    page: Any, url: str, model: str | None, *, release_notes_ms: int = 3_000
) -> None:
    """Open Open WebUI at ``url`` (no sign-in) on a new chat, with ``model``.

    The release notes Open WebUI shows once per user on the first visit are
    closed when they appear within ``release_notes_ms`` milliseconds. With
    ``model`` ``None`` the chat keeps the default model.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    load(page, lambda: page.goto(url))
    selector = page.locator(MODEL_BUTTON)
    lets_go = page.get_by_role("button", name="Okay, Let's Go!")
    with contextlib.suppress(PlaywrightTimeout):
        lets_go.wait_for(state="visible", timeout=release_notes_ms)
        lets_go.click()
        expect(lets_go).to_be_hidden()
    if model is None:
        return
    selector.click()
    page.get_by_placeholder("Search a model").fill(model)
    page.get_by_text(model, exact=True).last.click()
    expect(selector).to_contain_text(model)


def attach(page: Any, path: Path) -> None:
    """Attach the file at ``path`` to the next message (the input's hidden
    file field) and wait until its chip shows."""
    from playwright.sync_api import expect

    page.locator("input#files-input, input[type=file]").first.set_input_files(str(path))
    expect(page.get_by_text(path.name).first).to_be_visible(timeout=60_000)


def send(page: Any, text: str) -> None:
    """Type ``text`` into the chat input and send it (Enter)."""
    page.locator("#chat-input").click()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def wait_until_answered(page: Any, timeout_ms: int = 180_000) -> None:
    """Wait until the answer has finished streaming (the Stop button is gone).

    An answer's sources are attached only when its stream ends, and a long
    report streams for a while on a loaded machine.
    """
    from playwright.sync_api import expect

    stop = page.get_by_role("button", name="Stop", exact=True)
    expect(stop).to_have_count(0, timeout=timeout_ms)
