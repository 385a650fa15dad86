"""Driving Open WebUI's chat page with Playwright (sync API).

Shared by the browser tests (``tests/e2e/test_open_webui.py``) and the
script that takes the documentation's screenshots
(``scripts/open-webui-screenshots.py``), so both drive the page the same way.
Selectors are Open WebUI 0.12's (the version ``scripts/ensure-open-webui.sh``
pins).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

MODEL_BUTTON = "#model-selector-model-button"
ANSWER = "#response-content-container"
"""Each assistant answer's rendered content (``.last`` is the newest)."""
PNG_DATA_URL = 'img[src^="data:image/png;base64,"]'
"""An image shown from a ``data:`` URL (how the pipe shows a display_file PNG)."""


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

    page.goto(url)
    selector = page.locator(MODEL_BUTTON)
    # On a loaded machine (another stack running beside the tests) the app
    # now and then failed to start in the browser: SvelteKit showed its
    # error page after fetching /_app/version.json, as it does when a route's
    # module fails to load, while the server had answered every request 200
    # and logged no error. Reloaded once, as a user would; a second failure
    # fails the test.
    failed_load = page.get_by_text("500: Internal Error", exact=True)
    expect(selector.or_(failed_load)).to_be_visible(timeout=120_000)
    if failed_load.is_visible():
        print(f"Open WebUI's page failed to load at {url}: reloading it once")
        page.reload()
    expect(selector).to_be_visible(timeout=120_000)
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
