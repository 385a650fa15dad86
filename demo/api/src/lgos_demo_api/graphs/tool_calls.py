"""Tool calls in the demo graphs: their IDs, the client's functions, the limits.

- `call_id` makes the IDs of the tool calls the demo graphs and their offline
  scripts create themselves. LGOS needs an ID on every public call (it
  becomes the `call_id` of a `function_call`, `web_search_call` or
  `custom_tool_call` item, and a client's result must quote it), and the IDs
  are derived from what the call is about, so a replayed offline run yields
  the same IDs.
- `function_tools` turns the client's functions (`GraphRequest.tools`) into
  the tool dicts `bind_tools` takes; `ask_with_functions` asks the model with
  them bound, honouring the request's `tool_choice` and
  `parallel_tool_calls`.
- `limit_tool_calls` and `with_tool_calls` enforce, on the model's reply,
  what the request allowed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolCall
from langchain_core.runnables import Runnable

from langgraph_openai_serve import GraphRequest

__all__ = [
    "ask_with_functions",
    "call_id",
    "function_tools",
    "limit_tool_calls",
    "with_tool_calls",
]

_EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def call_id(
    *parts: object, prefix: str = "call_", digits: int = 24, sep: str | None = None
) -> str:
    """Return a deterministic tool-call ID for what a call is about.

    The ID is `prefix` followed by the first `digits` hex digits of the
    SHA-256 of the parts: of their `repr` as a tuple, or, with `sep`, of
    their strings joined by it. The same parts always give the same ID.

    Args:
        *parts: What identifies the call, e.g. the question, the research
            round and the query.
        prefix: How the ID starts (`call_display_` for `display_file`
            calls).
        digits: How many hex digits follow the prefix.
        sep: Join the parts' strings with this instead of hashing their
            `repr` (the `server-tools` script's IDs are made that way).

    Returns:
        An ID such as `call_3f2a...`.

    """
    key = repr(parts) if sep is None else sep.join(str(part) for part in parts)
    return prefix + hashlib.sha256(key.encode()).hexdigest()[:digits]


def function_tools(request: GraphRequest) -> tuple[dict[str, Any], ...]:
    """Return the client's functions as OpenAI (Chat Completions format) tools.

    Args:
        request: The normalized request; its `tools` are the client's
            functions.

    Returns:
        One `{"type": "function", "function": {...}}` dict per function,
        ready for `bind_tools`; a function without parameters gets an empty
        object schema.

    """
    tools = []
    for tool in request.tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description or "",
            "parameters": dict(tool.parameters or _EMPTY_PARAMETERS),
        }
        if tool.strict is not None:
            function["strict"] = tool.strict
        tools.append({"type": "function", "function": function})
    return tuple(tools)


def with_tool_calls(reply: AIMessage, calls: Sequence[ToolCall]) -> AIMessage:
    """Return the reply with only `calls`, or the reply itself if they are its own.

    Args:
        reply: The model's reply.
        calls: The tool calls to keep (a subset of `reply.tool_calls`).

    Returns:
        `reply` when `calls` equals its tool calls; else a copy with those
        calls and no invalid ones.

    """
    if list(calls) == reply.tool_calls:
        return reply
    return reply.model_copy(
        update={"tool_calls": list(calls), "invalid_tool_calls": []}
    )


def limit_tool_calls(
    reply: AIMessage,
    *,
    tool_choice: str | None,
    has_tools: bool,
    parallel_tool_calls: bool | None,
) -> AIMessage:
    """Enforce the request's tool choices on the model's reply.

    Args:
        reply: The model's reply.
        tool_choice: The request's `tool_choice`; `"none"` drops every call.
        has_tools: Whether the client offered any function; without one,
            every call is dropped.
        parallel_tool_calls: `False` keeps only the first call.

    Returns:
        The reply with the calls the request allows (see `with_tool_calls`).

    """
    calls = list(reply.tool_calls)
    if tool_choice == "none" or not has_tools:
        calls = []
    elif parallel_tool_calls is False:
        calls = calls[:1]
    return with_tool_calls(reply, calls)


async def ask_with_functions(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    tools: Sequence[dict[str, Any]],
    tool_choice: str | None,
    parallel_tool_calls: bool | None,
) -> AIMessage:
    """Ask the model with the client's functions bound, as the request chose.

    The functions are bound with `tool_choice` and (when not None)
    `parallel_tool_calls`; without functions the model is asked unbound.
    The reply keeps only the calls the request allows (`limit_tool_calls`).

    Args:
        model: The chat model.
        messages: The model input.
        tools: The client's functions (see `function_tools`).
        tool_choice: `None`, `"auto"`, `"none"`, `"required"` or the name of
            the one function to call.
        parallel_tool_calls: The request's `parallel_tool_calls`.

    Returns:
        The model's reply.

    """
    bound: Runnable[LanguageModelInput, BaseMessage] = model
    if tools:
        options: dict[str, Any] = {}
        if parallel_tool_calls is not None:
            options["parallel_tool_calls"] = parallel_tool_calls
        bound = model.bind_tools(list(tools), tool_choice=tool_choice, **options)
    reply = await bound.ainvoke(list(messages))
    assert isinstance(reply, AIMessage)
    return limit_tool_calls(
        reply,
        tool_choice=tool_choice,
        has_tools=bool(tools),
        parallel_tool_calls=parallel_tool_calls,
    )
