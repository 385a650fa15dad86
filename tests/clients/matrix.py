"""What the Python client-matrix modules share: prompts, exact answers, guards.

The demo API runs the offline model (``tests/demo_services.py``), so every
graph answers deterministically; the constants below are those answers, built
the way the demo's offline responders write them. Each client module asks the
same questions and expects the same texts, IDs and shapes.

Two fixtures (import ``offline_only_fixture`` and ``wire_fixture`` into a
module; the fixtures are named ``offline_only`` and ``wire``):

- ``offline_only`` fails a test that tries to reach anything but loopback
  (DNS lookups and connections are blocked while the test runs, by an audit
  hook, so a client's telemetry or price-map download cannot leave the
  machine even in a background thread).
- ``wire`` records the JSON body of every request the clients send, at
  ``httpx``/``httpx2`` ``send()``, whatever client object a library builds
  internally.
"""

from __future__ import annotations

import ipaddress
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

API_KEY = "unused"
"""The key every client sends; LGOS ignores it (never OPENAI_API_KEY)."""

DEMO_MODELS = frozenset(
    {
        "chat",
        "writer",
        "citations",
        "functions",
        "server-tools",
        "files",
        "approval",
        "deep-research",
    }
)

RESPONSE_ID = re.compile(r"resp_[0-9a-f]{32}")
INTERRUPT_RESPONSE_ID = re.compile(r"resp_lg_[0-9a-f]{32}_[0-9a-f]{32}")
INTERRUPT_CALL_ID = re.compile(r"call_lg_[0-9a-f]+_[0-9a-f]+_[0-9a-f]+")
CHAT_COMPLETION_ID = re.compile(r"chatcmpl_[0-9a-f]{32}")
MESSAGE_ID = re.compile(r"msg_[0-9a-f]{32}")

# --------------------------------------------------------------------------
# chat: one offline answer that echoes the prompt and the instructions
# --------------------------------------------------------------------------

CHAT_PROMPT = "What is LangGraph?"
GENERAL_AUDIENCE = (
    "Write for a general audience: answer clearly and concisely, in plain language."
)


def chat_answer(prompt: str = CHAT_PROMPT, *instructions: str) -> str:
    """The `chat` graph's offline answer to ``prompt`` (one user message seen).

    ``instructions`` are the client's system/developer texts, after the
    graph's own audience instruction.
    """
    following = ", ".join(f'"{text}"' for text in (GENERAL_AUDIENCE, *instructions))
    return (
        f'This is the offline demo model. You said: "{prompt}" '
        f"Following instructions: {following} I saw 1 conversation message."
    )


# --------------------------------------------------------------------------
# functions: client functions the graph calls, then answers from
# --------------------------------------------------------------------------

TIME_PROMPT = "What time is it in Tokyo?"
TIME_FUNCTION = "get_current_time"
TIME_DESCRIPTION = "Return the current time in an IANA time zone."
TIME_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"timezone": {"type": "string"}},
    "required": ["timezone"],
    "additionalProperties": False,
}
TIME_ARGS = {"timezone": "Asia/Tokyo"}
TIME_RESULT = "09:00"
# The offline model numbers its call IDs by the messages it saw: the graph's
# system prompt and the question.
TIME_CALL_ID = "call_get_current_time_2"

DICE_PROMPT = "Roll two dice"
DICE_FUNCTION = "roll_dice"
DICE_DESCRIPTION = "Roll some six-sided dice."
DICE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"count": {"type": "integer"}},
    "required": ["count"],
    "additionalProperties": False,
}
DICE_ARGS = {"count": 2}
DICE_RESULT = "[3, 5]"
DICE_CALL_ID = "call_roll_dice_2"


def responses_tool(name: str, description: str, parameters: dict) -> dict:
    """A Responses (flat) function tool."""
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": parameters,
    }


