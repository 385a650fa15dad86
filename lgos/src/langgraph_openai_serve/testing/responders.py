"""Responders: the functions that decide what :class:`OfflineChatModel` answers.

A responder is called once per model call with the exact model input and
returns the answer; a structured responder fills the arguments of a
``with_structured_output`` call. This module holds the two protocols, the
defaults (which answer deterministically from the input), and
:class:`RecordingResponder`, which keeps every call for assertions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

__all__ = [
    "DEFAULT_INTRO",
    "EchoResponder",
    "RecordedCall",
    "RecordingResponder",
    "Responder",
    "StructuredResponder",
    "call_options",
    "default_responder",
    "default_structured_responder",
]

Responder = Callable[[list[BaseMessage], list[dict[str, Any]], Any], AIMessage | str]
"""``(messages, tools, tool_choice) -> AIMessage | str``.

``messages`` is the exact model input, ``tools`` the OpenAI-format tool dicts
bound with ``bind_tools`` (empty when none; a custom free-form tool keeps its
``{"type": "custom", "name": ...}`` dict), ``tool_choice`` whatever was passed
to ``bind_tools`` (``None``, ``"auto"``, ``"none"``, ``"required"``,
``"any"``, a tool name, ``True``, or an OpenAI
``{"type": "function", "function": {"name": ...}}`` dict). A string answer is
plain text; an ``AIMessage`` may carry tool calls, content blocks (a refusal:
``[{"type": "refusal", "refusal": "..."}]``), ``response_metadata`` (such as
``finish_reason``) and ``usage_metadata``, which the model keeps.
"""

StructuredResponder = Callable[[list[BaseMessage], Any], dict[str, Any] | AIMessage]
"""``(messages, schema) -> dict | AIMessage``: the arguments of a structured output.

``schema`` is exactly what was passed to ``with_structured_output`` (a
pydantic class, a ``TypedDict``, or a JSON schema / OpenAI tool dict); the
returned dict becomes the arguments of one call to that schema's tool.
Returning an ``AIMessage`` instead answers with that message and no call, for
example a refusal, which ``with_structured_output(..., include_raw=True)``
reports as ``parsed=None``.
"""

_NO_OPTIONS: Mapping[str, Any] = MappingProxyType({})
_CALL_OPTIONS: ContextVar[Mapping[str, Any]] = ContextVar(
    "lgos_offline_call_options", default=_NO_OPTIONS
)


def call_options() -> Mapping[str, Any]:
    """Return the options of the model call a responder is answering.

    Inside a :data:`Responder` called by :class:`OfflineChatModel`: the
    keyword arguments the call received besides its tools, tool choice and
    structured-output schema — what a graph bound or passed, such as
    ``model.bind(temperature=0.2, max_tokens=64)`` or ``stop`` — as a
    read-only mapping. Empty outside a call, and for a call without options.
    :class:`RecordingResponder` keeps them in :attr:`RecordedCall.options`.
    """
    return _CALL_OPTIONS.get()


@contextmanager
def _answering_with(options: Mapping[str, Any]) -> Iterator[None]:
    """Make ``options`` the :func:`call_options` of the responder call inside."""
    token = _CALL_OPTIONS.set(
        MappingProxyType(dict(options)) if options else _NO_OPTIONS
    )
    try:
        yield
    finally:
        _CALL_OPTIONS.reset(token)


DEFAULT_INTRO = "This is the offline model."
"""The first sentence of :func:`default_responder`'s text answers."""

_QUOTE_LIMIT = 200
"""Longest quoted user message / instruction line, in characters."""


def _shorten(text: str) -> str:
    """Collapse whitespace and cut to ``_QUOTE_LIMIT`` characters (adds "...")."""
    flat = " ".join(text.split())
    if len(flat) <= _QUOTE_LIMIT:
        return flat
    return flat[: _QUOTE_LIMIT - 3].rstrip() + "..."


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line
    return ""


