"""LangChain message helpers shared by both decoders and encoders."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from langgraph_openai_serve.errors import InvalidRequestError

__all__ = [
    "check_tool_exchanges",
    "file_block",
    "has_file_blocks",
    "parse_arguments",
    "tool_call_arguments",
]


def file_block(file_id: str) -> dict[str, Any]:
    """Return LangChain's standard file content block for a Files API ID.

    Responses ``input_file.file_id`` and Chat ``file.file_id`` parts both
    become ``{"type": "file", "file_id": ...}``; the graph decides whether to
    download, parse or forward the file.
    """
    return {"type": "file", "file_id": file_id}


def has_file_blocks(messages: Iterable[BaseMessage]) -> bool:
    """Return whether any message carries a file content block."""
    return any(
        isinstance(block, dict) and block.get("type") == "file"
        for message in messages
        if not isinstance(message.content, str)
        for block in message.content
    )


def parse_arguments(arguments: str, *, param: str) -> dict[str, Any]:
    """Parse a replayed function call's JSON ``arguments`` string.

    Raises:
        InvalidRequestError: The string is not a JSON object (400, ``param``).

    """
    try:
        value = json.loads(arguments)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise InvalidRequestError(
            "Function call arguments must be a JSON object string.", param=param
        )
    return value


def tool_call_arguments(args: dict[str, Any]) -> str:
    """Serialize LangChain tool-call ``args`` as OpenAI's arguments string."""
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


def check_tool_exchanges(
    messages: Iterable[BaseMessage],
    *,
    param: str,
    orphan_hint: Callable[[str], str] | None = None,
) -> None:
    """Require exactly one result for every replayed tool call, and vice versa.

    Rule source: OpenAI's function-calling contract — each replayed call needs
    one matching output of the same type; LGOS checks it before the graph runs.
    ``orphan_hint(call_id)`` adds to the message of an output that answers no
    call (the Responses API says how to answer a paused run's question).

    Raises:
        InvalidRequestError: A call without a result, a duplicate result, or
            a result that answers no earlier call (400, ``param``).

    """
    pending: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                call_id = call.get("id") or ""
                if call_id in pending or call_id in answered:
                    raise InvalidRequestError(
                        f"The call_id '{call_id}' is used by more than one call.",
                        param=param,
                    )
                pending.add(call_id)
        elif isinstance(message, ToolMessage):
            call_id = message.tool_call_id
            if call_id in answered:
                raise InvalidRequestError(
                    f"The call '{call_id}' has more than one output.", param=param
                )
            if call_id not in pending:
                hint = orphan_hint(call_id) if orphan_hint else ""
                raise InvalidRequestError(
                    f"The output for '{call_id}' answers no earlier call.{hint}",
                    param=param,
                )
            pending.discard(call_id)
            answered.add(call_id)
    if pending:
        missing = ", ".join(sorted(pending))
        raise InvalidRequestError(
            f"No output was supplied for the call(s): {missing}.", param=param
        )
