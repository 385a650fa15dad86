"""The offline model's script for the `functions` graph.

`functions_responder` decides deterministically which offered functions the
question is about (by the words in their names, `matching_functions`) and
fills their arguments from the question (`function_arguments`); once the
client has sent the results back, it answers with them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from lgos_demo_api.graphs.transcript import (
    latest_user_text,
    tool_calls_by_id,
    trailing_tool_results,
)
from lgos_demo_api.offline import quoted

__all__ = ["function_arguments", "functions_responder", "matching_functions"]


_GENERIC_NAME_WORDS = frozenset(
    {"get", "set", "current", "list", "fetch", "find", "make", "do", "the", "of"}
)
_NUMBER_WORDS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
_COUNT_NAMES = frozenset({"count", "n", "number", "quantity", "times", "amount"})
_CITY_TIMEZONES = {
    "tokyo": "Asia/Tokyo",
    "paris": "Europe/Paris",
    "london": "Europe/London",
    "berlin": "Europe/Berlin",
    "new york": "America/New_York",
    "san francisco": "America/Los_Angeles",
    "los angeles": "America/Los_Angeles",
    "sydney": "Australia/Sydney",
    "singapore": "Asia/Singapore",
    "utc": "UTC",
}
_IANA_ZONE = re.compile(r"\b[A-Z][A-Za-z]+/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?\b")
_NUMBER_THEN_WORD = re.compile(r"\b(\d+)(?:[\s-]*([a-z]+))?")


def _words(text: str) -> set[str]:
    words = set(re.findall(r"[a-z]+", text.lower()))
    return words | {word[:-1] for word in words if word.endswith("s")}


def _name_words(name: str) -> set[str]:
    parts = {part for part in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name) if part}
    return {part.lower() for part in parts} - _GENERIC_NAME_WORDS


def matching_functions(
    question: str, tools: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """Return the tools whose name words appear in the question.

    A tool matches when a word of its name (split at `_` and camel case,
    without generic verbs such as "get" or "current") is a word of the
    question, e.g. `get_current_time` for "What time is it?" and `roll_dice`
    for "Roll two dice".

    Args:
        question: The user's question.
        tools: OpenAI (Chat Completions format) tool dicts.

    Returns:
        The matching tools, in the given order.

    """
    words = _words(question)
    return [tool for tool in tools if _name_words(tool["function"]["name"]) & words]


def _timezone(question: str) -> str | None:
    found = _IANA_ZONE.search(question)
    if found:
        return found.group(0)
    lowered = question.lower()
    for city, zone in _CITY_TIMEZONES.items():
        if re.search(rf"\b{city}\b", lowered):
            return zone
    return None


def _number_value(schema: Mapping[str, Any], value: float) -> float | int:
    number: float | int = int(value) if schema.get("type") == "integer" else value
    if "minimum" in schema:
        number = max(number, schema["minimum"])
    if "maximum" in schema:
        number = min(number, schema["maximum"])
    return number


def function_arguments(
    parameters: Mapping[str, Any] | None, question: str
) -> dict[str, Any]:
    """Fill a function's arguments from the question, deterministically.

    - Strings: an `enum` member named in the question; for a property whose
      name mentions a time zone, an IANA zone in the question (or the zone of
      a well-known city named in it); else the schema `default`, the first
      `enum` member, `"UTC"` for time zones, or the question itself.
    - Integers and numbers: a number written right before a word that starts
      like the property name ("20 sides", "20-sided" for `sides`); else the
      next unused number of the question (digits or "one" to "ten"), given
      first to count-like properties (`count`, `n`, `number`, ...); else the
      `default`, the `minimum`, or 1. Values are clamped to the bounds.
    - Booleans: the `default`, else `False`.

    Args:
        parameters: The function's JSON Schema object, or None.
        question: The user's question.

    Returns:
        A value for every declared property.

    """
    properties: Mapping[str, Any] = (parameters or {}).get("properties") or {}
    text = re.sub(
        rf"\b(?:{'|'.join(_NUMBER_WORDS)})\b",
        lambda found: _NUMBER_WORDS[found.group(0).lower()],
        question,
        flags=re.IGNORECASE,
    )
    numbers = [
        (int(digits), (word or "").lower())
        for digits, word in _NUMBER_THEN_WORD.findall(text.lower())
    ]
    used: set[int] = set()
    arguments: dict[str, Any] = {}
    numeric = [
        n for n, s in properties.items() if s.get("type") in ("integer", "number")
    ]
    for name in numeric:
        stem = name.lower()[:4]
        for index, (_, word) in enumerate(numbers):
            if word and (word.startswith(stem) or name.lower().startswith(word[:4])):
                used.add(index)
                arguments[name] = _number_value(properties[name], numbers[index][0])
                break
    # Numbers left over count things ("two dice"): count-like properties first.
    for name in sorted(numeric, key=lambda n: n.lower() not in _COUNT_NAMES):
        if name in arguments:
            continue
        schema = properties[name]
        free = next((i for i in range(len(numbers)) if i not in used), None)
        if free is not None:
            used.add(free)
            arguments[name] = _number_value(schema, numbers[free][0])
        else:
            fallback = schema.get("default", schema.get("minimum", 1))
            arguments[name] = _number_value(schema, fallback)
    for name, schema in properties.items():
        kind = schema.get("type")
        if kind == "string":
            enum = schema.get("enum") or []
            named = [m for m in enum if str(m).lower() in question.lower()]
            zone = "zone" in name.lower() or name.lower() == "tz"
            if named:
                arguments[name] = named[0]
            elif zone and (found := _timezone(question)):
                arguments[name] = found
            elif "default" in schema:
                arguments[name] = schema["default"]
            elif enum:
                arguments[name] = enum[0]
            else:
                arguments[name] = "UTC" if zone else question
        elif kind == "boolean":
            arguments[name] = schema.get("default", False)
    return {name: arguments[name] for name in properties if name in arguments}


def _describe_output(output: str) -> str:
    try:
        value = json.loads(output)
    except ValueError:
        return output
    if isinstance(value, dict):
        return ", ".join(f"{key}: {json.dumps(item)}" for key, item in value.items())
    return json.dumps(value)


def _answer_from_results(messages: Sequence[BaseMessage]) -> str:
    calls = tool_calls_by_id(messages)
    lines = []
    for result in trailing_tool_results(messages):
        call = calls.get(result.tool_call_id)
        name = call["name"] if call else "a function"
        args = ", ".join(
            f"{key}={json.dumps(value)}"
            for key, value in (call or {}).get("args", {}).items()
        )
        lines.append(
            f"- `{name}({args})` returned {_describe_output(str(result.text))}"
        )
    question = " ".join(latest_user_text(messages).split())
    return (
        f'To answer "{question}", I asked your client to run '
        f"{'this function' if len(lines) == 1 else 'these functions'}:\n\n"
        + "\n".join(lines)
        + "\n\n(The offline demo model answers from the results as they came back.)"
    )


def functions_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Play the offline model for the `functions` graph, deterministically.

    - After function results (the last messages are `ToolMessage`s): an answer
      listing each call with its arguments and what it returned.
    - With `tool_choice="none"` or no tools: a text answer naming the offered
      functions.
    - With a named `tool_choice`: a call to that function.
    - Otherwise the functions `matching_functions` finds (all of them; the
      graph keeps only the first when parallel calls are off), or, for
      `"required"` when none matches, the first function.

    Arguments come from `function_arguments`; call IDs are
    `call_<name>_<number of input messages>`.
    """
    question = latest_user_text(messages)
    said = f"This is the offline demo model. You said: {quoted(question)}"
    if messages and isinstance(messages[-1], ToolMessage):
        return _answer_from_results(messages)
    names = [tool["function"]["name"] for tool in tools]
    if not tools or tool_choice == "none":
        offered = ", ".join(f"`{name}`" for name in names) or "no functions"
        return (
            f"{said} I was offered {offered} but may not call any, so I answer "
            "without them."
        )
    if isinstance(tool_choice, str) and tool_choice in names:
        chosen = [tools[names.index(tool_choice)]]
    else:
        chosen = matching_functions(question, tools)
        if not chosen and tool_choice in ("required", "any", True):
            chosen = tools[:1]
    if not chosen:
        offered = ", ".join(f"`{name}`" for name in names)
        return (
            f"{said} None of your functions ({offered}) fits that question, so I "
            "answer without calling one. Try asking what time it is in Tokyo, "
            "or to roll two dice."
        )
    return AIMessage(
        content="",
        tool_calls=[
            {
                "name": tool["function"]["name"],
                "args": function_arguments(
                    tool["function"].get("parameters"), question
                ),
                "id": f"call_{tool['function']['name']}_{len(messages)}",
            }
            for tool in chosen
        ],
    )
