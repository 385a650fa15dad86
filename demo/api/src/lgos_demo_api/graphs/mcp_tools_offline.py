"""The offline model's script for the `mcp` graph: one MCP tool call per answer.

`mcp_responder` plans the question with `plan_tools` (which offered tool
each clause asks for, by the tools' names and descriptions) and, on every
request, looks at the calls already answered since the latest user message:

- fewer than planned: it calls the next planned tool, one call per answer,
  so a later call can use an earlier result ("save it as a note" saves the
  conversion's `text`; in a new turn, "it" is the last result of an earlier
  one); a call whose required arguments the question does not give is not
  made: the answer says what is missing;
- all answered: it answers from the results, naming each tool and quoting
  its result's `text`;
- a result that is an error (`{"error": ...}`, an MCP `isError` result, or
  text starting with "Error") ends the plan: it says which tool failed and
  why, and calls nothing more;
- nothing planned: it says which tools are attached and what they do (or
  that the client attached none).

`tool_choice="none"` gets an answer without calls; a named `tool_choice`
gets one call of that tool for the whole question; `"required"` calls the
best-fitting tool even when no clause reached the threshold. Call IDs are
derived from the conversation (`call_id`), so a replayed run repeats them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from lgos_demo_api.graphs.mcp_tools_arguments import tool_arguments
from lgos_demo_api.graphs.mcp_tools_plan import (
    PlanStep,
    best_tool,
    plan_tools,
    tool_name,
)
from lgos_demo_api.graphs.tool_calls import call_id
from lgos_demo_api.graphs.transcript import latest_typed_text, this_turn
from lgos_demo_api.offline import DEMO_INTRO, end_sentence, quoted

__all__ = ["ToolOutcome", "mcp_responder", "read_tool_output"]

EXAMPLE_PROMPT = "convert 5 miles to km and save it as a note"
"""The question the `mcp` graph's description suggests."""

_MCP_ERROR_PREFIX = re.compile(r"^Error executing tool [^:]+:\s*")
_CLOSING = "(The offline demo model answers from the tool results as they came back.)"


class ToolOutcome:
    """One answered tool call of this turn.

    Attributes:
        name: The tool's name as called.
        args: The call's arguments.
        text: The result's summary (its `text` field, else the output).
        error: The error message when the result is an error, else None.

    """

    __slots__ = ("args", "error", "name", "text")

    def __init__(self, name: str, args: dict[str, Any], output: str) -> None:
        self.name, self.args = name, args
        self.text, self.error = read_tool_output(output)


def _texts(content: Any) -> str:
    parts = [
        str(block.get("text", ""))
        for block in content
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    return "\n".join(part for part in parts if part)


def read_tool_output(output: str) -> tuple[str, str | None]:
    """Read a tool result as the client sent it back.

    Understands the JSON of an MCP tool's structured result (its `text`
    field is the summary), a whole MCP `CallToolResult` (`structuredContent`,
    `content`, `isError`), `{"error": ...}`, and plain text (an error when
    it starts with "Error", as FastMCP's error results do).

    Args:
        output: The `function_call_output` (or Chat `tool` message) text.

    Returns:
        `(summary, error)`: `error` is the error message, or None.

    """
    try:
        value = json.loads(output)
    except ValueError:
        value = output
    if isinstance(value, dict):
        if value.get("error"):
            error = value["error"]
            if isinstance(error, dict):
                error = error.get("message") or json.dumps(error)
            return str(error), _MCP_ERROR_PREFIX.sub("", str(error)) or str(error)
        if value.get("isError") or value.get("is_error"):
            message = _texts(value.get("content") or ()) or json.dumps(value)
            return message, _MCP_ERROR_PREFIX.sub("", message) or message
        if isinstance(value.get("structuredContent"), dict):
            return read_tool_output(json.dumps(value["structuredContent"]))
        if isinstance(value.get("text"), str):
            return value["text"], None
        if isinstance(value.get("content"), list) and (
            texts := _texts(value["content"])
        ):
            return read_tool_output(texts)
        return json.dumps(value, ensure_ascii=False), None
    if isinstance(value, list) and (texts := _texts(value)):
        return read_tool_output(texts)
    text = output.strip() if isinstance(value, str) else json.dumps(value)
    if not text.startswith("Error"):
        return text, None
    return text, _MCP_ERROR_PREFIX.sub("", text) or text


def answered_calls(messages: Sequence[BaseMessage]) -> list[ToolOutcome]:
    """Return the tool calls made since the latest user message that have results."""
    turn = this_turn(messages)
    results = {m.tool_call_id: str(m.text) for m in turn if isinstance(m, ToolMessage)}
    return [
        ToolOutcome(call["name"], dict(call["args"]), results[call["id"]])
        for message in turn
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["id"] in results
    ]


def _earlier_result(messages: Sequence[BaseMessage]) -> str | None:
    """Return the summary of the latest successful tool result (any turn)."""
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            text, error = read_tool_output(str(message.text))
            if error is None:
                return text
    return None


def _missing(step: PlanStep, args: dict[str, Any]) -> list[tuple[str, str]]:
    """Return the required parameters `args` lacks, with their descriptions."""
    schema = step.tool.get("function", step.tool).get("parameters") or {}
    properties = schema.get("properties") or {}
    return [
        (name, str((properties.get(name) or {}).get("description") or ""))
        for name in schema.get("required") or ()
        if name not in args
    ]


def _ask_for(
    step: PlanStep, missing: Sequence[tuple[str, str]], done: Sequence[ToolOutcome]
) -> str:
    """Answer that the question does not give what the next call needs."""
    needs = "; ".join(
        f"`{name}`" + (f" ({end_sentence(about).rstrip('.')})" if about else "")
        for name, about in missing
    )
    parts = [
        f"To call `{step.name}` I need {needs}, and your message does not say. "
        f"Try: {EXAMPLE_PROMPT}."
    ]
    if done:
        parts += ["Before that:", _answer_lines(done), _CLOSING]
    return "\n\n".join(parts)


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    head = flat.split(". ", 1)[0]
    return end_sentence(head) if head else "(no description)"


def _describe_tools(tools: Sequence[dict[str, Any]]) -> str:
    return "\n".join(
        f"- `{tool_name(tool)}`: "
        f"{_first_sentence(str(tool.get('function', tool).get('description') or ''))}"
        for tool in tools
    )


def _arguments(args: dict[str, Any]) -> str:
    return ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in args.items()
    )


