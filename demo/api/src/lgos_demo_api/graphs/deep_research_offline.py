"""The offline model's script for `deep-research`: every step, deterministic.

`offline_research_model()` is an `OfflineChatModel` that recognises each step
of the graph by its system prompt and plays it:

- triage (`triage_decision`): greetings, thanks, arithmetic and other short
  small talk need no research; so do requests without a research cue. Cues
  are words such as compare, research, investigate, latest, recent, current,
  news, trends, versus, differences, "pros and cons" or "state of". A plan
  has three to five self-contained questions built from the request's topic
  (four for comparisons and for "latest" questions, five for both). An edit
  `remove N` drops question N; any other edit is added as a question, kept
  as written when it is one, else "What do the sources explain about ...?"
  (replacing the last one when the plan has five). A request mentioning a
  weapon, a bomb, an explosive or malware is refused. "Research is required"
  in the prompt turns any request into a plan.
- researcher (`research_step`): round 1 searches the question's keywords and,
  in parallel, a shorter variant; later rounds retry with other queries only
  when every search so far failed or found nothing.
- report (`report_text`): per question, the first sentence of up to two of
  its sources not quoted for an earlier question, each followed by its `[n]`
  marker (a pointer to the sources above when all were quoted), or a plain
  statement that the question remains unanswered. The graph renumbers the
  markers in reading order.
- answer (`answer_step`): calls the client's functions when the request
  names them (or `tool_choice` forces it), summarises function results,
  evaluates arithmetic, greets back, and otherwise explains that it answers
  without research and how to ask for research on the same topic.

Attachments never steer the script (only what the user typed does); a
report or text answer that received some ends by naming them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from lgos_demo_api.arithmetic import arithmetic
from lgos_demo_api.attachments import parse_attachments
from lgos_demo_api.graphs.deep_research_offline_report import report_text
from lgos_demo_api.graphs.deep_research_plan import QUESTION_WORD, research_topic
from lgos_demo_api.graphs.deep_research_prompts import (
    ANSWER_PROMPT,
    FORCED_RESEARCH,
    REPORT_PROMPT,
    RESEARCH_PROMPT,
)
from lgos_demo_api.graphs.functions_offline import function_arguments
from lgos_demo_api.graphs.tool_calls import call_id
from lgos_demo_api.graphs.transcript import (
    latest_typed_text,
    system_text,
    tool_calls_by_id,
    trailing_tool_results,
)
from lgos_demo_api.offline import (
    OfflineChatModel,
    default_responder,
    end_sentence,
    quoted,
)
from lgos_demo_api.search.queries import keyword_query

__all__ = [
    "REFUSAL",
    "answer_step",
    "offline_research_model",
    "plan_for",
    "report_text",
    "research_step",
    "triage_decision",
]

REFUSAL = "I can't help with weapons, explosives or malware."
_EXAMPLE = "Compare how LangGraph and the OpenAI Agents SDK pause for approval"

_RESEARCH_CUES = (
    "compare",
    "comparison",
    "research",
    "investigate",
    "latest",
    "recent",
    "current",
    "news",
    "trend",
    "versus",
    " vs ",
    " vs.",
    "difference",
    "pros and cons",
    "state of",
    "survey",
)
_LATEST_CUES = ("latest", "recent", "current", "news", "trend", "state of", "today")
_COMPARE_CUES = ("compare", "comparison", "versus", " vs ", " vs.", "difference")
_HARMFUL = ("weapon", "bomb", "explosive", "malware")
_GREETINGS = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening))\b",
    re.IGNORECASE,
)
_PLAN_LINE = re.compile(r"^\d+\. (.+)$", re.MULTILINE)
_EDIT = re.compile(
    r"^Revise the plan according to this request from the user: (.+)$", re.MULTILINE
)
_EDIT_LEAD = re.compile(
    r"^(?:(?:also|please|and|then|only|just)\s+)*(?:(?:add|include|cover|research|"
    r"ask about|focus on|look at|look into)\b\s*:?\s*"
    r"(?:a question\s+(?:about|on)\s+)?)?",
    re.IGNORECASE,
)
_REMOVE = re.compile(r"^(remove|drop|delete)\s+(?:question\s+)?(\d)\b", re.IGNORECASE)


def _as_question(text: str) -> str:
    text = text.strip().rstrip(".!")
    text = text[:1].upper() + text[1:]
    return text if text.endswith("?") else f"{text}?"


def _added_question(edit: str) -> str:
    """Turn a plan edit into a research question.

    A question ("Is it free?") is kept as written; anything else ("Add how
    each one resumes after a crash", "also cover pricing") becomes "What do
    the sources explain about <topic>?".
    """
    text = _EDIT_LEAD.sub("", " ".join(edit.split())).strip()
    if not text:
        return _as_question(edit)
    if text.endswith("?") and QUESTION_WORD.match(text):
        return _as_question(text)
    return f"What do the sources explain about {research_topic(text).text}?"


def plan_for(question: str) -> list[str]:
    """Build the research plan for a request (three to five questions).

    The questions are full sentences built around the request's topic (see
    `research_topic`): what the sources explain about it, which APIs,
    settings and steps it involves, how the options differ (comparisons), what
    has changed recently ("latest" requests) and what remains open.
    """
    lowered = f" {question.lower()} "
    topic = research_topic(question)
    plan = [
        f"What do the sources explain about {topic.text}?",
        f"Which APIs, settings and steps are involved in {topic.involved}?",
        f"What limitations or open questions do the sources report about {topic.text}?",
    ]
    if any(cue in lowered for cue in _COMPARE_CUES):
        plan.insert(2, topic.comparison)
    if any(cue in lowered for cue in _LATEST_CUES):
        plan.append(f"Which recent changes do the sources report about {topic.text}?")
    return plan


def _revise(plan: list[str], edit: str) -> list[str]:
    revised = list(plan)
    removal = _REMOVE.match(edit.strip())
    if removal is not None:
        index = int(removal.group(2)) - 1
        if 0 <= index < len(revised) and len(revised) > 1:
            del revised[index]
        return revised
    question = _added_question(edit)
    if len(revised) >= 5:
        revised[-1] = question
    else:
        revised.append(question)
    return revised


def _needs_research(question: str) -> bool:
    lowered = f" {question.lower()} "
    if not question or _GREETINGS.match(question) or arithmetic(question):
        return False
    return any(cue in lowered for cue in _RESEARCH_CUES)


def triage_decision(
    messages: list[BaseMessage], schema: Any
) -> dict[str, Any] | AIMessage:
    """Play the triage step (a `StructuredResponder`)."""
    question = latest_typed_text(messages)
    system = system_text(messages)
    if any(word in question.lower() for word in _HARMFUL):
        return AIMessage(content=[{"type": "refusal", "refusal": REFUSAL}])
    edit = _EDIT.search(system)
    if edit is not None:
        current = _PLAN_LINE.findall(system[: edit.start()])
        return {"needs_research": True, "questions": _revise(current, edit.group(1))}
    if FORCED_RESEARCH in system or _needs_research(question):
        return {"needs_research": True, "questions": plan_for(question)}
    return {"needs_research": False, "questions": []}


def _searches(messages: Sequence[BaseMessage]) -> tuple[list[str], list[ToolMessage]]:
    queries = [
        str(call["args"].get("query", ""))
        for m in messages
        if isinstance(m, AIMessage)
        for call in m.tool_calls
    ]
    results = [m for m in messages if isinstance(m, ToolMessage)]
    return queries, results


def research_step(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage:
    """Play a researcher's search step: choose this round's queries."""
    question = latest_typed_text(messages)
    queries, results = _searches(messages)
    candidates = [
        keyword_query(question, 6),
        keyword_query(question, 3),
        keyword_query(question, 2),
        keyword_query(question, 1),
    ]
    fresh = [q for q in dict.fromkeys(candidates) if q and q not in queries]
    if not queries:
        chosen = fresh[:2] or [question]
    else:
        useful = any(
            r.status != "error"
            and isinstance(r.artifact, dict)
            and r.artifact.get("sources")
            for r in results
        )
        chosen = [] if useful else fresh[:1]
    if not chosen and tool_choice in ("required", "any", True):
        chosen = [keyword_query(question) or question]
    rounds = sum(isinstance(m, AIMessage) for m in messages)
    return AIMessage(
        content="",
        tool_calls=[
            {
                "name": "web_search",
                "args": {"query": query},
                "id": call_id(question, rounds, index, query),
            }
            for index, query in enumerate(chosen)
        ],
    )


def _function_calls(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> list[dict[str, Any]]:
    functions = [t for t in tools if t.get("type") == "function"]
    if not functions or tool_choice == "none":
        return []
    names = [t["function"]["name"] for t in functions]
    if isinstance(tool_choice, str) and tool_choice in names:
        wanted = [tool_choice]
    else:
        question = latest_typed_text(messages).lower()
        wanted = [
            name
            for name in names
            if any(
                len(part) >= 4 and part in question
                for part in name.lower().split("_")
                if part not in ("get", "current", "list", "fetch")
            )
        ]
        if not wanted and tool_choice in ("required", "any", True):
            wanted = names[:1]
    question = latest_typed_text(messages)
    schemas = {t["function"]["name"]: t["function"] for t in functions}
    return [
        {
            "name": name,
            "args": function_arguments(schemas[name].get("parameters"), question),
            "id": call_id(len(messages), name),
            "type": "tool_call",
        }
        for name in wanted
    ]


def answer_step(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Play the direct answer."""
    if messages and isinstance(messages[-1], ToolMessage):
        calls = tool_calls_by_id(messages)
        results = []
        for message in trailing_tool_results(messages):
            call = calls.get(message.tool_call_id)
            name = message.name or (call["name"] if call else "a function")
            results.append(f"{name} returned {' '.join(message.text.split())}")
        return end_sentence("The functions answered: " + "; ".join(results))
    calls = _function_calls(messages, tools, tool_choice)
    if calls:
        return AIMessage(content="", tool_calls=calls)
    question = latest_typed_text(messages)
    if (result := arithmetic(question)) is not None:
        return f"{result}."
    if _GREETINGS.match(question):
        return (
            "Hello! This is the deep-research demo on the offline model. Ask "
            f'something that needs research, for example "{_EXAMPLE}", with '
            "Web search on."
        )
    return _without_research(question)


