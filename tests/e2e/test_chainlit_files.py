"""End to end: attachments, ``display_file`` and background runs in the browser.

The session's Files service (``files_service`` in ``conftest``) stores the
attachments the UI uploads and the charts the ``files`` graph makes.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.chainlit_page import (
    BACKGROUND_STEPS,
    CHART,
    CSV,
    PNG_SIGNATURE,
    QUESTIONS,
    RESEARCH_TIMEOUT_MS,
    choice,
    served,
    set_switch,
)
from tests.e2e.conftest import (
    ANSWER_TIMEOUT_MS,
    ANSWERS,
    UI_TIMEOUT_MS,
    Service,
    open_chat,
    send,
    stop_background_run,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.timeout(300)]


def test_attach_a_csv_and_ask(
    page: Any, chainlit_ui: Service, lgos_api: Service, tmp_path: Path
) -> None:
    assert "files" in served(lgos_api), "the demo must serve files"
    source = tmp_path / "fruit.csv"
    source.write_text(CSV)
    open_chat(page, chainlit_ui, "files")
    page.locator('input[type="file"]').first.set_input_files(str(source))
    expect(page.get_by_text("fruit.csv").first).to_be_visible(timeout=UI_TIMEOUT_MS)
    send(page, "What is in this file?")
    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text("fruit.csv", timeout=ANSWER_TIMEOUT_MS)
    expect(answer).to_contain_text("16")  # the sum of the count column
    # The transcript names the attachment; its bytes never show.
    expect(page.get_by_text("plums,8")).to_have_count(0)


def _expect_png(page: Any, image: Any) -> None:
    """Check that ``image`` is visible and its ``src`` serves PNG bytes."""
    expect(image).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    src = image.get_attribute("src")
    assert src
    served_bytes = page.request.get(urljoin(page.url, src))
    assert served_bytes.ok, served_bytes.status
    assert served_bytes.body().startswith(PNG_SIGNATURE)


def _expect_readable(image: Any) -> None:
    """Check that the chart is drawn large enough to read, not as a thumbnail.

    The demo's charts are 800x450 px; Chainlit draws a ``medium`` inline
    image at most 300 px wide, a ``large`` one up to 600 px.
    """
    wait_until(
        lambda: image.evaluate("img => img.complete && img.naturalWidth > 0"),
        timeout=UI_TIMEOUT_MS / 1000,
        message="the chart to load",
    )
    box = image.bounding_box()
    assert box is not None
    assert box["width"] >= 560, box
    assert box["height"] >= 300, box


def test_files_graph_shows_its_chart_again_after_a_reload(
    page: Any, chainlit_ui: Service, lgos_api: Service
) -> None:
    assert "files" in served(lgos_api), "the demo must serve files"
    request = f"Draw a chart of apples: 3, pears: 5, plums: 8 ({uuid.uuid4().hex[:8]})"
    open_chat(page, chainlit_ui, "files")
    send(page, request)
    _expect_png(page, page.locator(CHART).last)
    expect(page.locator('.step[data-step-type="tool"]').last).to_contain_text(
        "Showed", timeout=ANSWER_TIMEOUT_MS
    )
    _expect_readable(page.locator(CHART).last)

    # A new page load, then the thread from the history: the chart is back
    # (downloaded again from the Files service), on its message, once.
    page.reload()
    expect(page.locator("#chat-input")).to_be_visible(timeout=UI_TIMEOUT_MS)
    page.goto(chainlit_ui.url)
    expect(page.locator("#chat-input")).to_be_visible(timeout=UI_TIMEOUT_MS)
    thread = page.locator('li[id^="thread-"]', has_text=request)
    expect(thread).to_have_count(1, timeout=UI_TIMEOUT_MS)
    thread.click()
    expect(page).to_have_url(re.compile(r"/thread/"), timeout=UI_TIMEOUT_MS)
    shown = page.locator(ANSWERS, has_text="📎").filter(has=page.locator(CHART))
    expect(shown).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    _expect_png(page, shown.locator(CHART))
    _expect_readable(shown.locator(CHART))
    expect(page.get_by_text("Files shown in this conversation")).to_have_count(0)


def _background_research(page: Any, chainlit_ui: Service, lgos_api: Service) -> None:
    assert "deep-research" in served(lgos_api), "the demo must serve deep-research"
    open_chat(page, chainlit_ui, "deep-research")
    set_switch(page, "lgos_background", True)
    send(page, "Compare LangGraph interrupts and OpenAI Agents SDK approvals")
    expect(page.locator(BACKGROUND_STEPS).first).to_contain_text(
        re.compile(r"in the background"), timeout=ANSWER_TIMEOUT_MS
    )
    expect(page.locator(QUESTIONS).last).to_contain_text(
        "I plan to research these questions", timeout=ANSWER_TIMEOUT_MS
    )


def test_background_research_polls_and_reports(
    page: Any, chainlit_ui: Service, lgos_api: Service
) -> None:
    _background_research(page, chainlit_ui, lgos_api)
    choice(page, "Start research").click()
    expect(page.locator(BACKGROUND_STEPS)).to_have_count(2, timeout=UI_TIMEOUT_MS)
    report = page.locator(ANSWERS).last
    expect(report).to_contain_text("Sources", timeout=RESEARCH_TIMEOUT_MS)
    markers = report.locator("a", has_text=re.compile(r"^\[\d+\]$"))
    assert markers.count() >= 1
    expect(page.locator(BACKGROUND_STEPS).last).to_contain_text(
        "Ran in the background (completed"
    )


def test_stop_cancels_a_background_run(
    page: Any, chainlit_ui: Service, lgos_api: Service
) -> None:
    """Stop drops the turn and calls ``responses.cancel`` for its Response.

    The offline planning run is short, so on the server it may finish before
    the cancel arrives; the UI drops the turn either way. The test therefore
    checks what is deterministic: the UI says so in one line (no Response ID,
    no "Task manually stopped."), labels the run cancelled, and sent ``POST
    /responses/{id}/cancel`` (LGOS answers it whether the run was still
    active or had just finished).
    """
    assert "deep-research" in served(lgos_api), "the demo must serve deep-research"
    open_chat(page, chainlit_ui, "deep-research")
    set_switch(page, "lgos_background", True)
    send(page, "Compare LangGraph interrupts and OpenAI Agents SDK approvals")
    # Stop as soon as the Response is queued (the first poll is a second later).
    expect(page.locator(BACKGROUND_STEPS)).to_have_count(1, timeout=UI_TIMEOUT_MS)
    before = page.locator(ANSWERS).count()
    stop_background_run(page)
    # A fixed window on purpose: nothing marks a message not being posted.
    page.wait_for_timeout(1000)
    expect(page.locator(ANSWERS)).to_have_count(before + 1)
    expect(page.get_by_text("Task manually stopped")).to_have_count(0)
    wait_until(
        lambda: re.search(r"/responses/resp_\w+/cancel", lgos_api.output()),
        timeout=UI_TIMEOUT_MS / 1000,
        interval=0.2,
        message="Stop to call responses.cancel",
    )
    found = re.findall(r"/responses/(resp_\w+)/cancel", lgos_api.output())
    response_id = found[-1]
    # Cancelled on the server, or (lost race) finished before the cancel.
    status = httpx.get(f"{lgos_api.url}/responses/{response_id}", timeout=10)
    assert status.json()["status"] in {"cancelled", "completed"}
