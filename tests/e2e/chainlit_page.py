"""What the Chainlit browser tests find and do on the page, shared by several.

Selectors (tool, background and question steps, a shown chart), the files
they upload or expect, the models the demo API serves, a question's answer
button, and switching a chat setting.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import expect

from tests.e2e.conftest import ANSWERS, UI_TIMEOUT_MS, Service

TOOL_STEPS = '.step[data-step-type="tool"]'
QUESTIONS = ANSWERS + ":has-text('Your answer is needed')"
RESEARCH_TIMEOUT_MS = 150_000
BACKGROUND_STEPS = '.step[data-step-type="run"]:has-text("in the background")'
CHART = 'img[alt$=".png"]'
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CSV = "fruit,count\napples,3\npears,5\nplums,8\n"


def served(api: Service) -> set[str]:
    return {m["id"] for m in httpx.get(f"{api.url}/models").json()["data"]}


def choice(page: Any, label: str) -> Any:
    return page.get_by_role("button", name=label, exact=True)


def set_switch(page: Any, switch_id: str, on: bool) -> None:
    page.locator("#chat-settings-open-modal").click()
    dialog = page.locator("#chat-settings")
    expect(dialog).to_be_visible(timeout=UI_TIMEOUT_MS)
    switch = dialog.locator(f"#{switch_id}")
    state = "checked" if on else "unchecked"
    if switch.get_attribute("data-state") != state:
        switch.click()
    expect(switch).to_have_attribute("data-state", state)
    dialog.locator("#confirm").click()
    expect(dialog).to_be_hidden()
