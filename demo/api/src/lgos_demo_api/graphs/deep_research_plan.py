"""The topic of a research request, phrased to fit the offline plan's questions.

`deep_research_offline.plan_for` builds its questions around the request's
topic: "What do the sources explain about <topic>?". `research_topic` finds a
topic that reads well there, whatever form the request takes:

- an instruction ("Compare how LangGraph and the OpenAI Agents SDK pause for
  approval", "Research PostgreSQL connection pools") gives its object: a noun
  phrase, or a "how ..." clause the user already wrote in that form;
- a question ("What are the latest trends in agents?", "How do LangGraph and
  CrewAI differ?") gives its subject, or becomes a "how ..." clause;
- "the difference between A and B" and "A vs B" give the pair compared;
- anything else is quoted as a question: `the question "..."`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["QUESTION_WORD", "Topic", "research_topic"]

_LEAD = re.compile(
    r"^(?:please\s+|can you\s+|could you\s+)*(?:compare|research|investigate|"
    r"explain|describe|summari[sz]e|tell me about|find out(?: about)?|look into|"
    r"survey|give me an overview of|what is|what are|what's|what were)\s+",
    re.IGNORECASE,
)
_CUE_ONLY = re.compile(
    r"^(?:please\s+)?(?:research|compare|investigate|look into|survey|dig in)"
    r"(?:\s+(?:it|this|that|them|is required|please))?\s*[.!?:]*$",
    re.IGNORECASE,
)
_HOW_DO = re.compile(r"^(how|why)\s+do\s+(.+)$", re.IGNORECASE)
_HOW_DOES_COMPARE = re.compile(
    r"^how\s+(?:do|does)\s+(.+?)\s+(?:compare|stack up)\s+(?:to|with|against)\s+"
    r"(.+)$",
    re.IGNORECASE,
)
_HOW_DOES_WORK = re.compile(r"^how\s+does\s+(.+?)\s+work$", re.IGNORECASE)
QUESTION_WORD = re.compile(
    r"^(?:how|why|when|where|which|who|what|whether|is|are|does|do|did|can|"
    r"could|should|would|will)\b",
    re.IGNORECASE,
)
"""A question word opening a sentence (``how``, ``is``, ``should``...)."""
_DIFFERENCE = re.compile(
    r"^(?:the\s+)?(?:main\s+|key\s+)?(?:differences?|pros and cons)\s+"
    r"(?:between|of)\s+(.+)$",
    re.IGNORECASE,
)
_PAIR = re.compile(r"^(.+?)\s+(?:and|vs\.?|versus)\s+(.+)$", re.IGNORECASE)
_TRAILING_COMPARE = re.compile(
    r"\s+(?:compare|differ|stack up)(?:\s+(?:to|with)\s+each other)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Topic:
    """A request's topic, ready to drop into the plan's questions.

    Attributes:
        text: The topic after "about": a noun phrase, a "how ..." clause or
            `the question "..."`.
        involved: The topic after "involved in".
        comparison: The plan's comparison question.

    """

    text: str
    involved: str
    comparison: str


def _main_sentence(request: str) -> str:
    """Return the part of the request that names what to research.

    Sentences (and parts before a colon) that only ask for research
    ("Research it.", "research", "Research is required") are dropped:
    "How do background runs work? Research it." is about background runs,
    "LangGraph vs CrewAI: research" about LangGraph and CrewAI.
    """
    text = " ".join(request.split()).strip()
    parts = [p.strip() for p in re.split(r"(?<=[.?!:])\s+", text) if p.strip()]
    meaningful = [p for p in parts if not _CUE_ONLY.match(p)]
    return meaningful[0] if meaningful else text


def _clean(request: str) -> str:
    text = _main_sentence(request).rstrip("?.!: ").strip()
    return _LEAD.sub("", text).strip()


def research_topic(request: str) -> Topic:
    """Find the topic of a research request (see the module docstring).

    Args:
        request: What the user typed.

    Returns:
        The topic; `the request` when nothing is left of it.

    """
    text = _clean(request)
    if not text:
        text = "the request"
    if (versus := _HOW_DOES_COMPARE.match(text)) is not None:
        text = f"{versus.group(1)} and {versus.group(2)}"
    elif (works := _HOW_DOES_WORK.match(text)) is not None:
        text = f"how {works.group(1)} works"
    elif (how := _HOW_DO.match(text)) is not None:
        # "How do A and B compare" -> "A and B"; "How do A and B pause" ->
        # "how A and B pause" (a plural subject: no verb to inflect).
        rest = how.group(2)
        stripped = _TRAILING_COMPARE.sub("", rest)
        text = stripped if stripped != rest else f"{how.group(1).lower()} {rest}"
    if (difference := _DIFFERENCE.match(text)) is not None:
        text = difference.group(1)
    if QUESTION_WORD.match(text) and not re.match(r"^how\s", text):
        quoted = _main_sentence(request).rstrip("?.!: ").strip()
        topic = f"the question “{quoted[:1].lower() + quoted[1:]}”"
        return Topic(
            text=topic,
            involved=f"answering {topic}",
            comparison=f"Which options do the sources compare for {topic}?",
        )
    pair = None if text.startswith("how ") else _PAIR.match(text)
    if pair is not None:
        first, second = pair.group(1), _TRAILING_COMPARE.sub("", pair.group(2))
        comparison = f"How do {first} and {second} differ?"
        if " and " not in text:  # "A vs B" reads as "A and B"
            text = f"{first} and {second}"
    elif text.startswith("how "):
        comparison = f"How do the alternatives differ in {text}?"
    else:
        comparison = f"Which alternatives to {text} do the sources compare?"
    return Topic(text=text, involved=text, comparison=comparison)