def chat_tool(name: str, description: str, parameters: dict) -> dict:
    """A Chat Completions (nested) function tool."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": parameters,
        },
    }


TIME_TOOL = responses_tool(TIME_FUNCTION, TIME_DESCRIPTION, TIME_PARAMETERS)
TIME_CHAT_TOOL = chat_tool(TIME_FUNCTION, TIME_DESCRIPTION, TIME_PARAMETERS)
DICE_TOOL = responses_tool(DICE_FUNCTION, DICE_DESCRIPTION, DICE_PARAMETERS)
DICE_CHAT_TOOL = chat_tool(DICE_FUNCTION, DICE_DESCRIPTION, DICE_PARAMETERS)


def function_answer(prompt: str, name: str, args: dict, returned: str) -> str:
    """The `functions` graph's answer after one call ran and returned."""
    shown = ", ".join(f"{key}={json.dumps(value)}" for key, value in args.items())
    return (
        f'To answer "{prompt}", I asked your client to run this function:\n\n'
        f"- `{name}({shown})` returned {returned}\n\n"
        "(The offline demo model answers from the results as they came back.)"
    )


TIME_ANSWER = function_answer(TIME_PROMPT, TIME_FUNCTION, TIME_ARGS, TIME_RESULT)
DICE_ANSWER = function_answer(DICE_PROMPT, DICE_FUNCTION, DICE_ARGS, DICE_RESULT)

# --------------------------------------------------------------------------
# approval: one interrupt, answered approve or reject
# --------------------------------------------------------------------------

INTERRUPT_FUNCTION = "lgos_interrupt"
REFUND_PROMPT = "Refund order 42, it arrived broken."
REFUND_INTERRUPT = {
    "question": f"Approve this refund request?\n\n> {REFUND_PROMPT}",
    "choices": ["approve", "reject"],
    "allow_other": True,
    "reviewer": "manager",
}
APPROVED = (
    f"**Approved.** The refund request “{REFUND_PROMPT}” was approved by the "
    "manager. The refund is on its way."
)
REJECTED = (
    f"**Rejected.** The refund request “{REFUND_PROMPT}” was rejected by the "
    "manager. No refund is issued; the customer is told why."
)
CHAT_INTERRUPTS_REFUSED = (
    "The model 'approval' pauses for human input, which only the Responses API "
    "(/v1/responses) supports."
)

# --------------------------------------------------------------------------
# writer: commentary while streaming, then the final answer
# --------------------------------------------------------------------------

WRITER_PROMPT = "What is LangGraph?"
# No pause between the steps (the graph's `pace` setting; 0.5 s by default).
WRITER_SETTINGS = {"lgos_settings": '{"pace":0}'}
_WRITER_HEADINGS = ("LangGraph: the basics", "How it works", "Why it matters")
WRITER_COMMENTARY = [
    "Outlining the answer in 3 sections",
    *(
        f"Drafting section {number} of 3: {heading}"
        for number, heading in enumerate(_WRITER_HEADINGS, start=1)
    ),
    "Polishing the final answer",
]
WRITER_ANSWER = (
    f'Here is my answer to "{WRITER_PROMPT}", outlined, drafted in 3 sections '
    "and polished in separate steps (the offline demo model scripts the prose)."
    "\n\n"
    + "\n\n".join(
        f'### {heading}\n\nThis is the "{heading}" section. The offline model '
        "drafted it in a step of its own, where a real model would write two or "
        "three sentences."
        for heading in _WRITER_HEADINGS
    )
)
WRITER_GLUED = "".join(WRITER_COMMENTARY) + WRITER_ANSWER
"""What a client shows when it concatenates every message's text."""

# --------------------------------------------------------------------------
# citations: url_citation annotations over the answer's [n] markers
# --------------------------------------------------------------------------

CITATIONS_PROMPT = "Compare Chat Completions and the Responses API"
CITATIONS_ANSWER = (
    "This is the offline demo model, answering from 2 bundled passages. The Chat "
    "Completions API takes a list of role-tagged messages and returns choices "
    "holding the assistant message [1]. The Responses API turns text or a list "
    "of input items into a model response whose output is a list of items, such "
    "as assistant messages and function calls [2]."
)
CITATIONS_COMMENTARY = [
    "Searching 7 bundled passages",
    "Found 2 passages: OpenAI Chat Completions; OpenAI Responses API",
]
CITATIONS = [
    (
        "[1]",
        "OpenAI Chat Completions",
        "https://platform.openai.com/docs/api-reference/chat",
    ),
    (
        "[2]",
        "OpenAI Responses API",
        "https://platform.openai.com/docs/api-reference/responses",
    ),
]
"""(cited text, title, url) per annotation, in order."""


