"""Responses ``input`` items → LangChain messages.

Messages keep what a graph's model may need of replayed output (item IDs,
``phase``, citations as annotations); tool calls and their outputs become
``AIMessage.tool_calls`` and ``ToolMessage`` pairs, checked for matching.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from langgraph_openai_serve.api.messages import (
    check_tool_exchanges,
    file_block,
    parse_arguments,
)
from langgraph_openai_serve.api.responses.interrupts import (
    INTERRUPT_FUNCTION_NAME,
    unmatched_answer_hint,
)
from langgraph_openai_serve.api.responses.responses_request import (
    CustomToolCallItem,
    CustomToolCallOutputItem,
    FunctionCallItem,
    FunctionCallOutputItem,
    InputFile,
    InputText,
    MessageItem,
    OutputText,
    Refusal,
    ResponseCreateRequest,
    WebSearchCallItem,
)
from langgraph_openai_serve.api.unvalidated_messages import (
    ai_message,
    human_message,
    system_message,
)
from langgraph_openai_serve.errors import InvalidRequestError

__all__ = ["input_messages"]


def _input_blocks(parts: list[Any]) -> list[str | dict[str, Any]]:
    return [
        file_block(part.file_id)
        if isinstance(part, InputFile)
        else {"type": "text", "text": part.text}
        for part in parts
    ]


def _assistant_content(item: MessageItem) -> str | list[str | dict[str, Any]]:
    """LangChain's shape for replayed output: blocks keep ID, phase, citations."""
    if isinstance(item.content, str):
        return item.content
    blocks: list[str | dict[str, Any]] = []
    for part in item.content:
        if isinstance(part, OutputText | InputText):
            block: dict[str, Any] = {"type": "text", "text": part.text}
            if isinstance(part, OutputText):
                block["annotations"] = [dict(a) for a in part.annotations]
        elif isinstance(part, Refusal):
            block = {"type": "refusal", "refusal": part.refusal}
        else:
            msg = "assistant messages carry no files"
            raise ValueError(msg)
        if item.id is not None:
            block["id"] = item.id
        if item.phase is not None:
            block["phase"] = item.phase
        blocks.append(block)
    return blocks


def _message(item: MessageItem, index: int) -> BaseMessage:
    if item.role == "assistant":
        if not isinstance(item.content, str):
            for position, part in enumerate(item.content):
                if isinstance(part, InputFile):
                    raise InvalidRequestError(
                        "An assistant message cannot carry input_file content.",
                        param=f"input[{index}].content[{position}]",
                    )
        # Only fields with values are passed: the same message, built faster.
        fields: dict[str, Any] = {}
        if item.id is not None:
            fields["id"] = item.id
        if item.phase is not None:
            fields["additional_kwargs"] = {"phase": item.phase}
        return ai_message(_assistant_content(item), **fields)
    content: str | list[str | dict[str, Any]]
    if isinstance(item.content, str):
        content = item.content
    else:
        allowed = (InputText, InputFile) if item.role == "user" else (InputText,)
        for position, part in enumerate(item.content):
            if not isinstance(part, allowed):
                kinds = (
                    "input_text or input_file" if item.role == "user" else "input_text"
                )
                raise InvalidRequestError(
                    f"A {item.role} message accepts only {kinds} content.",
                    param=f"input[{index}].content[{position}]",
                )
        content = _input_blocks(item.content)
    if item.role == "user":
        return human_message(content)
    if item.role == "developer":
        return system_message(
            content, additional_kwargs={"__openai_role__": "developer"}
        )
    return system_message(content)


def _append_call(messages: list[BaseMessage], call: dict[str, Any]) -> None:
    last = messages[-1] if messages else None
    if isinstance(last, AIMessage):
        # Consecutive calls (and the message before them) form one turn.
        last.tool_calls.append(call)  # type: ignore[arg-type]
    else:
        messages.append(AIMessage(content="", tool_calls=[call]))  # type: ignore[list-item]


def input_messages(request: ResponseCreateRequest) -> list[BaseMessage]:
    """Return the conversation: ``instructions`` (a ``SystemMessage``), then input.

    Raises:
        InvalidRequestError: Content a role cannot carry, unmatched tool
            exchanges, an output of another call type, unparsable
            arguments, or interrupt answers replayed as history.

    """
    messages: list[BaseMessage] = []
    if request.instructions:
        messages.append(system_message(request.instructions))
    if isinstance(request.input, str):
        messages.append(human_message(request.input))
        return messages
    kinds: dict[str, str] = {}  # call_id -> "function" | "custom"
    outputs = False
    interrupt_calls: set[str] = set()
    for index, item in enumerate(request.input):
        if isinstance(item, MessageItem):
            messages.append(_message(item, index))
        elif isinstance(item, FunctionCallItem | CustomToolCallItem):
            if isinstance(item, FunctionCallItem):
                args = parse_arguments(
                    item.arguments, param=f"input[{index}].arguments"
                )
                kinds.setdefault(item.call_id, "function")
                if item.name == INTERRUPT_FUNCTION_NAME:
                    interrupt_calls.add(item.call_id)
            else:
                # LangChain passes a custom tool's free-form input as one argument.
                args = {"__arg1": item.input}
                kinds.setdefault(item.call_id, "custom")
            call = {
                "id": item.call_id,
                "name": item.name,
                "args": args,
                "type": "tool_call",
            }
            _append_call(messages, call)
        elif isinstance(item, FunctionCallOutputItem | CustomToolCallOutputItem):
            outputs = True
            kind = "function" if isinstance(item, FunctionCallOutputItem) else "custom"
            if kinds.get(item.call_id, kind) != kind:
                raise InvalidRequestError(
                    f"The output for '{item.call_id}' is not of its call's type.",
                    param=f"input[{index}].type",
                )
            messages.append(ToolMessage(content=item.output, tool_call_id=item.call_id))
        elif isinstance(item, WebSearchCallItem):
            # A finished built-in search: history for the graph's model.
            messages.append(AIMessage(content=[item.model_dump()]))
    if kinds or outputs:  # else there is no call and no output to match
        check_tool_exchanges(messages, param="input", orphan_hint=unmatched_answer_hint)
    if interrupt_calls:
        _refuse_replayed_answers(request.input, interrupt_calls)
    return messages


def _refuse_replayed_answers(items: list[Any], interrupt_calls: set[str]) -> None:
    """Refuse interrupt answers sent as history instead of as a resume.

    A client that replays the paused Response's ``lgos_interrupt`` call with
    its answer and no ``previous_response_id`` (the OpenAI Agents SDK does
    without ``auto_previous_response_id``) would start the operation afresh
    and be asked again, forever. Answers in the trailing items (after the
    last message) are refused; earlier ones are history and stay allowed.
    ``interrupt_calls`` are the call IDs of the replayed interrupt calls.
    """
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if isinstance(item, MessageItem):
            return
        if isinstance(item, FunctionCallOutputItem) and item.call_id in interrupt_calls:
            raise InvalidRequestError(
                f"input[{index}] answers an interrupt ({INTERRUPT_FUNCTION_NAME}) "
                "without previous_response_id: resume the paused Response by "
                "sending its ID as previous_response_id with only the "
                "function_call_output items.",
                param="previous_response_id",
            )