def _last_user_text(messages: Sequence[BaseMessage]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return str(message.text)
    return None


def _tool_name(tool: dict[str, Any]) -> str:
    """Name of an OpenAI function tool or a custom (free-form) tool dict."""
    return tool["function"]["name"] if "function" in tool else tool.get("name", "")


def _forced_tool(tools: list[dict[str, Any]], tool_choice: Any) -> dict | None:
    """Return the tool a ``tool_choice`` forces the model to call, if any."""
    if not tools or tool_choice in (None, False, "auto", "none"):
        return None
    if tool_choice in (True, "required", "any"):
        return tools[0]
    if isinstance(tool_choice, dict):
        tool_choice = tool_choice.get("function", {}).get("name") or tool_choice.get(
            "name"
        )
    for tool in tools:
        if _tool_name(tool) == tool_choice:
            return tool
    return None


def _example_value(schema: dict[str, Any], text: str) -> Any:
    """Build a deterministic value matching a (dereferenced) JSON schema.

    Objects get every property that has a default (its default) plus every
    required property (generated); strings become ``text`` (cut to any
    ``maxLength``), integers and numbers the word count of ``text`` (raised to
    any ``minimum``), booleans ``True``, arrays a single generated item,
    enums/consts their first value.
    """
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if o.get("type") != "null"]
        if options:
            return _example_value(options[0], text)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or "properties" in schema:
        required = set(schema.get("required", []))
        value = {}
        for name, prop in schema.get("properties", {}).items():
            if "default" in prop:
                value[name] = prop["default"]
            elif name in required:
                value[name] = _example_value(prop, text)
        return value
    if kind == "array":
        return [_example_value(schema.get("items", {}), text)]
    if kind in ("integer", "number"):
        number = max(len(text.split()), schema.get("minimum", 0))
        return number if kind == "integer" else float(number)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    max_length = schema.get("maxLength")
    return text[:max_length] if max_length is not None else text


def _tool_call_id(messages: Sequence[BaseMessage]) -> str:
    """Return the id of a generated call: ``call_offline_<input message count>``."""
    return f"call_offline_{len(messages)}"


@dataclass(frozen=True)
class EchoResponder:
    """A :data:`Responder` that answers deterministically, echoing its input.

    When ``tool_choice`` forces a tool call (``"required"``, ``"any"``,
    ``True``, a tool name or an OpenAI tool-choice dict) the answer is a
    single call to that tool (the first bound tool for ``"required"``,
    ``"any"`` and ``True``), with id ``call_offline_<number of input
    messages>``. A function tool's arguments are filled from the last user
    message as :func:`default_structured_responder` fills a schema; a custom
    (free-form) tool gets ``{"__arg1": <last user message>}``. A choice naming
    no bound tool forces nothing.

    Otherwise the answer is one line of text made of four sentences::

        <intro> You said: "<last user message>" Following instructions:
        "<system line 1>", "<system line 2>" I saw <n> conversation message<s>.

    - ``<last user message>`` is the text of the last ``HumanMessage`` with
      whitespace collapsed, cut to 200 characters (ending in ``...`` when
      cut). Without any user message the sentence reads ``You said nothing.``
    - Each ``<system line>`` is the first non-blank line of one
      ``SystemMessage``, in order, shortened the same way. Without system
      messages the sentence reads ``Following instructions: none.``
    - ``<n>`` counts the non-system messages; the noun is singular for 1.

    So a test (or a person looking at a UI) can see that a graph built the
    prompt it meant to.

    Attributes:
        intro: The first sentence of every text answer; :data:`DEFAULT_INTRO`
            unless given.

    """

    intro: str = DEFAULT_INTRO

    def __call__(
        self,
        messages: list[BaseMessage],
        tools: list[dict[str, Any]],
        tool_choice: Any,
    ) -> AIMessage | str:
        """Answer one model call.

        Args:
            messages: The model input.
            tools: OpenAI-format tool dicts bound to the model.
            tool_choice: The bound tool choice (see :data:`Responder`).

        Returns:
            The answer text, or an ``AIMessage`` carrying one tool call.

        """
        last_user = _last_user_text(messages)
        forced = _forced_tool(tools, tool_choice)
        if forced is not None:
            if "function" in forced:
                parameters = forced["function"].get("parameters", {})
                value = _example_value(parameters, last_user or "")
                args = value if isinstance(value, dict) else {}
            else:
                # A custom tool takes free-form text: the last user message.
                args = {"__arg1": last_user or ""}
            call = {
                "name": _tool_name(forced),
                "args": args,
                "id": _tool_call_id(messages),
            }
            return AIMessage(content="", tool_calls=[call])

        if last_user is None:
            said = "You said nothing."
        else:
            said = f'You said: "{_shorten(last_user)}"'
        instructions = [
            f'"{_shorten(_first_line(str(m.text)))}"'
            for m in messages
            if isinstance(m, SystemMessage)
        ]
        following = (
            "Following instructions: " + ", ".join(instructions)
            if instructions
            else "Following instructions: none."
        )
        seen = sum(not isinstance(m, SystemMessage) for m in messages)
        noun = "message" if seen == 1 else "messages"
        return f"{self.intro} {said} {following} I saw {seen} conversation {noun}."


