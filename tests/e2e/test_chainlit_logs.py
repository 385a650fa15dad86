"""End to end: opening the UI leaves no warning in the Chainlit process's log.

Chainlit serves the welcome page (``chainlit.md``) in the browser's language:
it looks for ``chainlit_<language>.md`` next to it and logs "Translated
markdown file for <language> not found" on every page load when that file is
missing. The UI is English only: ``language = "en-US"`` in its Chainlit
config gives every browser the English page, and
``ui/chainlit/chainlit_en-US.md`` is that page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import REPO, Service, sign_in

pytestmark = [pytest.mark.timeout(180)]


def test_the_welcome_page_in_the_browser_language_logs_no_warning(
    page: Any, chainlit_ui: Service
) -> None:
    assert page.evaluate("navigator.language") == "en-US"
    with page.expect_response(
        lambda response: "/project/settings?language=en-US" in response.url
    ) as settings:
        sign_in(page, chainlit_ui)
    assert settings.value.status == 200
    markdown = settings.value.json()["markdown"]
    assert markdown == (REPO / "ui/chainlit/chainlit.md").read_text(encoding="utf-8")
    page.reload()
    page.wait_for_load_state("networkidle")
    assert "Translated markdown file" not in chainlit_ui.output()


def test_a_browser_in_another_language_gets_the_english_page_and_no_warning(
    browser: Any, chainlit_ui: Service
) -> None:
    context = browser.new_context(locale="de-DE")
    try:
        page = context.new_page()
        assert page.evaluate("navigator.language") == "de-DE"
        with page.expect_response(
            lambda response: "/project/settings?language=de-DE" in response.url
        ) as settings:
            sign_in(page, chainlit_ui)
        assert settings.value.status == 200
        english = (REPO / "ui/chainlit/chainlit.md").read_text(encoding="utf-8")
        assert settings.value.json()["markdown"] == english
        # Chainlit's own labels are English too.
        expect(page.locator("#chat-input")).to_have_attribute(
            "placeholder", re.compile("^Type")
        )
    finally:
        context.close()
    assert "Translated markdown file" not in chainlit_ui.output()
