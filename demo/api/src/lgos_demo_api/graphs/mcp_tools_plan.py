"""How the offline model plans MCP tool calls: which offered tool, which arguments.

The `mcp` graph's offline stand-in (`mcp_tools_offline`) never knows the
tools in advance: the client attaches whatever its MCP server offers, maybe
renamed by a gateway (LiteLLM offers `convert_units` of the server `lgos_demo`
as `lgos_demo-convert_units`). So it reads them like a model would:

- `plan_tools` splits the question into clauses (at " and ", " then ", ",",
  ";", a full stop or a question mark) and gives each clause the offered
  tool whose name and description share the most words with it (a name word
  counts 3, a description word 1, stopwords nothing; at least 2 to count).
  A clause no tool fits joins the clause before it. The steps, in order,
  are the plan.
- `tool_arguments` fills a step's arguments from the tool's JSON Schema:
  numbers in order for number and integer parameters; enum members named in
  the clause (directly or through `UNIT_ALIASES`: "miles" is `mi`) for enum
  parameters, a unit written right after a number first; the previous
  tool's result for a text-like parameter when the clause says "it" or
  "that", else the quoted or remaining text; the clause without the words
  that chose the tool for `query`. Optional parameters it cannot fill are
  left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "UNIT_ALIASES",
    "PlanStep",
    "best_tool",
    "plan_tools",
    "tool_arguments",
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

_STOPWORDS = frozenset({
    "a", "an", "the", "to", "of", "in", "on", "at", "for", "from", "into", "as", "and",
    "then", "it", "that", "this", "these", "those", "is", "are", "was", "were", "be",
    "been", "me", "my", "we", "our", "you", "your", "i", "please", "can", "could",
    "would", "will", "should", "do", "does", "did", "some", "any", "all", "with", "by",
    "about", "up", "so", "also", "just", "now", "what", "how", "many", "much", "there",
    "their", "them", "its", "which", "when", "where", "who", "whom", "here", "get",
    "give", "tell", "let",
})  # fmt: skip
_SYNONYMS = {
    "show": "list", "display": "list", "read": "list", "view": "list",
    "remember": "save", "store": "save", "keep": "save", "record": "save",
    "jot": "save", "find": "search", "look": "search", "lookup": "search",
    "doc": "documentation", "docs": "documentation", "turn": "convert",
    "change": "convert", "conversion": "convert",
}  # fmt: skip
_PRONOUNS = frozenset({"it", "that", "this", "result", "results", "answer", "them"})
_TEXT_PARAMETERS = frozenset({"text", "content", "note", "body", "message"})
_QUERY_PARAMETERS = frozenset({"query", "q", "search", "term", "terms", "keywords"})
_FILLER = frozenset({"saying", "says", "called", "titled", "reading", "note", "notes"})
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_CLAUSE_BREAK = re.compile(
    r"\s+(?:and\s+then|and|then)\s+|[,;](?=\s|$)|\.(?=\s|$)|[?!]+", re.IGNORECASE
)
_TOKEN = re.compile(r"-?\d+(?:\.\d+)?|[^\W\d_]+")
_NAME_PARTS = re.compile(r"[_\W]+|(?<=[a-z])(?=[A-Z])")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|'([^']+)'")
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


def _word(raw: str) -> str:
    word = raw.lower().removesuffix("'s")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def _words(text: str) -> set[str]:
    """Normalised words of a text, synonyms and unit symbols added, no stopwords."""
    words: set[str] = set()
    for token in _TOKEN.findall(text):
        if token[0].isdigit() or token[0] == "-":
            continue
        word = _word(token)
        if token.lower() in _STOPWORDS or word in _STOPWORDS:
            continue
        words.add(word)
        if word in _SYNONYMS:
            words.add(_SYNONYMS[word])
        if word in UNIT_ALIASES:
            words.add(UNIT_ALIASES[word].lower())
    return words


def _name_words(name: str) -> set[str]:
    return {_word(part) for part in _NAME_PARTS.split(name) if part} - _STOPWORDS


def _score(tool: Mapping[str, Any], words: set[str]) -> tuple[int, frozenset[str]]:
    function = tool.get("function", tool)
    named = _name_words(str(function.get("name", ""))) & words
    described = _words(str(function.get("description") or "")) & words - named
    score = _NAME_WEIGHT * len(named) + _DESCRIPTION_WEIGHT * len(described)
    return score, frozenset(named | described)


def best_tool(
    text: str, tools: Sequence[Mapping[str, Any]], *, threshold: int = _THRESHOLD
) -> PlanStep | None:
    """Return the tool that fits `text` best, or None if none scores `threshold`.

    Ties go to the tool offered first.
    """
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
    alias = UNIT_ALIASES.get(_word(token)) or UNIT_ALIASES.get(token.lower())
    return next((m for m in enum if alias and str(m).lower() == alias.lower()), None)


def _enum_mentions(tokens: Sequence[str], enum: Sequence[Any]) -> list[Any]:
    """Enum members the tokens name; one right after a number comes first."""
    after_number, others = [], []
    for index, token in enumerate(tokens):
        follows_number = index > 0 and _is_number(tokens[index - 1])
        if token.lower() in _STOPWORDS and not follows_number:
            continue  # "in" is inches only in "5 in"
        member = _enum_member(token, enum)
        if member is not None:
            (after_number if follows_number else others).append(member)
    return after_number + others


def _remaining_text(clause: str, chosen_by: frozenset[str]) -> str:
    """Return the clause after its leading tool words, stopwords and filler."""
    for found in _TOKEN.finditer(clause):
        word = _word(found.group(0))
        skip = word in chosen_by or _SYNONYMS.get(word) in chosen_by
        if not (skip or word in _STOPWORDS or word in _FILLER):
            return clause[found.start() :].strip(" .:")
    return ""


def _note_text(clause: str, chosen_by: frozenset[str], previous: str | None) -> str:
    if previous and {_word(t) for t in _TOKEN.findall(clause)} & _PRONOUNS:
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
        and token.lower() not in _STOPWORDS
        and _word(token) not in _STOPWORDS
        and _word(token) not in chosen_by
        and _SYNONYMS.get(_word(token)) not in chosen_by
    ]
    return " ".join(kept)


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
    tokens = _TOKEN.findall(step.clause)
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
        return _query_text(tokens, step.chosen_by) or (step.clause if required else "")
    if required:
        return _remaining_text(step.clause, step.chosen_by) or step.clause
    return ""
