"""What the demo API answers: every expectation of the client matrix.

The demo API runs the offline model (``tests/demo_services.py``), so every
graph answers deterministically; the constants and functions below are those
answers, built the way the demo's offline responders write them. Every client
module, Python or JavaScript, asks the same questions and expects the same
texts, IDs and shapes from here. Where the JavaScript cells
(``tests/clients/js/*.mjs``) ask something else, the functions take the
prompt; the cells read their prompts from :data:`JS_INPUTS`, which
``node_cells`` hands to Node, so each prompt is written once.
"""

from __future__ import annotations

import json
import re
from typing import Any

API_KEY = "unused"
"""The key every client sends; LGOS ignores it (never OPENAI_API_KEY)."""

DEMO_MODELS = [
    "chat",
    "writer",
    "citations",
    "functions",
    "mcp",
    "server-tools",
    "files",
    "approval",
    "deep-research",
]
"""The demo's graphs, in the order the registry serves (and lists) them."""

RESPONSE_ID = re.compile(r"resp_[0-9a-f]{32}")
RUN_RESPONSE_ID = re.compile(r"resp_lg_([0-9a-f]{32})_[0-9a-f]{32}")
"""A Response of a durable run (paused or in the background); group 1: the run."""
INTERRUPT_CALL_ID = re.compile(r"call_lg_[0-9a-f]+_[0-9a-f]+_[0-9a-f]+")
CHAT_COMPLETION_ID = re.compile(r"chatcmpl_[0-9a-f]{32}")
MESSAGE_ID = re.compile(r"msg_[0-9a-f]{32}")

NOT_FOUND = {
    "message": (
        "The model 'missing' does not exist. This server serves "
        + ", ".join(f"'{model}'" for model in DEMO_MODELS[:5])
        + f" and {len(DEMO_MODELS) - 5} more."
    ),
    "type": "invalid_request_error",
    "param": "model",
    "code": "model_not_found",
}
"""The error body for the model ``missing``."""
NOT_A_PAUSED_RESPONSE = (
    "previous_response_id only resumes a paused interrupt run (a resp_lg_ Response "
    "ending in lgos_interrupt calls). LGOS stores no conversations: send the earlier "
    "items in input instead, and turn off automatic response chaining for this model."
)

# --------------------------------------------------------------------------
# chat: one offline answer that echoes the prompt and the instructions
# --------------------------------------------------------------------------

CHAT_PROMPT = "What is LangGraph?"
GENERAL_AUDIENCE = (
    "Write for a general audience: answer clearly and concisely, in plain language."
)


def chat_answer(
    prompt: str = CHAT_PROMPT, *instructions: str, messages: int = 1
) -> str:
    """The `chat` graph's offline answer to ``prompt``.

    ``instructions`` are the client's system/developer texts, after the
    graph's own audience instruction; ``messages`` is how many conversation
    messages the graph saw (the whole history with ``use_history``).
    """
    following = ", ".join(f'"{text}"' for text in (GENERAL_AUDIENCE, *instructions))
    plural = "" if messages == 1 else "s"
    return (
        f'This is the offline demo model. You said: "{prompt}" '
        f"Following instructions: {following} "
        f"I saw {messages} conversation message{plural}."
    )


QUOTE_LIMIT = 200


def quoted_line(text: str, *, first_line: bool = False) -> str:
    """How the offline model quotes a message in its answer.

    Whitespace collapsed and cut to 200 characters (ending in "..." when
    cut); with ``first_line``, only the first non-blank line (how it quotes a
    system or developer message). A client whose prompt or instructions are
    long (the command-line clients') is answered with these.
    """
    if first_line:
        text = next((line for line in text.splitlines() if line.strip()), "")
    flat = " ".join(text.split())
    if len(flat) <= QUOTE_LIMIT:
        return flat
    return flat[: QUOTE_LIMIT - 3].rstrip() + "..."


# --------------------------------------------------------------------------
# functions: client functions the graph calls, then answers from
# --------------------------------------------------------------------------


def _strict_object(name: str, json_type: str) -> dict[str, Any]:
    """The JSON schema of an object with one required field and nothing else."""
    return {
        "type": "object",
        "properties": {name: {"type": json_type}},
        "required": [name],
        "additionalProperties": False,
    }


TIME_PROMPT = "What time is it in Tokyo?"
TIME_FUNCTION = "get_current_time"
TIME_DESCRIPTION = "Return the current time in an IANA time zone."
TIME_PARAMETERS = _strict_object("timezone", "string")
TIME_ARGS = {"timezone": "Asia/Tokyo"}
TIME_RESULT = "09:00"
# The offline model numbers its call IDs by the messages it saw: the graph's
# system prompt and the question.
TIME_CALL_ID = "call_get_current_time_2"

DICE_PROMPT = "Roll two dice"
DICE_FUNCTION = "roll_dice"
DICE_DESCRIPTION = "Roll some six-sided dice."
DICE_PARAMETERS = _strict_object("count", "integer")
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
    """The `functions` graph's answer after one call ran and returned.

    ``returned`` is the result as the graph shows it: the text the client
    sent, or :func:`shown` of a JSON object.
    """
    arguments = ", ".join(f"{key}={json.dumps(value)}" for key, value in args.items())
    return (
        f'To answer "{prompt}", I asked your client to run this function:\n\n'
        f"- `{name}({arguments})` returned {returned}\n\n"
        "(The offline demo model answers from the results as they came back.)"
    )


