"""How the offline model fills a planned MCP tool call's arguments.

`tool_arguments` reads the tool's JSON Schema and the clause of the question
the call answers (`mcp_tools_plan.PlanStep`):

- number and integer parameters take the clause's numbers in order ("a" or
  "an" before a unit counts as 1), clamped to the schema's bounds;
- enum parameters take the members the clause names, directly or through
  `UNIT_ALIASES` ("miles" is `mi`), in order, a member written right after
  a number first ("how many km is 5 miles" converts from `mi`);
- a text-like parameter (`text`, `content`, `note`, `body`, `message`) takes
  the previous tool result's text when the clause says "it" or "that", else
  the quoted text, the text after a colon, or the rest of the clause;
- a required `query` takes the clause without the words that chose the tool,
  numbers and stopwords; an optional one (a filter, as `list_notes` has) is
  filled only when the clause narrows it: quoted text, or what follows
  "about", "containing", "mentioning", "matching", "with", "on" or "for"
  ("What notes do I have?" lists them all);
- an optional parameter it cannot fill is left out; a required one falls
  back to its schema `default`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from lgos_demo_api.graphs.mcp_tools_plan import (
    STOPWORDS,
    SYNONYMS,
    TOKEN,
    UNIT_ALIASES,
    PlanStep,
    normal_word,
)

__all__ = ["tool_arguments"]

_PRONOUNS = frozenset({"it", "that", "this", "result", "results", "answer", "them"})
_TEXT_PARAMETERS = frozenset({"text", "content", "note", "body", "message"})
_QUERY_PARAMETERS = frozenset({"query", "q", "search", "term", "terms", "keywords"})
_FILLER = frozenset(
    {"saying", "says", "called", "titled", "reading", "note", "notes", "down"}
)
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|'([^']+)'")
_NARROWED = re.compile(
    r"\b(?:about|containing|mentioning|matching|with|on|for)\s+(.+)$", re.IGNORECASE
)


def _numbers(tokens: Sequence[str]) -> list[float]:
    found = []
    for token in tokens:
        if token[0].isdigit() or token[0] == "-":
            found.append(float(token))
        elif token.lower() in _NUMBER_WORDS:
            found.append(float(_NUMBER_WORDS[token.lower()]))
    return found


def _is_number(token: str) -> bool:
    return token[0].isdigit() or token[0] == "-" or token.lower() in _NUMBER_WORDS


def _enum_member(token: str, enum: Sequence[Any]) -> Any | None:
    if token in enum:
        return token
    folded = [m for m in enum if str(m).lower() == token.lower()]
    if len(folded) == 1:
        return folded[0]
    alias = UNIT_ALIASES.get(normal_word(token)) or UNIT_ALIASES.get(token.lower())
    return next((m for m in enum if alias and str(m).lower() == alias.lower()), None)


def _enum_mentions(tokens: Sequence[str], enum: Sequence[Any]) -> list[Any]:
    """Enum members the tokens name; one right after a number comes first."""
    after_number, others = [], []
    for index, token in enumerate(tokens):
        follows_number = index > 0 and _is_number(tokens[index - 1])
        if token.lower() in STOPWORDS and not follows_number:
            continue  # "in" is inches only in "5 in"
        member = _enum_member(token, enum)
        if member is not None:
            (after_number if follows_number else others).append(member)
    return after_number + others


def _remaining_text(clause: str, chosen_by: frozenset[str]) -> str:
    """Return the clause after its leading tool words, stopwords and filler."""
    for found in TOKEN.finditer(clause):
        word = normal_word(found.group(0))
        skip = word in chosen_by or SYNONYMS.get(word) in chosen_by
        if not (skip or word in STOPWORDS or word in _FILLER):
            return clause[found.start() :].strip(" .:")
    return ""


def _note_text(clause: str, chosen_by: frozenset[str], previous: str | None) -> str:
    if previous and {normal_word(t) for t in TOKEN.findall(clause)} & _PRONOUNS:
        return previous
    quoted = _QUOTED.search(clause)
    if quoted:
        return next(group for group in quoted.groups() if group)
    if ":" in clause:
        return clause.split(":", 1)[1].strip()
    return _remaining_text(clause, chosen_by) or previous or ""


def _query_text(tokens: Sequence[str], chosen_by: frozenset[str]) -> str:
    kept = [
        token
        for token in tokens
        if not _is_number(token)
        and token.lower() not in STOPWORDS
        and normal_word(token) not in STOPWORDS
        and normal_word(token) not in chosen_by
        and SYNONYMS.get(normal_word(token)) not in chosen_by
    ]
    return " ".join(kept)


def _filter_text(clause: str, chosen_by: frozenset[str]) -> str:
    """Return an optional query: quoted text, or the words after "about" etc."""
    quoted = _QUOTED.search(clause)
    if quoted:
        return next(group for group in quoted.groups() if group)
    narrowed = _NARROWED.search(clause)
    if narrowed is None:
        return ""
    return _query_text(TOKEN.findall(narrowed.group(1)), chosen_by)


def _number_value(schema: Mapping[str, Any], value: float) -> float | int:
    number: float | int = value
    if schema.get("type") == "integer" or value.is_integer():
        number = int(value)
    if "minimum" in schema:
        number = max(number, schema["minimum"])
    if "maximum" in schema:
        number = min(number, schema["maximum"])
    return number


def tool_arguments(step: PlanStep, previous: str | None = None) -> dict[str, Any]:
    """Fill a planned call's arguments from its clause and the tool's JSON Schema.

    Args:
        step: The planned call.
        previous: The text of the previous tool result in this turn, which
            "it" or "that" refers to.

    Returns:
        A value for each parameter it could fill (in schema order); an
        optional parameter it cannot fill is left out, a required one gets
        its `default` when the schema has one.

    """
    function = step.tool.get("function", step.tool)
    schema: Mapping[str, Any] = function.get("parameters") or {}
    properties: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    tokens = _with_articles_as_one(TOKEN.findall(step.clause), properties)
    numbers = _numbers(tokens)
    used_mentions: dict[tuple[str, ...], int] = {}
    arguments: dict[str, Any] = {}
    for name, spec in properties.items():
        kind, enum = _kind(spec), spec.get("enum")
        if kind in ("number", "integer") and numbers:
            arguments[name] = _number_value(spec, numbers.pop(0))
        elif enum:
            key = tuple(str(member) for member in enum)
            named, used = _enum_mentions(tokens, enum), used_mentions.get(key, 0)
            if used < len(named):
                arguments[name] = named[used]
                used_mentions[key] = used + 1
        elif kind == "string":
            text = _string_argument(name, name in required, step, tokens, previous)
            if text:
                arguments[name] = text
        if name not in arguments and name in required and "default" in spec:
            arguments[name] = spec["default"]
    return arguments


def _with_articles_as_one(
    tokens: list[str], properties: Mapping[str, Any]
) -> list[str]:
    """Read "a"/"an" before an enum member as 1: "inches in a mile" is 1 mi."""
    enums = [spec["enum"] for spec in properties.values() if spec.get("enum")]

    def names_member(token: str) -> bool:
        return any(_enum_member(token, enum) is not None for enum in enums)

    return [
        "1"
        if token.lower() in ("a", "an")
        and index + 1 < len(tokens)
        and names_member(tokens[index + 1])
        else token
        for index, token in enumerate(tokens)
    ]


def _kind(spec: Mapping[str, Any]) -> str | None:
    """Return a parameter's JSON type (the non-null one of an `anyOf`)."""
    if "type" in spec:
        return spec["type"]
    options = [o.get("type") for o in spec.get("anyOf") or () if isinstance(o, dict)]
    return next((kind for kind in options if kind not in (None, "null")), None)


def _string_argument(
    name: str,
    required: bool,
    step: PlanStep,
    tokens: Sequence[str],
    previous: str | None,
) -> str:
    lowered = name.lower()
    if lowered in _TEXT_PARAMETERS:
        return _note_text(step.clause, step.chosen_by, previous)
    if lowered in _QUERY_PARAMETERS:
        if required:
            return _query_text(tokens, step.chosen_by) or step.clause
        return _filter_text(step.clause, step.chosen_by)
    if required:
        return _remaining_text(step.clause, step.chosen_by) or step.clause
    return ""
