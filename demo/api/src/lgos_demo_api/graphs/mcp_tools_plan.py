"""How the offline model plans MCP tool calls: which offered tool for which clause.

The `mcp` graph's offline stand-in (`mcp_tools_offline`) never knows the
tools in advance: the client attaches whatever its MCP server offers, maybe
renamed by a gateway (LiteLLM offers `convert_units` of the server `lgos_demo`
as `lgos_demo-convert_units`). So it reads them like a model would.
`plan_tools` splits the question into clauses (at " and ", " then ", ",",
";", a full stop or a question mark) and gives each clause the offered tool
whose name and description share the most words with it (a name word counts
3, a description word 1, stopwords nothing; at least 2 to count). A clause no
tool fits joins the clause before it. The steps, in order, are the plan.
A tool that makes a change (a verb of `WRITE_VERBS` in its name, as in
`save_note`, or first in its description, "Save a note …") is chosen only
when the clause asks for that verb, so "What notes do I have?" lists notes
rather than saving one; and a clause asking for a change ("delete my notes")
is never given a tool that makes none. "note" used as a verb ("note it",
"note down …", "note: …", a clause starting with it) reads as "save".

`mcp_tools_arguments` then fills each step's arguments from the tool's JSON
Schema; the vocabulary both read (`UNIT_ALIASES`, `STOPWORDS`, `SYNONYMS`,
`TOKEN`, `normal_word`) lives here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "STOPWORDS",
    "SYNONYMS",
    "TOKEN",
    "UNIT_ALIASES",
    "WRITE_VERBS",
    "PlanStep",
    "best_tool",
    "normal_word",
    "plan_tools",
    "tool_name",
]

UNIT_ALIASES: dict[str, str] = {
    "millimetre": "mm", "millimeter": "mm", "centimetre": "cm", "centimeter": "cm",
    "metre": "m", "meter": "m", "kilometre": "km", "kilometer": "km",
    "kilometres": "km", "kilometers": "km", "inch": "in", "inches": "in",
    "foot": "ft", "feet": "ft", "yard": "yd", "mile": "mi",
    "milligram": "mg", "gram": "g", "kilogram": "kg", "kilo": "kg",
    "ounce": "oz", "pound": "lb", "lbs": "lb",
    "celsius": "C", "centigrade": "C", "fahrenheit": "F", "kelvin": "K",
    "millilitre": "ml", "milliliter": "ml", "litre": "l", "liter": "l",
    "gallon": "gal",
}  # fmt: skip
"""Words the offline model reads as unit symbols (singular; plurals are
folded to singular first). A word counts only if its symbol is an enum
member of the parameter being filled."""

STOPWORDS = frozenset({
    "a", "an", "the", "to", "of", "in", "on", "at", "for", "from", "into", "as", "and",
    "then", "it", "that", "this", "these", "those", "is", "are", "was", "were", "be",
    "been", "me", "my", "we", "our", "you", "your", "i", "please", "can", "could",
    "would", "will", "should", "do", "does", "did", "some", "any", "all", "with", "by",
    "about", "up", "so", "also", "just", "now", "what", "how", "many", "much", "there",
    "their", "them", "its", "which", "when", "where", "who", "whom", "here", "get",
    "give", "tell", "let",
})  # fmt: skip
SYNONYMS = {
    "show": "list", "display": "list", "read": "list", "view": "list",
    "remember": "save", "store": "save", "keep": "save", "record": "save",
    "jot": "save", "add": "save", "write": "save", "find": "search",
    "look": "search", "lookup": "search",
    "doc": "documentation", "docs": "documentation", "turn": "convert",
    "change": "convert", "conversion": "convert",
}  # fmt: skip
"""Everyday words the offline model also reads as the verb a tool is named for."""

WRITE_VERBS = frozenset({
    "save", "add", "create", "write", "delete", "remove", "update", "set", "send",
    "post", "put", "insert", "edit", "append", "clear", "drop",
})  # fmt: skip
"""Name words of tools that change something: such a tool needs its verb (or a
synonym of it) in the clause, never just a shared noun."""

_CLAUSE_BREAK = re.compile(
    r"\s+(?:and\s+then|and|then)\s+|[,;](?=\s|$)|\.(?=\s|$)|[?!]+", re.IGNORECASE
)
TOKEN = re.compile(r"-?\d+(?:\.\d+)?|[^\W\d_]+")
"""A number (`5`, `-3`, `26.2`) or a word of letters."""
_NAME_PARTS = re.compile(r"[_\W]+|(?<=[a-z])(?=[A-Z])")
_NAME_WEIGHT, _DESCRIPTION_WEIGHT, _THRESHOLD = 3, 1, 2


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One planned tool call.

    Attributes:
        tool: The offered tool (an OpenAI Chat Completions format tool dict).
        clause: The part of the question it answers.
        chosen_by: The (normalised) words that chose the tool.

    """

    tool: Mapping[str, Any]
    clause: str
    chosen_by: frozenset[str]

    @property
    def name(self) -> str:
        """The tool's name as offered."""
        return tool_name(self.tool)