def _without_research(question: str) -> str:
    """Answer directly: say what the offline model can do, and how to research."""
    example = _EXAMPLE
    topic = research_topic(question).text
    asks = question.rstrip().endswith("?") or topic.startswith("how ")
    if asks and not topic.startswith("the question"):
        example = f"Research {topic}"
    return (
        "This is the offline demo model, answering directly without research. "
        f"It has no knowledge of its own, so it cannot answer {quoted(question)} "
        f'To research it, ask for example "{example}" with Web search on: you '
        "review a research plan, researchers search in parallel, and a report "
        "cites what they found."
    )


def _responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    system = system_text(messages)
    if system.startswith(RESEARCH_PROMPT[:40]):
        return research_step(messages, tools, tool_choice)
    if system.startswith(REPORT_PROMPT[:40]):
        reply: AIMessage | str = report_text(system)
    elif system.startswith(ANSWER_PROMPT[:40]):
        reply = answer_step(messages, tools, tool_choice)
    else:
        return default_responder(messages, tools, tool_choice)
    attachments = parse_attachments(messages)
    if attachments and isinstance(reply, str):
        read = [attachment.name for attachment in attachments if attachment.readable]
        notes = [
            attachment.text for attachment in attachments if not attachment.readable
        ]
        if read:
            reply += f"\n\n(Attachments I read: {', '.join(read)}.)"
        if notes:
            reply += f"\n\n(Attachments I could not read: {' '.join(notes)})"
    return reply


def offline_research_model(
    *, chunk_delay: float = 0.0, answer_delay: float = 0.0
) -> OfflineChatModel:
    """Build the offline model that plays every `deep-research` step.

    Triage goes through `structured_responder` (`triage_decision`); the
    other steps are told apart by their system prompts. `chunk_delay` and
    `answer_delay` pace streamed and non-streamed calls (`OfflineChatModel`).
    """
    return OfflineChatModel(
        chunk_delay=chunk_delay,
        answer_delay=answer_delay,
        responder=_responder,
        structured_responder=triage_decision,
    )
