"""In Chromium: the paperclip shows only for models that take files.

Each chat profile carries Chainlit config overrides
(:func:`lgos_chainlit.session.profile_config`); the page fetches the
selected profile's config and draws the attachment button, and the drop
zone, only when ``features.spontaneous_file_upload.enabled`` is on there.
The processes and the browser are the end-to-end ones (``tests/e2e``); the
page here is a plain one, without the screenshots on failure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import (
    ANSWER_TIMEOUT_MS,
    ANSWERS,
    UI_TIMEOUT_MS,
    Service,
    choose_profile,
    send,
    sign_in,
)
from tests.e2e.conftest import browser as browser  # shared fixtures
from tests.e2e.conftest import chainlit_ui as chainlit_ui
from tests.e2e.conftest import files_service as files_service
from tests.e2e.conftest import lgos_api as lgos_api
from tests.e2e.conftest import log_dir as log_dir
from tests.e2e.conftest import mcp_server as mcp_server

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

PAPERCLIP = "#upload-button"


@pytest.fixture
def page(browser: Any, chainlit_ui: Service) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # Nothing leaves the machine: the page's CDN stylesheet is refused.
    context.route(
        re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort()
    )
    try:
        yield context.new_page()
    finally:
        context.close()
        print(chainlit_ui.output()[-10_000:])  # shown when the test fails


def test_paperclip_follows_the_selected_model(page: Any, chainlit_ui: Service) -> None:
    sign_in(page, chainlit_ui)
    choose_profile(page, "files")
    expect(page.locator(PAPERCLIP)).to_be_visible(timeout=UI_TIMEOUT_MS)

    choose_profile(page, "chat")
    expect(page.locator(PAPERCLIP)).to_have_count(0, timeout=UI_TIMEOUT_MS)
    send(page, "Hello from the paperclip test")
    expect(page.locator(ANSWERS).nth(1)).to_contain_text(
        "Hello from the paperclip test", timeout=ANSWER_TIMEOUT_MS
    )

    # A new page load (the history lists the thread), another model that
    # takes files, then the chat thread reopened: its profile comes back
    # with it, and the paperclip goes again.
    page.goto(chainlit_ui.url)
    expect(page.locator("#chat-input")).to_be_visible(timeout=UI_TIMEOUT_MS)
    choose_profile(page, "deep-research")
    expect(page.locator(PAPERCLIP)).to_be_visible(timeout=UI_TIMEOUT_MS)
    thread = page.locator('li[id^="thread-"]', has_text="Hello from the paperclip")
    expect(thread).to_have_count(1, timeout=UI_TIMEOUT_MS)
    thread.click()
    expect(page).to_have_url(re.compile(r"/thread/"), timeout=UI_TIMEOUT_MS)
    expect(page.locator(ANSWERS).first).to_contain_text("chat —", timeout=UI_TIMEOUT_MS)
    expect(page.locator(PAPERCLIP)).to_have_count(0, timeout=UI_TIMEOUT_MS)
