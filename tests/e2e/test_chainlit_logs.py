"""End to end: opening the UI leaves no warning in the Chainlit process's log.

Chainlit serves the welcome page (``chainlit.md``) in the browser's language:
it looks for ``chainlit_<language>.md`` next to it and logs "Translated
markdown file for <language> not found" on every page load when that file is
missing. ``ui/chainlit/chainlit_en-US.md`` is the page for Chromium's
``en-US``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import REPO, Service, sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


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
