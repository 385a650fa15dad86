"""Functions a chat UI runs when a graph calls them (client function calling).

A UI offers these functions as flat Responses function ``tools`` (OpenAI's
function calling guide: ``{"type": "function", "name", "description",
"parameters", "strict"}``) to models whose ``lgos.client_tools`` lists them,
runs the calls a response returns, and sends the results back as
``function_call_output`` items. :func:`function_tool` builds every such tool
the UIs offer (these, ``display_file``, MCP tools). The demo's functions are
pure and local: no network, no file system, nothing but the clock and a random
number generator, both injectable for tests.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "LOCAL_FUNCTIONS",
    "ClientFunction",
    "FunctionCall",
    "LocalFunction",
    "completed_calls",
    "error_output",
    "execute_call",
    "function_tool",
    "get_current_time",
    "offered_functions",
    "roll_dice",
]

Clock = Callable[[], datetime]


def function_tool(
    name: str, description: str, parameters: Mapping[str, Any], *, strict: bool
) -> dict[str, Any]:
    """Return a flat Responses function tool (OpenAI's ``FunctionTool``).

    Args:
        name: The name the model calls (``^[a-zA-Z0-9_-]{1,64}$``).
        description: What the function does, for the model.
        parameters: The JSON Schema of its arguments (copied, not shared).
        strict: Whether the model must follow the schema exactly (OpenAI's
            strict mode needs ``additionalProperties: false`` and every
            property required).

    """
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": dict(parameters),
        "strict": strict,
    }


def completed_calls(
    output: Iterable[Mapping[str, Any]], names: Container[str]
) -> list[dict[str, Any]]:
    """Return the completed ``function_call`` items among ``output`` named in ``names``.

    A call whose ``status`` is ``incomplete`` (the model was cut off while
    writing its arguments) is not run; a call without a ``status`` counts as
    completed. The items come back as copies, in their order.
    """
    return [
        dict(item)
        for item in output
        if item.get("type") == "function_call"
        and str(item.get("name")) in names
        and item.get("status", "completed") == "completed"
    ]


def error_output(message: str) -> str:
    """Return the ``function_call_output`` of a failed call: ``{"error": ...}``."""
    return json.dumps({"error": message}, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """One ``function_call`` output item of a response.

    Attributes:
        call_id: The ID its ``function_call_output`` must repeat.
        name: The function to run.
        arguments: The arguments as a JSON object string.
        complete: False when the item's ``status`` is ``incomplete`` (the
            model was cut off while writing the arguments).

    """

    call_id: str
    name: str
    arguments: str
    complete: bool = True

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> FunctionCall:
        """Read a ``function_call`` item (a JSON-ready dict)."""
        return cls(
            call_id=str(item.get("call_id", "")),
            name=str(item.get("name", "")),
            arguments=str(item.get("arguments", "")),
            complete=item.get("status") != "incomplete",
        )

    def parsed_arguments(self) -> dict[str, Any]:
        """Decode ``arguments``.

        Raises:
            ValueError: The arguments are not a JSON object.

        """
        value = json.loads(self.arguments or "{}")
        if not isinstance(value, dict):
            raise ValueError("the arguments are not a JSON object")
        return value


@runtime_checkable
class ClientFunction(Protocol):
    """A function the UI offers a model and runs when the graph calls it.

    :class:`LocalFunction` runs in the UI process; an MCP tool (each UI has
    its own MCP client) runs on an MCP server. A UI's ledger and turn treat
    both alike.
    """

    @property
    def name(self) -> str:
        """The function name the model calls (OpenAI's ``^[a-zA-Z0-9_-]{1,64}$``)."""
        ...

    def tool(self) -> dict[str, Any]:
        """Return the flat Responses function tool declaring this function."""
        ...

    async def execute(self, call: FunctionCall) -> tuple[str, bool]:
        """Run ``call``; return ``(output, ok)`` and never raise for a bad call.

        ``output`` is the ``function_call_output`` string: the result, or
        ``{"error": "..."}`` with ``ok`` False.
        """
        ...


@dataclass(frozen=True, slots=True)
class LocalFunction:
    """A function the UI offers and runs.

    Attributes:
        name: The function name the model calls.
        description: What it does, for the model.
        parameters: JSON Schema of its arguments.
        run: Takes the decoded arguments and returns a JSON-ready result;
            raises ``ValueError`` (or ``TypeError``) for invalid arguments.

    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    run: Callable[..., Any] = field(repr=False)
    strict: bool = False

    def tool(self) -> dict[str, Any]:
        """Return the flat Responses function tool declaring this function."""
        return function_tool(
            self.name, self.description, self.parameters, strict=self.strict
        )

    async def execute(self, call: FunctionCall) -> tuple[str, bool]:
        """Run ``call`` here, in the UI process (see :func:`execute_call`)."""
        return execute_call(call, {self.name: self})


def _now() -> datetime:
    return datetime.now(UTC)


def get_current_time(timezone: str = "UTC", *, clock: Clock = _now) -> dict[str, str]:
    """Tell the current date and time in an IANA time zone.

    Args:
        timezone: An IANA zone name such as ``Europe/Paris`` (or ``UTC``).
        clock: Returns the current time, timezone-aware (tests pass a fixed
            one).

    Returns:
        ``timezone``, ``date`` (ISO), ``time`` (``HH:MM``), ``weekday`` and
        ``utc_offset`` (``+09:00``).

    Raises:
        ValueError: The zone name is not a string or not a known zone.

    """
    if not isinstance(timezone, str) or not timezone.strip():
        raise ValueError("timezone must be an IANA time zone name")
    try:
        zone = ZoneInfo(timezone.strip())
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {timezone!r}") from exc
    now = clock().astimezone(zone)
    offset = now.strftime("%z")
    return {
        "timezone": timezone.strip(),
        "date": now.date().isoformat(),
        "time": now.strftime("%H:%M"),
        "weekday": now.strftime("%A"),
        "utc_offset": f"{offset[:3]}:{offset[3:]}" if offset else "+00:00",
    }


def _bounded_int(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}")
    return value


def roll_dice(
    sides: int = 6, count: int = 1, *, rng: random.Random | None = None
) -> dict[str, Any]:
    """Roll ``count`` dice with ``sides`` faces each.

    Args:
        sides: Faces per die, 2 to 100.
        count: How many dice, 1 to 10.
        rng: The random number generator (tests pass a seeded one).

    Returns:
        ``rolls`` (each die, in order) and their ``total``.

    Raises:
        ValueError: An argument is not an integer in range.

    """
    sides = _bounded_int("sides", sides, 2, 100)
    count = _bounded_int("count", count, 1, 10)
    generator = rng or random.Random()
    rolls = [generator.randint(1, sides) for _ in range(count)]
    return {"rolls": rolls, "total": sum(rolls)}


LOCAL_FUNCTIONS: Mapping[str, LocalFunction] = {
    function.name: function
    for function in (
        LocalFunction(
            name="get_current_time",
            description=(
                "Get the current date and time in a time zone. Use it whenever "
                "the user asks for the time or date somewhere."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "timezone": {
                        "type": "string",
                        "description": (
                            "IANA time zone name, e.g. Europe/Paris, "
                            "America/New_York or UTC."
                        ),
                    }
                },
                "required": ["timezone"],
                "additionalProperties": False,
            },
            run=get_current_time,
        ),
        LocalFunction(
            name="roll_dice",
            description="Roll one or more dice and return each roll and the total.",
            parameters={
                "type": "object",
                "properties": {
                    "sides": {
                        "type": "integer",
                        "minimum": 2,
                        "maximum": 100,
                        "default": 6,
                        "description": "Faces per die (6 for an ordinary die).",
                    },
                    "count": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 10,
                        "default": 1,
                        "description": "How many dice to roll.",
                    },
                },
                "required": ["sides", "count"],
                "additionalProperties": False,
            },
            run=roll_dice,
        ),
    )
}
"""Every function the UI can run, by name."""


def offered_functions(
    client_tools: Iterable[str],
    available: Mapping[str, LocalFunction] = LOCAL_FUNCTIONS,
) -> tuple[LocalFunction, ...]:
    """Select the functions to offer a model.

    Args:
        client_tools: The model's ``lgos.client_tools`` (function names).
        available: The functions this UI can run.

    Returns:
        The available functions the model lists, in the model's order; a
        model that lists none is offered none.

    """
    seen: set[str] = set()
    offered = []
    for name in client_tools:
        if name in available and name not in seen:
            seen.add(name)
            offered.append(available[name])
    return tuple(offered)


def execute_call(
    call: FunctionCall, functions: Mapping[str, LocalFunction]
) -> tuple[str, bool]:
    """Run one call and encode its result for ``function_call_output``.

    Never raises for a bad call: an unknown function, arguments that are not
    a JSON object, arguments the schema does not declare, or arguments the
    function rejects all produce an error result the model can read.

    Args:
        call: The call from the response.
        functions: The functions the UI offered, by name.

    Returns:
        ``(output, ok)``: the compact JSON string to send back, and whether
        the function ran successfully (else ``output`` is
        ``{"error": "..."}``).

    """
    function = functions.get(call.name)
    if function is None:
        return error_output(f"unknown function {call.name!r}"), False
    try:
        arguments = call.parsed_arguments()
        declared = function.parameters.get("properties") or {}
        unexpected = sorted(set(arguments) - set(declared))
        if unexpected:
            raise ValueError(f"unexpected argument(s): {', '.join(unexpected)}")
        result = function.run(**arguments)
    except (ValueError, TypeError) as exc:
        return error_output(f"{call.name} failed: {exc}"), False
    return json.dumps(result, ensure_ascii=False, separators=(",", ":")), True
