"""End to end: commentary steps, citations, the client function loop, custom tools.

Each test opens a fresh chat with one demo graph (offline model) in Chromium
and checks what the user sees. Waits are bounded conditions on the page
(Playwright's ``expect``); the order in which things appeared comes from a
``MutationObserver`` timeline recorded in the page.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.chainlit_page import set_switch
from tests.e2e.conftest import (
    ANSWER_TIMEOUT_MS,
    ANSWERS,
    UI_TIMEOUT_MS,
    Service,
    answer_entries,
    open_chat,
    send,
    start_timeline,
    timeline,
)

pytestmark = [pytest.mark.timeout(300)]

COMMENTARY_STEPS = '.step[data-step-type="run"]'
TOOL_STEPS = '.step[data-step-type="tool"]'
CHAT_URL = "https://platform.openai.com/docs/api-reference/chat"
RESPONSES_URL = "https://platform.openai.com/docs/api-reference/responses"


def test_commentary_steps_appear_live_and_apart_from_the_answer(
    page: Any, chainlit_ui: Service
) -> None:
    open_chat(page, chainlit_ui, "writer")
    start_timeline(page)
    send(page, "What is a river delta?")

    steps = page.locator(COMMENTARY_STEPS)
    answers = page.locator(ANSWERS)
    # The first step is on screen while the graph is still working.
    expect(steps.first).to_contain_text(
        "Outlining the answer in 3 sections", timeout=UI_TIMEOUT_MS
    )
    expect(answers.last).to_contain_text(
        "each section becomes two or three sentences written for the question.\n",
        timeout=ANSWER_TIMEOUT_MS,
    )
    expect(answers.last.locator("h3")).to_have_count(3, timeout=ANSWER_TIMEOUT_MS)

    expected = [
        "Outlining the answer in 3 sections",
        "Drafting section 1 of 3: A river delta: the basics",
        "Drafting section 2 of 3: How it works",
        "Drafting section 3 of 3: Why it matters",
        "Polishing the final answer",
    ]
    expect(steps).to_have_count(5)
    for step, text in zip(steps.all(), expected, strict=True):
        expect(step).to_have_text(text)

    seen = timeline(page)
    commentary = [e for e in seen if e["type"] == "run"]
    answer_seen = answer_entries(seen, "writer")
    assert [e["text"] for e in commentary] == expected
    assert answer_seen, seen
    # Live: the steps arrived one by one (0.5 s of work apart, by default),
    # all of them before the first word of the answer.
    assert commentary[-1]["t"] - commentary[0]["t"] > 1000, commentary
    assert commentary[-1]["t"] < answer_seen[0]["t"]

    # Separate: the answer holds none of the commentary.
    answer_text = answers.last.inner_text()
    assert answer_text.startswith('Here is my answer to "What is a river delta?"')
    for text in expected:
        assert text not in answer_text


def test_citations_show_linked_markers_and_a_sources_list(
    page: Any, chainlit_ui: Service
) -> None:
    open_chat(page, chainlit_ui, "citations")
    send(page, "Compare Chat Completions and the Responses API")

    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text("Sources", timeout=ANSWER_TIMEOUT_MS)

    markers = answer.locator("a", has_text=re.compile(r"^\[\d\]$"))
    expect(markers).to_have_count(2)
    assert [m.inner_text() for m in markers.all()] == ["[1]", "[2]"]
    assert [m.get_attribute("href") for m in markers.all()] == [CHAT_URL, RESPONSES_URL]
    assert markers.first.get_attribute("title") == "OpenAI Chat Completions"
    text = answer.inner_text()
    assert "returns choices holding the assistant message [1]." in text

    sources = answer.locator("li")
    expect(sources).to_have_count(2)
    for source, (number, title, url) in zip(
        sources.all(),
        [
            (1, "OpenAI Chat Completions", CHAT_URL),
            (2, "OpenAI Responses API", RESPONSES_URL),
        ],
        strict=True,
    ):
        expect(source).to_have_text(f"[{number}] {title} — {url}")
        links = source.locator("a")
        expect(links).to_have_count(2)
        assert [link.inner_text() for link in links.all()] == [title, url]
        assert {link.get_attribute("href") for link in links.all()} == {url}
        assert links.first.get_attribute("target") == "_blank"

    # A question the passages do not cover is refused, visibly so.
    send(page, "What is the capital of France?")
    answers = page.locator(ANSWERS)
    expect(answers).to_have_count(3, timeout=ANSWER_TIMEOUT_MS)  # welcome first
    refusal = answers.last
    expect(refusal).to_contain_text(
        "Refusal — the graph declined to answer", timeout=ANSWER_TIMEOUT_MS
    )
    expect(refusal.locator("blockquote")).to_contain_text(
        "none of them covers this question"
    )
    expect(refusal.locator("a")).to_have_count(0)


def _result(step: Any) -> dict[str, Any]:
    found = re.search(r"Result\s+(\{.*\})", step.inner_text(), re.DOTALL)
    assert found, step.inner_text()
    return json.loads(found.group(1))


def test_client_function_round_trip(page: Any, chainlit_ui: Service) -> None:
    open_chat(page, chainlit_ui, "functions")
    start_timeline(page)
    send(page, "What time is it in Tokyo, and roll two dice?")

    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text(
        "answers from the results as they came back", timeout=ANSWER_TIMEOUT_MS
    )

    steps = page.locator(TOOL_STEPS)
    expect(steps).to_have_count(2)
    clock, dice = steps.all()
    expect(clock).to_contain_text("Ran get_current_time")
    expect(clock).to_contain_text('Arguments {"timezone": "Asia/Tokyo"}')
    expect(dice).to_contain_text("Ran roll_dice")
    expect(dice).to_contain_text('Arguments {"sides": 6, "count": 2}')

    time_result = _result(clock)
    assert time_result["timezone"] == "Asia/Tokyo"
    assert re.fullmatch(r"\d\d:\d\d", time_result["time"])
    dice_result = _result(dice)
    assert len(dice_result["rolls"]) == 2
    assert dice_result["total"] == sum(dice_result["rolls"])

    # The final answer was written from the results the UI sent back.
    text = answer.inner_text()
    assert 'get_current_time(timezone="Asia/Tokyo") returned' in text
    assert f'time: "{time_result["time"]}"' in text
    rolls = ", ".join(str(r) for r in dice_result["rolls"])
    assert f"rolls: [{rolls}], total: {dice_result['total']}" in text

    seen = timeline(page)
    # First sight of each tool step ("Running …", later redrawn as "Ran …").
    tools: dict[str, dict[str, Any]] = {}
    for entry in seen:
        if entry["type"] == "tool":
            tools.setdefault(entry["text"].split()[-1], entry)
    answers = answer_entries(seen, "functions")
    assert sorted(tools) == ["get_current_time", "roll_dice"]
    assert len(answers) == 1
    assert max(e["t"] for e in tools.values()) < answers[0]["t"]


def _settings_switch(page: Any, switch_id: str) -> Any:
    """Open the chat settings and return one switch (the panel stays open)."""
    page.locator("#chat-settings-open-modal").click()
    dialog = page.locator("#chat-settings")
    expect(dialog).to_be_visible(timeout=UI_TIMEOUT_MS)
    return dialog.locator(f"#{switch_id}")


def test_custom_server_tool_switch_runs_the_tool_and_is_kept(
    page: Any, chainlit_ui: Service
) -> None:
    switch_id = "lgos_tool_lgos_package_version"
    open_chat(page, chainlit_ui, "server-tools")
    # One switch per server tool, labelled as the model's description names
    # them; the custom tools start off.
    dialog = page.locator("#chat-settings")
    switch = _settings_switch(page, switch_id)
    for label in ("Web search", "lgos_package_version", "lgos_graph_topology"):
        expect(dialog.get_by_text(label, exact=True)).to_be_visible()
    expect(switch).to_have_attribute("data-state", "unchecked")
    expect(dialog.locator("#lgos_tool_lgos_graph_topology")).to_have_attribute(
        "data-state", "unchecked"
    )
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # Off, the graph runs nothing and names the switches to turn on.
    set_switch(page, "lgos_web_search", False)
    request = "Which pydantic version is installed?"
    send(page, request)
    answers = page.locator(ANSWERS)
    expect(answers.last).to_contain_text("No tool ran", timeout=ANSWER_TIMEOUT_MS)
    expect(answers.last).to_contain_text(
        "Turn on lgos_package_version, lgos_graph_topology or Web search in the "
        "chat settings"
    )

    set_switch(page, switch_id, True)
    send(page, request)
    expected = f"pydantic=={version('pydantic')}"
    expect(answers).to_have_count(3, timeout=ANSWER_TIMEOUT_MS)  # welcome first
    expect(answers.last).to_contain_text(
        f"lgos_package_version says: {expected}", timeout=ANSWER_TIMEOUT_MS
    )
    # The call is a tool step; opened, it shows the tool's input and output.
    step = page.locator(TOOL_STEPS).last
    expect(step).to_contain_text("Ran lgos_package_version")
    step.get_by_role("button", name="Ran lgos_package_version").click()
    expect(step).to_contain_text(expected)

    # A new page load, then the thread from the history: the switches are as
    # they were left, and the next request still selects the tool.
    page.goto(chainlit_ui.url)
    expect(page.locator("#chat-input")).to_be_visible(timeout=UI_TIMEOUT_MS)
    thread = page.locator('li[id^="thread-"]', has_text=request).first
    expect(thread).to_be_visible(timeout=UI_TIMEOUT_MS)
    thread.click()
    expect(page).to_have_url(re.compile(r"/thread/"), timeout=UI_TIMEOUT_MS)
    expect(page.locator(ANSWERS).last).to_contain_text(
        "lgos_package_version says", timeout=UI_TIMEOUT_MS
    )
    switch = _settings_switch(page, switch_id)
    expect(switch).to_have_attribute("data-state", "checked", timeout=UI_TIMEOUT_MS)
    expect(dialog.locator("#lgos_web_search")).to_have_attribute(
        "data-state", "unchecked"
    )
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    send(page, "Which httpx version is installed?")
    expect(page.locator(ANSWERS).last).to_contain_text(
        f"lgos_package_version says: httpx=={version('httpx')}",
        timeout=ANSWER_TIMEOUT_MS,
    )
