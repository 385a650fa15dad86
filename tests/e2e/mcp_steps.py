"""The MCP turn the Chainlit browser tests run, directly and through the gateway.

The UI names the attached MCP server and its tools (:func:`attached_line`);
:func:`convert_and_save` asks for a conversion saved as a note and checks the
two tool steps and the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.chainlit_page import TOOL_STEPS
from tests.e2e.conftest import ANSWER_TIMEOUT_MS, ANSWERS, send

MCP_TOOLS = ("convert_units", "save_note", "list_notes", "search_corpus")
REQUEST = "Convert 5 miles to km and save it as a note"


def attached_line(page: Any) -> Any:
    """The message naming the attached MCP server and its tools."""
    return page.locator(ANSWERS, has_text=re.compile(r"MCP server\s+http"))


def step_result(step: Any) -> dict[str, Any]:
    """The JSON result an opened MCP tool step shows."""
    found = re.search(r"Result\s+(\{.*\})", step.inner_text(), re.DOTALL)
    assert found, step.inner_text()
    return json.loads(found.group(1))


def convert_and_save(page: Any, *, tool_prefix: str, server: str) -> None:
    """Ask for a conversion saved as a note; check the two MCP steps and the
    answer written from their results.

    Args:
        page: The chat page, with the ``mcp`` graph open.
        tool_prefix: How the UI names the tools (a gateway prefixes them).
        server: The ``host:port`` of the MCP endpoint the UI calls.

    """
    send(page, REQUEST)
    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text("5 mi = 8.047 km", timeout=ANSWER_TIMEOUT_MS)
    expect(answer).to_contain_text("Saved note")

    steps = page.locator(TOOL_STEPS)
    expect(steps).to_have_count(2)
    convert, save = steps.all()
    expect(convert).to_contain_text(f"Ran {tool_prefix}convert_units on MCP {server}")
    expect(save).to_contain_text(f"Ran {tool_prefix}save_note on MCP {server}")
    # Open, a step shows the call's arguments and the server's result.
    expect(convert).to_contain_text('"from_unit": "mi"')
    expect(convert).to_contain_text('"to_unit": "km"')
    conversion = step_result(convert)
    assert conversion["result"] == pytest.approx(8.04672)
    assert conversion["text"] == "5 mi = 8.047 km"
    # The second call used the first one's result.
    expect(save).to_contain_text('"text": "5 mi = 8.047 km"')
    saved = step_result(save)["note"]
    assert saved["text"] == "5 mi = 8.047 km"
    expect(answer).to_contain_text(f"Saved note {saved['id']}")