def tool_name(tool: Mapping[str, Any]) -> str:
    """Return an OpenAI-format tool dict's name."""
    return str(tool.get("function", tool).get("name", ""))


def normal_word(raw: str) -> str:
    """Return a word lower-cased, without a possessive or a plural `s`."""
    word = raw.lower().removesuffix("'s")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def _words(text: str) -> set[str]:
    """Normalised words of a text, synonyms and unit symbols added, no stopwords."""
    words: set[str] = set()
    for token in TOKEN.findall(text):
        if token[0].isdigit() or token[0] == "-":
            continue
        word = normal_word(token)
        if token.lower() in STOPWORDS or word in STOPWORDS:
            continue
        words.add(word)
        if word in SYNONYMS:
            words.add(SYNONYMS[word])
        if word in UNIT_ALIASES:
            words.add(UNIT_ALIASES[word].lower())
    return words


def _name_words(name: str) -> set[str]:
    return {normal_word(part) for part in _NAME_PARTS.split(name) if part} - STOPWORDS


_NOTE_VERB = re.compile(
    r"^\s*note\b(?!s)|\bnote(?=\s+(?:it|that|this|them|down)\b|\s*:)", re.IGNORECASE
)


def _verbs_read(clause: str) -> str:
    """Return the clause with "note" as a verb spelt "save note"."""
    return _NOTE_VERB.sub("save note", clause)


def _score(tool: Mapping[str, Any], words: set[str]) -> tuple[int, frozenset[str]]:
    function = tool.get("function", tool)
    name_words = _name_words(str(function.get("name", "")))
    description = str(function.get("description") or "")
    first = TOKEN.findall(description)[:1]
    changes = (name_words | {normal_word(word) for word in first}) & WRITE_VERBS
    if not changes <= words:
        return 0, frozenset()  # a change nobody asked for
    if words & WRITE_VERBS and not changes:
        return 0, frozenset()  # a change this tool cannot make
    named = name_words & words
    described = _words(description) & words - named
    score = _NAME_WEIGHT * len(named) + _DESCRIPTION_WEIGHT * len(described)
    return score, frozenset(named | described)


def best_tool(
    text: str, tools: Sequence[Mapping[str, Any]], *, threshold: int = _THRESHOLD
) -> PlanStep | None:
    """Return the tool that fits `text` best, or None if none scores `threshold`.

    Ties go to the tool offered first.
    """
    text = _verbs_read(text)
    words = _words(text)
    best: PlanStep | None = None
    best_score = threshold - 1
    for tool in tools:
        score, chosen_by = _score(tool, words)
        if score > best_score:
            best, best_score = PlanStep(tool, text, chosen_by), score
    return best


def plan_tools(question: str, tools: Sequence[Mapping[str, Any]]) -> list[PlanStep]:
    """Plan the tool calls a question asks for, one step per clause that fits a tool.

    Args:
        question: The user's question.
        tools: The offered tools (OpenAI Chat Completions format).

    Returns:
        The steps in the order the question asks for them; a clause no tool
        fits is added to the step before it (or the next one, at the start).

    """
    steps: list[PlanStep] = []
    pending = ""
    for piece in _CLAUSE_BREAK.split(question):
        clause = " ".join(f"{pending} {piece}".split())
        if not clause:
            continue
        step = best_tool(clause, tools)
        if step is not None:
            steps.append(step)
            pending = ""
        elif steps:
            last = steps[-1]
            steps[-1] = PlanStep(
                last.tool, f"{last.clause}, {piece.strip()}", last.chosen_by
            )
        else:
            pending = clause
    return steps