def shown(result: dict[str, Any]) -> str:
    """How the `functions` graph shows a function result that is a JSON object."""
    return ", ".join(f"{key}: {json.dumps(value)}" for key, value in result.items())


TIME_ANSWER = function_answer(TIME_PROMPT, TIME_FUNCTION, TIME_ARGS, TIME_RESULT)
DICE_ANSWER = function_answer(DICE_PROMPT, DICE_FUNCTION, DICE_ARGS, DICE_RESULT)

# --------------------------------------------------------------------------
# approval: one interrupt, answered approve or reject
# --------------------------------------------------------------------------

INTERRUPT_FUNCTION = "lgos_interrupt"
REFUND_PROMPT = "Refund order 42, it arrived broken."


def refund_interrupt(prompt: str) -> dict[str, Any]:
    """The `approval` graph's interrupt payload (the call's arguments) for ``prompt``."""
    return {
        "question": f"Approve this refund request?\n\n> {prompt}",
        "choices": ["approve", "reject"],
        "allow_other": True,
        "reviewer": "manager",
    }


def approved(prompt: str) -> str:
    """The `approval` graph's answer once the refund ``prompt`` is approved."""
    return (
        f"**Approved.** The refund request “{prompt}” was approved by the "
        "manager. The refund is on its way."
    )


def rejected(prompt: str) -> str:
    """The `approval` graph's answer once the refund ``prompt`` is rejected."""
    return (
        f"**Rejected.** The refund request “{prompt}” was rejected by the "
        "manager. No refund is issued; the customer is told why."
    )


REFUND_INTERRUPT = refund_interrupt(REFUND_PROMPT)
APPROVED = approved(REFUND_PROMPT)
REJECTED = rejected(REFUND_PROMPT)
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


def _writer_headings(prompt: str) -> list[str]:
    # The offline outline's first heading names the topic: the prompt without
    # a leading "What is" or "Write about" and its final question mark.
    topic = prompt.removeprefix("What is ").removeprefix("Write about ").rstrip("?")
    return [f"{topic}: the basics", "How it works", "Why it matters"]


def writer_commentary(prompt: str) -> list[str]:
    """The `writer` graph's commentary messages, in order, for ``prompt``."""
    headings = _writer_headings(prompt)
    return [
        "Outlining the answer in 3 sections",
        *(
            f"Drafting section {number} of 3: {heading}"
            for number, heading in enumerate(headings, start=1)
        ),
        "Polishing the final answer",
    ]


def writer_answer_start(prompt: str) -> str:
    """The first words of the `writer` graph's final answer to ``prompt``."""
    return f'Here is my answer to "{prompt}", outlined, drafted in 3 sections'


def writer_answer(prompt: str) -> str:
    """The `writer` graph's final answer to ``prompt``."""
    return (
        f"{writer_answer_start(prompt)} and polished in separate steps (the "
        "offline demo model scripts the prose).\n\n"
        + "\n\n".join(
            f'### {heading}\n\nThis section ("{heading}") was drafted in a step of '
            "its own. Set a model key and each section becomes two or three "
            "sentences written for the question."
            for heading in _writer_headings(prompt)
        )
    )


WRITER_COMMENTARY = writer_commentary(WRITER_PROMPT)
WRITER_ANSWER = writer_answer(WRITER_PROMPT)
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
# The citations graph reports its search as commentary while it streams.
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

URL_CITATIONS = [
    {
        "type": "url_citation",
        "url": url,
        "title": title,
        "start_index": CITATIONS_ANSWER.index(text),
        # Inclusive, as LGOS writes it (OpenAI's: the last cited character).
        "end_index": CITATIONS_ANSWER.index(text) + len(text) - 1,
    }
    for text, title, url in CITATIONS
]
"""The Responses (flat) url_citation annotations of :data:`CITATIONS`."""


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
# How the report opens (the JS test checks the lead, the Python test the sentence).
RESEARCH_REPORT_LEAD = "This is the offline demo model's research report"
RESEARCH_REPORT_START = f"{RESEARCH_REPORT_LEAD}, written only from the search results."

# --------------------------------------------------------------------------
# What the JavaScript cells send (tests/clients/js/*.mjs)
# --------------------------------------------------------------------------

JS_WRITER_PROMPT = "Write about LangGraph"
JS_REFUND_PROMPT = "Refund order 42"
JS_REJECTED_PROMPT = "Refund order 43"
SHORTER_PROMPT = "Shorter, please"
"""The next turn after the writer's answer (with ``use_history``)."""
AND_LGOS_PROMPT = "And LGOS?"
"""The next turn after the chat answer (with ``use_history``)."""
JS_TIME_RESULT = {"timezone": "Asia/Tokyo", "time": "2026-01-02T03:04:05+09:00"}
"""What the cells' own ``get_current_time`` returns."""

JS_INPUTS = {
    "prompts": {
        "chat": CHAT_PROMPT,
        "and_lgos": AND_LGOS_PROMPT,
        "writer": JS_WRITER_PROMPT,
        "shorter": SHORTER_PROMPT,
        "time": TIME_PROMPT,
        "dice": DICE_PROMPT,
        "refund": JS_REFUND_PROMPT,
        "refund_rejected": JS_REJECTED_PROMPT,
        "citations": CITATIONS_PROMPT,
        "research": RESEARCH_PROMPT,
    },
    "time_result": JS_TIME_RESULT,
}
"""The cells' inputs (``PROMPTS`` and ``TIME_RESULT`` in ``harness.mjs``)."""
