"""End to end: questions from paused graphs, history across reloads, web search.

The ``approval`` graph pauses with ``lgos_interrupt`` calls; the UI asks each
question (choices as buttons, typed answers where allowed) and sends one
resume. Chat history lives in the UI's SQLite database, so a reloaded page
reopens the thread from the sidebar and answers the question still waiting.
``server-tools`` and ``deep-research`` show their searches as steps when the
"Web search" switch is on.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.chainlit_page import (
    QUESTIONS,
    RESEARCH_TIMEOUT_MS,
    TOOL_STEPS,
    choice,
    served,
    set_switch,
)
from tests.e2e.conftest import (
    ANSWER_TIMEOUT_MS,
    ANSWERS,
    UI_TIMEOUT_MS,
    Service,
    choose_profile,
    open_chat,
    send,
)

pytestmark = [pytest.mark.timeout(300)]

COMMENTARY_STEPS = '.step[data-step-type="run"]'
REQUEST = "Refund order 42: the kettle arrived broken."


def click_until_taken(page: Any, label: str, attempts: int = 3) -> None:
    """Click a question's button until the question reads answered.

    A reopened thread's page reconnects to Chainlit a few times, and each
    connection puts the buttons back (removed and shown again under the
    same IDs) half a second after it resumes: a click in that instant hits
    a button on its way out, as a user's would, and the user clicks again.
    A second click of an answered question does nothing (a stale button).
    """
    answered = page.locator(ANSWERS, has_text=f"Your answer: {label}")
    for attempt in range(attempts):
        choice(page, label).click()
        try:
            expect(answered).to_have_count(1, timeout=10_000)
            return
        except AssertionError:
            if attempt == attempts - 1:
                raise


def test_pause_survives_a_reload_and_is_answered_from_history(
    page: Any, chainlit_ui: Service
) -> None:
    open_chat(page, chainlit_ui, "approval")
    send(page, REQUEST)
    question = page.locator(ANSWERS).last
    expect(question).to_contain_text("Your answer is needed", timeout=ANSWER_TIMEOUT_MS)
    expect(question).to_contain_text("Approve this refund request?")
    expect(question).to_contain_text(REQUEST)
    expect(question).to_contain_text("or type your own in the message box")
    expect(choice(page, "approve")).to_be_visible()
    expect(choice(page, "reject")).to_be_visible()

    # A new page load (a new Chainlit session): the thread is in the history.
    page.goto(chainlit_ui.url)
    expect(page.locator("#chat-input")).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(choice(page, "approve")).to_have_count(0)
    thread = page.locator('li[id^="thread-"]', has_text=REQUEST)
    expect(thread).to_have_count(1, timeout=UI_TIMEOUT_MS)
    thread.click()
    expect(page).to_have_url(re.compile(r"/thread/"), timeout=UI_TIMEOUT_MS)

    # The buttons are back on the question: no second copy of it.
    expect(choice(page, "approve")).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(page.locator(QUESTIONS)).to_have_count(1)
    click_until_taken(page, "approve")

    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text("Approved.", timeout=ANSWER_TIMEOUT_MS)
    expect(answer).to_contain_text(
        "The refund request “Refund order 42: the kettle arrived broken.” was "
        "approved by the manager."
    )
    # The buttons go once the UI has seen the resume finish (slow under load).
    expect(choice(page, "approve")).to_have_count(0, timeout=UI_TIMEOUT_MS)
    answered = page.locator(ANSWERS, has_text="Your answer: approve")
    expect(answered).to_have_count(1)

    # Reloaded again, the finished thread asks nothing.
    page.reload()
    expect(page.locator(ANSWERS).last).to_contain_text(
        "Approved.", timeout=UI_TIMEOUT_MS
    )
    # A fixed window on purpose: the UI asks again 0.5 s after a resume, and
    # must find nothing to ask; no event marks a question not being asked.
    page.wait_for_timeout(1500)
    expect(choice(page, "approve")).to_have_count(0)


def test_typed_answer_then_an_ordinary_turn(page: Any, chainlit_ui: Service) -> None:
    open_chat(page, chainlit_ui, "approval")
    send(page, REQUEST)
    expect(choice(page, "approve")).to_be_visible(timeout=ANSWER_TIMEOUT_MS)

    send(page, "Check the photos first.")
    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text(
        "Approved with instructions.", timeout=ANSWER_TIMEOUT_MS
    )
    expect(answer).to_contain_text("manager: “Check the photos first.”")
    expect(choice(page, "approve")).to_have_count(0)
    expect(
        page.locator(ANSWERS, has_text="Your answer: Check the photos first.")
    ).to_have_count(1)

    # The ledger replayed next holds no interrupt call: LGOS accepts it.
    send(page, "Refund order 43, please.")
    # The first question now reads "Answered"; the new one asks.
    expect(page.locator(QUESTIONS)).to_contain_text(
        "Refund order 43", timeout=ANSWER_TIMEOUT_MS
    )
    expect(page.locator(QUESTIONS)).to_have_count(1)
    choice(page, "reject").click()
    expect(page.locator(ANSWERS).last).to_contain_text(
        "Rejected.", timeout=ANSWER_TIMEOUT_MS
    )


def test_parallel_questions_are_answered_in_one_resume(
    page: Any, chainlit_ui: Service
) -> None:
    open_chat(page, chainlit_ui, "approval")
    set_switch(page, "parallel_review", True)
    send(page, REQUEST)

    first = page.locator(ANSWERS).last
    expect(first).to_contain_text("question 1 of 2", timeout=ANSWER_TIMEOUT_MS)
    reviewer = "Manager" if "Manager review" in first.inner_text() else "Finance"
    other = "Finance" if reviewer == "Manager" else "Manager"
    choice(page, "approve").click()

    second = page.locator(ANSWERS, has_text="question 2 of 2")
    expect(second).to_contain_text(f"{other} review", timeout=UI_TIMEOUT_MS)
    expect(
        page.locator(ANSWERS, has_text="Answered · question 1 of 2")
    ).to_contain_text("Your answer: approve")
    # Nothing was sent yet: the graph answers once both are in.
    expect(page.locator(ANSWERS, has_text="Approved")).to_have_count(0)
    send(page, "Only refund half.")

    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text(
        "Approved with instructions.", timeout=ANSWER_TIMEOUT_MS
    )
    expect(answer).to_contain_text(f"{other.lower()}: “Only refund half.”")
    expect(page.locator(ANSWERS, has_text="Answered · question 2 of 2")).to_have_count(
        1
    )


def test_web_search_switch_and_search_steps(
    page: Any, chainlit_ui: Service, lgos_api: Service
) -> None:
    assert "server-tools" in served(lgos_api), "the demo must serve server-tools"
    open_chat(page, chainlit_ui, "server-tools")
    send(page, "Search: LangGraph streaming, LangGraph interrupts")

    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text("Sources", timeout=ANSWER_TIMEOUT_MS)
    steps = page.locator(TOOL_STEPS)
    expect(steps).to_have_count(2)
    titles = sorted(step.inner_text().split("\n")[0] for step in steps.all())
    assert titles == ["Searched: LangGraph interrupts", "Searched: LangGraph streaming"]
    # The searches come before the answer, in the page's order.
    order = page.evaluate(
        """() => [...document.querySelectorAll('.step[data-step-type]')]
                .map(e => e.dataset.stepType)"""
    )
    assert order.index("tool") < len(order) - 1 - order[::-1].index("assistant_message")
    hrefs = [a.get_attribute("href") for a in answer.locator("li a").all()]
    assert hrefs and all(h and h.startswith("http") for h in hrefs)

    # Off: the request selects no tool, so the graph runs none.
    set_switch(page, "lgos_web_search", False)
    send(page, "Search: LangGraph streaming")
    expect(page.locator(ANSWERS).last).to_contain_text(
        "No tool ran", timeout=ANSWER_TIMEOUT_MS
    )
    expect(steps).to_have_count(2)


def test_deep_research_review_edit_and_cited_report(
    page: Any, chainlit_ui: Service, lgos_api: Service
) -> None:
    assert "deep-research" in served(lgos_api), "the demo must serve deep-research"
    open_chat(page, chainlit_ui, "deep-research")
    send(page, "Compare LangGraph interrupts and OpenAI Agents SDK approvals")

    plan = page.locator(QUESTIONS).last
    expect(plan).to_contain_text(
        "I plan to research these questions", timeout=ANSWER_TIMEOUT_MS
    )
    expect(choice(page, "Start research")).to_be_visible()
    expect(choice(page, "Answer now")).to_be_visible()
    before = plan.locator("ol li").count()
    assert before >= 3
    removed = plan.locator("ol li").nth(1).inner_text()

    # The edit is a visible choice: it says where to type, and answers nothing.
    choice(page, "Edit plan").click()
    expect(plan).to_contain_text(
        "Type how the plan should change in the message box", timeout=UI_TIMEOUT_MS
    )
    expect(page.locator("#chat-input")).to_be_focused()
    expect(choice(page, "Start research")).to_be_visible()
    # An edit revises the plan and asks again.
    send(page, "remove 2")
    expect(page.locator(ANSWERS, has_text="Your answer: remove 2")).to_have_count(
        1, timeout=ANSWER_TIMEOUT_MS
    )
    revised = page.locator(QUESTIONS)
    expect(revised).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    expect(revised.locator("ol li")).to_have_count(before - 1)
    assert removed not in revised.inner_text()

    choice(page, "Start research").click()
    report = page.locator(ANSWERS).last
    expect(report).to_contain_text("Sources", timeout=RESEARCH_TIMEOUT_MS)
    # Progress arrived as commentary steps, and each search as a tool step.
    expect(page.locator(COMMENTARY_STEPS).first).to_be_visible()
    searches = page.locator(TOOL_STEPS)
    assert searches.count() >= before - 1
    for step in searches.all():
        assert step.inner_text().startswith("Searched: ")
    markers = report.locator("a", has_text=re.compile(r"^\[\d+\]$"))
    assert markers.count() >= 1
    sources = report.locator("li")
    assert sources.count() >= 1
    corpus = re.compile(r"^http://127\.0\.0\.1:8002/pages/")
    for source in sources.all():
        links = source.locator("a")
        expect(links).to_have_count(2)
        for link in links.all():
            assert corpus.match(link.get_attribute("href") or ""), link
    for marker in markers.all():
        assert corpus.match(marker.get_attribute("href") or "")

    # The profile can be changed afterwards: a fresh chat starts.
    choose_profile(page, "approval")
