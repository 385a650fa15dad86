"""End to end: MCP tools in the Chainlit UI, in Chromium.

The stack is what ``just demo --mcp`` starts: ``mcp_server`` is the demo MCP
server (``python -m lgos_demo_api.mcp_server``), and the UI, configured with
its URL, is the MCP client: for the ``mcp`` graph (``lgos.features`` has
``mcp_tools``) it lists the server's tools, sends them as function tools,
runs each call the graph returns through MCP as a tool step, and sends the
result back. The graph runs on the offline model, which picks the offered
tools by their names and descriptions. Through the gateway:
``test_chainlit_gateway``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

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
from tests.e2e.mcp_steps import MCP_TOOLS, attached_line, convert_and_save
from tests.gateway.mcp_client import server_notes

pytestmark = [pytest.mark.timeout(300)]

TOOL_STEPS = '.step[data-step-type="tool"]'


def test_the_ui_attaches_the_mcp_server_and_the_graph_uses_two_of_its_tools(
    page: Any, chainlit_ui: Service, mcp_server: Service
) -> None:
    open_chat(page, chainlit_ui, "mcp")
    server = urlsplit(mcp_server.url).netloc
    # The user sees which server and tools are attached.
    attached = attached_line(page)
    expect(attached).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(attached).to_contain_text(f"{mcp_server.url}/mcp")
    for tool in MCP_TOOLS:
        expect(attached).to_contain_text(tool)

    convert_and_save(page, tool_prefix="", server=server)
    assert server_notes(mcp_server.url)[0] == "5 mi = 8.047 km"

    # The note is read back through the same server in the next turn.
    send(page, "What notes do I have?")
    answers = page.locator(ANSWERS)
    steps = page.locator(TOOL_STEPS)
    expect(steps).to_have_count(3, timeout=ANSWER_TIMEOUT_MS)
    expect(steps.last).to_contain_text(f"Ran list_notes on MCP {server}")
    expect(answers.last).to_contain_text("5 mi = 8.047 km", timeout=ANSWER_TIMEOUT_MS)

    # Reopened, the thread has its steps and shows the attached server once,
    # as it stands now: the notice is never saved, so openings do not pile up
    # (each opening connects twice, and each used to save one more).
    expect(page).to_have_url(re.compile(r"/thread/"), timeout=UI_TIMEOUT_MS)
    thread_url = page.url
    for _ in range(2):
        page.goto(thread_url)
        expect(page.locator(TOOL_STEPS)).to_have_count(3, timeout=UI_TIMEOUT_MS)
        expect(attached_line(page)).to_have_count(1, timeout=UI_TIMEOUT_MS)
        page.wait_for_timeout(2_000)  # a second connection's notice would be here
        expect(attached_line(page)).to_have_count(1)
    # And the tools work in the reopened chat.
    send(page, "Convert 2 km to m")
    expect(answers.last).to_contain_text("2 km = 2000 m", timeout=ANSWER_TIMEOUT_MS)


def test_a_failing_mcp_tool_comes_back_to_the_graph_as_its_output(
    page: Any, chainlit_ui: Service, mcp_server: Service
) -> None:
    open_chat(page, chainlit_ui, "mcp")
    server = urlsplit(mcp_server.url).netloc
    expect(attached_line(page)).to_have_count(1, timeout=UI_TIMEOUT_MS)

    # Kilograms are not a length: the server refuses the conversion.
    send(page, "Convert 5 kg to km")
    answers = page.locator(ANSWERS)
    step = page.locator(TOOL_STEPS).last
    expect(step).to_contain_text(
        f"convert_units on MCP {server} failed", timeout=ANSWER_TIMEOUT_MS
    )
    expect(step).to_contain_text("Cannot convert kg (mass) to km (length)")
    # The turn is not broken: the graph answers from the error it was sent.
    expect(answers.last).to_contain_text(
        "The convert_units tool failed: Cannot convert kg (mass) to km (length)",
        timeout=ANSWER_TIMEOUT_MS,
    )

    # And the chat goes on.
    send(page, "Convert 3 feet to m")
    expect(answers.last).to_contain_text("3 ft = 0.9144 m", timeout=ANSWER_TIMEOUT_MS)
    expect(page.locator(TOOL_STEPS).last).to_contain_text(
        f"Ran convert_units on MCP {server}"
    )