def _answer_lines(done: Sequence[ToolOutcome]) -> str:
    return "\n".join(
        f"- `{outcome.name}({_arguments(outcome.args)})`: {outcome.text}"
        for outcome in done
        if outcome.error is None
    )


def _answer(done: Sequence[ToolOutcome]) -> str:
    lines = [_answer_lines(done)] if any(o.error is None for o in done) else []
    failed = next((outcome for outcome in done if outcome.error is not None), None)
    if failed is None:
        head = "I used the MCP tools your client attached:"
        return "\n\n".join([head, "\n".join(lines), _CLOSING])
    used = ["Before that:", "\n".join(lines)] if lines else []
    return "\n\n".join(
        [
            f"The `{failed.name}` tool failed: {end_sentence(str(failed.error))} "
            "I stopped there and called no further tools.",
            *used,
            _CLOSING,
        ]
    )


def _without_tools(said: str, tools: Sequence[dict[str, Any]], choice: Any) -> str:
    if not tools:
        return (
            f"{said} Your client attached no MCP tools, so I can only answer in "
            "text. The demo UI attaches the tools of its MCP server "
            "(`just demo --mcp`) when it can reach it: its notice above says "
            "whether it did."
        )
    names = ", ".join(f"`{tool_name(tool)}`" for tool in tools)
    if choice == "none":
        return (
            f"{said} I was offered the MCP tools {names} but may not call any "
            "(tool_choice is none), so I answer without them."
        )
    return (
        f"{said} None of the attached MCP tools fits that request. They can:\n\n"
        f"{_describe_tools(tools)}\n\nTry: {EXAMPLE_PROMPT}."
    )


def _named_choice(choice: Any) -> str | None:
    if isinstance(choice, dict):
        choice = choice.get("function", {}).get("name") or choice.get("name")
    if isinstance(choice, str) and choice not in ("auto", "none", "required", "any"):
        return choice
    return None


def _planned(
    question: str, tools: Sequence[dict[str, Any]], choice: Any
) -> list[PlanStep]:
    forced = _named_choice(choice)
    if forced is not None:
        tool = next((t for t in tools if tool_name(t) == forced), None)
        return [] if tool is None else [PlanStep(tool, question, frozenset())]
    plan = plan_tools(question, tools)
    if not plan and choice in ("required", "any", True) and tools:
        best = best_tool(question, tools, threshold=1)
        plan = [best or PlanStep(tools[0], question, frozenset())]
    return plan


def mcp_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Play the offline model for the `mcp` graph, deterministically.

    Args:
        messages: The model input (system prompt, conversation, tool calls
            and results).
        tools: The client's MCP tools as OpenAI (Chat Completions format)
            tool dicts.
        tool_choice: The bound tool choice: None, `"auto"`, `"none"`,
            `"required"` or a tool's name.

    Returns:
        An `AIMessage` with the next planned call, or the answer text (see
        the module docstring).

    """
    question = latest_typed_text(messages)
    said = f"{DEMO_INTRO} You said: {quoted(question)}"
    done = answered_calls(messages)
    if any(outcome.error is not None for outcome in done):
        return _answer(done)
    plan = [] if tool_choice == "none" else _planned(question, tools, tool_choice)
    if len(done) < len(plan):
        step = plan[len(done)]
        previous = done[-1].text if done else _earlier_result(messages)
        args = tool_arguments(step, previous)
        missing = _missing(step, args)
        if missing:
            return _ask_for(step, missing, done)
        return AIMessage(
            content="",
            tool_calls=[
                {
                    "name": step.name,
                    "args": args,
                    "id": call_id("mcp", len(messages), question, len(done), step.name),
                }
            ],
        )
    if done:
        return _answer(done)
    return _without_tools(said, tools, tool_choice)