def cited(text: str, annotations: list[Any]) -> list[tuple[str, str, str]]:
    """(cited text, title, url) of url_citation annotations over ``text``.

    Takes annotations as objects or dicts, flat (Responses: ``url`` beside
    ``start_index``) or nested (Chat Completions: under ``url_citation``).
    LGOS's ``end_index`` is inclusive (OpenAI's: the last cited character).
    """
    found = []
    for annotation in annotations:
        data = annotation if isinstance(annotation, dict) else annotation.model_dump()
        assert data["type"] == "url_citation", data
        span = data.get("url_citation") or data
        start, end = span["start_index"], span["end_index"]
        found.append((text[start : end + 1], span["title"], span["url"]))
    return found


# --------------------------------------------------------------------------
# deep-research: a background run
# --------------------------------------------------------------------------

RESEARCH_PROMPT = "Compare how LangGraph and the OpenAI Agents SDK pause for approval."
RESEARCH_TOOLS = [{"type": "web_search"}]
RESEARCH_SETTINGS = {"lgos_settings": '{"review_plan":false}'}
RESEARCH_REPORT_START = (
    "This is the offline demo model's research report, written only from the "
    "search results."
)

# --------------------------------------------------------------------------
# Guards: loopback only, and a record of what went on the wire
# --------------------------------------------------------------------------

_guard = {"active": False}
_blocked: list[str] = []


def _is_loopback(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str):
        return False
    if host in ("localhost", "localhost.", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _guard["active"]:
        return
    if event == "socket.getaddrinfo":
        host, port = args[0], args[1]
    elif event == "socket.connect":
        address = args[1]
        if not isinstance(address, tuple):  # a Unix socket path
            return
        host, port = address[0], address[1]
    else:
        return
    if _is_loopback(host):
        return
    _blocked.append(f"{event} {host!r}:{port}")
    raise ConnectionRefusedError(f"client matrix: {host!r} is not loopback")


sys.addaudithook(_audit)


@pytest.fixture(name="offline_only")
def offline_only_fixture() -> Iterator[None]:
    """Block and fail any lookup or connection beyond loopback during a test."""
    _blocked.clear()
    _guard["active"] = True
    try:
        yield
    finally:
        _guard["active"] = False
    assert not _blocked, f"a client tried to leave the machine: {_blocked}"


@dataclass
class Sent:
    """One request a client sent."""

    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Wire:
    """Every request of a test, oldest first."""

    sent: list[Sent] = field(default_factory=list)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        """The JSON bodies of the POSTs whose path ends with ``path``."""
        return [
            s.body for s in self.sent if s.method == "POST" and s.path.endswith(path)
        ]

    def record(self, request: Any) -> None:
        content = request.content
        try:
            body = json.loads(content) if content else None
        except ValueError:
            body = content
        self.sent.append(
            Sent(request.method, request.url.path, body, dict(request.headers))
        )


@pytest.fixture(name="wire")
def wire_fixture(monkeypatch: pytest.MonkeyPatch) -> Wire:
    """Record every request sent through httpx or httpx2 during a test."""
    import httpx2  # the OpenAI SDK's HTTP stack

    recorded = Wire()
    for module in (httpx, httpx2):
        sync_send, async_send = module.Client.send, module.AsyncClient.send

        def send(self, request, *a, _send=sync_send, **kw):  # type: ignore[no-untyped-def]
            recorded.record(request)
            return _send(self, request, *a, **kw)

        async def asend(self, request, *a, _send=async_send, **kw):  # type: ignore[no-untyped-def]
            recorded.record(request)
            return await _send(self, request, *a, **kw)

        monkeypatch.setattr(module.Client, "send", send)
        monkeypatch.setattr(module.AsyncClient, "send", asend)
    return recorded