_DEFAULT_ECHO = EchoResponder()


def default_responder(
    messages: list[BaseMessage],
    tools: list[dict[str, Any]],
    tool_choice: Any,
) -> AIMessage | str:
    """Answer like ``EchoResponder()``: text opening with :data:`DEFAULT_INTRO`.

    For example, ``[SystemMessage("Be brief."), HumanMessage("What is a
    graph?")]`` gets::

        This is the offline model. You said: "What is a graph?" Following
        instructions: "Be brief." I saw 1 conversation message.

    (one line), and a forced tool choice gets one generated call; see
    :class:`EchoResponder` for the exact rules.

    Args:
        messages: The model input.
        tools: OpenAI-format tool dicts bound to the model.
        tool_choice: The bound tool choice (see :data:`Responder`).

    Returns:
        The answer text, or an ``AIMessage`` carrying one tool call.

    """
    return _DEFAULT_ECHO(messages, tools, tool_choice)


@dataclass(frozen=True)
class RecordedCall:
    """One model call seen by a :class:`RecordingResponder`.

    Attributes:
        messages: The model input.
        tools: The OpenAI-format tool dicts bound to the model.
        tool_choice: The bound tool choice.
        options: The call's other options (:func:`call_options`), such as
            ``{"temperature": 0.2, "max_tokens": 64}``; empty when it had none.

    """

    messages: list[BaseMessage]
    tools: list[dict[str, Any]]
    tool_choice: Any
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class RecordingResponder:
    """A :data:`Responder` that records every call, then delegates to another.

    Use it to assert on exactly what a graph sent to the model::

        recorder = RecordingResponder()
        graph = build_my_graph(OfflineChatModel(responder=recorder))
        await graph.ainvoke({"messages": [HumanMessage("hi")]})
        assert recorder.calls[0].messages[-1].content == "hi"

    Attributes:
        inner: The responder that produces the answers;
            :func:`default_responder` unless given.
        calls: One :class:`RecordedCall` per model call, oldest first.
            Structured-output calls go to the structured responder and are
            not recorded.

    """

    inner: Responder = default_responder
    calls: list[RecordedCall] = field(default_factory=list)

    def __call__(
        self,
        messages: list[BaseMessage],
        tools: list[dict[str, Any]],
        tool_choice: Any,
    ) -> AIMessage | str:
        """Record the call (copies of the lists), then return ``inner``'s answer."""
        self.calls.append(
            RecordedCall(list(messages), list(tools), tool_choice, call_options())
        )
        return self.inner(messages, tools, tool_choice)


def default_structured_responder(
    messages: list[BaseMessage], schema: Any
) -> dict[str, Any]:
    """Fill a structured-output schema deterministically from the last user message.

    The schema is turned into JSON schema with LangChain's
    ``convert_to_openai_tool``. Every field with a default gets its default;
    every other required field is generated: strings are the last user
    message's text (cut to any ``maxLength``; empty without a user message),
    integers and numbers its word count (raised to any ``minimum``), booleans
    ``True``, enums and literals their first value, lists one generated item,
    unions their first non-null option, nested objects recursively the same
    way. Optional fields without a default are omitted.

    Args:
        messages: The model input.
        schema: The schema given to ``with_structured_output``.

    Returns:
        The field values as a JSON-compatible dict (``{}`` for a schema that
        is not an object).

    Raises:
        ValueError: ``convert_to_openai_tool`` cannot convert ``schema``.

    """
    parameters = convert_to_openai_tool(schema)["function"].get("parameters", {})
    value = _example_value(parameters, _last_user_text(messages) or "")
    return value if isinstance(value, dict) else {}
