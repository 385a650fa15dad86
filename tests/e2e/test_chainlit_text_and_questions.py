"""End to end: what a person sees of identifiers, questions and the page itself.

- ``module:factory``, ``LGOS_POSTGRES_URI`` and ``__init__`` read verbatim in
  the user's bubble and in the answer (Chainlit's renderer used to eat the
  text after a colon, and bold ``__init__``).
- A pending question looks like one: solid answer buttons, a button for a
  typed answer that says where to type, and no copy or thumbs icons.
- The page loads nothing from another host (Chainlit's KaTeX stylesheet was
  requested from a CDN).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import (
    ANSWER_TIMEOUT_MS,
    ANSWERS,
    UI_TIMEOUT_MS,
    Service,
    open_chat,
    send,
)

pytestmark = [pytest.mark.timeout(300)]

USER_BUBBLES = '.step[data-step-type="user_message"]'
QUESTION = ANSWERS + ":has-text('Your answer is needed')"
IDENTIFIERS = (
    "Run lgos serve my_module:create_registry with LGOS_POSTGRES_URI, "
    "psycopg_pool, get(run_id) and __init__"
)

_BUTTON_STYLE = """
(el) => {
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    background: style.backgroundColor,
    border: style.borderTopWidth,
    weight: Number(style.fontWeight),
    height: box.height,
    width: box.width,
  };
}
"""


def test_colons_and_identifiers_read_verbatim(page: Any, chainlit_ui: Service) -> None:
    open_chat(page, chainlit_ui, "chat")
    send(page, IDENTIFIERS)

    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text("conversation message", timeout=ANSWER_TIMEOUT_MS)
    bubble = page.locator(USER_BUBBLES).last
    # Read once the answer is complete: what the page finally shows.
    assert " ".join(bubble.inner_text().split()) == IDENTIFIERS
    assert f'You said: "{IDENTIFIERS}"' in " ".join(answer.inner_text().split())
    # Nothing became a directive's empty block or bold text.
    for message in (bubble, answer):
        assert message.locator("div:empty").count() == 0
        assert message.locator("strong, .font-bold").count() == 0


def test_a_question_has_buttons_and_no_feedback_icons(
    page: Any, chainlit_ui: Service, log_dir: Any
) -> None:
    open_chat(page, chainlit_ui, "approval")
    send(page, "Refund order 7: the lid came off.")
    question = page.locator(QUESTION).last
    expect(question).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    message = page.locator(
        '.step[data-step-type="assistant_message"]', has_text="Your answer is needed"
    ).last
    page.screenshot(path=str(log_dir / "question-buttons.png"))

    approve = message.get_by_role("button", name="approve", exact=True)
    expect(approve).to_be_visible()
    look = approve.evaluate(_BUTTON_STYLE)
    assert look["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), look
    assert look["weight"] >= 600, look
    assert look["height"] >= 36, look
    assert look["width"] >= 64, look
    # The question mark stands for the avatar; no copy or thumbs icons.
    expect(
        message.locator('svg[class*="lucide-message-circle-question"]')
    ).to_be_visible()
    for icon in ("thumbs-up", "thumbs-down", "copy"):
        expect(message.locator(f"svg.lucide-{icon}")).not_to_be_visible()

    # The typed answer is a visible choice too: it says where to type.
    other = message.get_by_role("button", name="Type another answer")
    expect(other).to_be_visible()
    assert other.evaluate(_BUTTON_STYLE)["height"] >= 36
    other.click()
    expect(question).to_contain_text(
        "Type your answer in the message box below", timeout=UI_TIMEOUT_MS
    )
    expect(page.locator("#chat-input")).to_be_focused()
    expect(approve).to_be_visible()  # still answerable with a button
    send(page, "Check the photos first.")
    expect(page.locator(ANSWERS).last).to_contain_text(
        "Approved with instructions.", timeout=ANSWER_TIMEOUT_MS
    )


def test_the_page_asks_no_other_host(page: Any, chainlit_ui: Service) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    open_chat(page, chainlit_ui, "chat")
    page.reload()
    expect(page.locator("#chat-input")).to_be_visible(timeout=UI_TIMEOUT_MS)
    page.wait_for_load_state("networkidle")
    elsewhere = [
        url
        for url in requested
        if not url.startswith(chainlit_ui.url) and not url.startswith("data:")
    ]
    assert elsewhere == []


def test_stop_after_answering_a_plan_says_nothing_waits(
    page: Any, chainlit_ui: Service
) -> None:
    open_chat(page, chainlit_ui, "deep-research")
    send(page, "Compare LangGraph checkpointers and OpenAI background responses")
    start = page.get_by_role("button", name="Start research", exact=True)
    expect(start).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    start.click()
    stop = page.locator("#stop-button")
    expect(stop).to_be_visible(timeout=UI_TIMEOUT_MS)
    stop.click()
    stopped = page.locator(ANSWERS, has_text=re.compile(r"^\s*Stopped —"))
    expect(stopped).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(stopped).to_have_text(
        "Stopped — this turn and the question it answered are not kept; "
        "nothing is waiting for an answer."
    )
    # One line: no "Task manually stopped." from Chainlit besides it.
    page.wait_for_timeout(1000)
    expect(page.get_by_text("Task manually stopped")).to_have_count(0)
    expect(stopped).to_have_count(1)
    expect(start).to_have_count(0)
