"""Run one cell of a JavaScript client script (``tests/clients/js/*.mjs``).

A script is ``node <client>.mjs <cell>`` with the demo API's base URL in
``LGOS_BASE_URL``; it prints one JSON object: the cell's ``result`` (or the
``error`` the client raised) and ``requests``, every HTTP exchange the client
made. :func:`run_cell` prints that exchange log, so pytest shows it (request
bodies, statuses, error bodies) beside any failing assertion.
``scripts/ensure-node-clients.sh`` installs the packages (``just test`` runs it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.demo_services import clean_env

JS = Path(__file__).resolve().parent / "js"


def node() -> str:
    """The ``node`` executable, with the client packages installed beside the scripts."""
    found = shutil.which("node")
    if found is None or not (JS / "node_modules").is_dir():
        pytest.fail(
            "the JS client tests need Node.js 20+ and tests/clients/js/node_modules: "
            "run `bash scripts/ensure-node-clients.sh` (just test does)",
            pytrace=False,
        )
    return found


@dataclass(frozen=True)
class Cell:
    """What a cell returned, and the HTTP exchanges the client made for it."""

    result: Any
    requests: list[dict[str, Any]]

    def sent(self, path: str) -> list[Any]:
        """The JSON bodies the client sent to ``path`` (``/v1/responses``), in order."""
        return [r.get("body") for r in self.requests if r["path"] == path]


def run_cell(script: str, cell: str, base_url: str, *, timeout: float = 45) -> Cell:
    """Run ``cell`` of ``script`` against ``base_url``.

    Fails the test, with the client's error and the exchanges, when the cell
    raised; a cell that expects an error returns it as its result.
    """
    done = subprocess.run(
        [node(), script, cell],
        cwd=JS,
        env=clean_env() | {"LGOS_BASE_URL": base_url},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        pytest.fail(
            f"node {script} {cell} exited {done.returncode}\n{done.stdout}{done.stderr}",
            pytrace=False,
        )
    outcome = json.loads(lines[-1])
    print(f"{script} {cell}: the client's HTTP exchanges")
    print(json.dumps(outcome["requests"], indent=1))
    if done.stderr:
        print(f"stderr:\n{done.stderr}")
    if not outcome["ok"]:
        pytest.fail(
            f"{script} {cell} raised {json.dumps(outcome['error'], indent=1)}\n"
            f"{outcome['stack']}\nrequests: {json.dumps(outcome['requests'], indent=1)}",
            pytrace=False,
        )
    return Cell(outcome["result"], outcome["requests"])


# What the demo's offline model answers (deterministic), for the assertions.


def chat_answer(said: str, messages: int = 1) -> str:
    """The ``chat`` graph's answer to ``said``, having seen ``messages`` messages."""
    plural = "" if messages == 1 else "s"
    return (
        f'This is the offline demo model. You said: "{said}" Following instructions: '
        '"Write for a general audience: answer clearly and concisely, in plain '
        f'language." I saw {messages} conversation message{plural}.'
    )


def functions_answer(question: str, call: str, returned: str) -> str:
    """The ``functions`` graph's answer once one function result came back."""
    return (
        f'To answer "{question}", I asked your client to run this function:\n\n'
        f"- `{call}` returned {returned}\n\n"
        "(The offline demo model answers from the results as they came back.)"
    )


CITATIONS_QUESTION = "Compare Chat Completions and the Responses API"
CITED_TEXT = (
    "This is the offline demo model, answering from 2 bundled passages. The Chat "
    "Completions API takes a list of role-tagged messages and returns choices holding "
    "the assistant message [1]. The Responses API turns text or a list of input items "
    "into a model response whose output is a list of items, such as assistant "
    "messages and function calls [2]."
)
CITATIONS = [
    {
        "type": "url_citation",
        "url": "https://platform.openai.com/docs/api-reference/chat",
        "title": "OpenAI Chat Completions",
        "start_index": 179,
        "end_index": 181,
    },
    {
        "type": "url_citation",
        "url": "https://platform.openai.com/docs/api-reference/responses",
        "title": "OpenAI Responses API",
        "start_index": 339,
        "end_index": 341,
    },
]
# The citations graph reports its search as commentary while it streams.
CITATIONS_COMMENTARY = [
    "Searching 7 bundled passages",
    "Found 2 passages: OpenAI Chat Completions; OpenAI Responses API",
]
WRITER_COMMENTARY = [
    "Outlining the answer in 3 sections",
    "Drafting section 1 of 3: Write about LangGraph: the basics",
    "Drafting section 2 of 3: How it works",
    "Drafting section 3 of 3: Why it matters",
    "Polishing the final answer",
]
WRITER_ANSWER_START = (
    'Here is my answer to "Write about LangGraph", outlined, drafted in 3 sections'
)
INTERRUPT_PAYLOAD = {
    "question": "Approve this refund request?\n\n> Refund order 42",
    "choices": ["approve", "reject"],
    "allow_other": True,
    "reviewer": "manager",
}
APPROVED = (
    "**Approved.** The refund request \u201cRefund order 42\u201d was approved by the "
    "manager. The refund is on its way."
)
NOT_FOUND = {
    "message": "The model 'missing' does not exist.",
    "type": "invalid_request_error",
    "param": "model",
    "code": "model_not_found",
}
