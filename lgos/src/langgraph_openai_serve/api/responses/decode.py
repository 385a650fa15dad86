"""Decode a Responses request into a GraphRequest and LangChain messages."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ToolMessage,
)

from langgraph_openai_serve.api.common import check_metadata, check_stream_options
from langgraph_openai_serve.api.construct import (
    ai_message,
    human_message,
    system_message,
)
from langgraph_openai_serve.api.messages import (
    check_tool_exchanges,
    file_block,
    parse_arguments,
)
from langgraph_openai_serve.api.responses.request import (
    CustomToolCallItem,
    CustomToolCallOutputItem,
    CustomToolChoice,
    FunctionCallItem,
    FunctionCallOutputItem,
    FunctionTool,
    InputFile,
    InputText,
    MessageItem,
    OutputText,
    Refusal,
    ResponseCreateRequest,
    WebSearchCallItem,
    WebSearchSelector,
)
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.interrupt import (
    INTERRUPT_FUNCTION_NAME,
    RUN_ID_METADATA_KEY,
    InterruptResume,
    parse_interrupt_response_id,
    parse_run_id,
)
from langgraph_openai_serve.graph.request import (
    ClientFunctionTool,
    GraphRequest,
    NamedCustomToolChoice,
    NamedFunctionToolChoice,
    ToolChoice,
)
from langgraph_openai_serve.graph.server_tools import WEB_SEARCH

__all__ = ["DecodedResponseRequest", "decode_response_request"]


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


def _messages(request: ResponseCreateRequest) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    if request.instructions:
        messages.append(system_message(request.instructions))
    if isinstance(request.input, str):
        messages.append(human_message(request.input))
        return messages
    kinds: dict[str, str] = {}  # call_id -> "function" | "custom"
    for index, item in enumerate(request.input):
        if isinstance(item, MessageItem):
            messages.append(_message(item, index))
        elif isinstance(item, FunctionCallItem | CustomToolCallItem):
            if isinstance(item, FunctionCallItem):
                args = parse_arguments(
                    item.arguments, param=f"input[{index}].arguments"
                )
                kinds.setdefault(item.call_id, "function")
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
    check_tool_exchanges(messages, param="input")
    _refuse_replayed_answers(request.input)
    return messages


def _refuse_replayed_answers(items: list[Any]) -> None:
    """Refuse interrupt answers sent as history instead of as a resume.

    A client that replays the paused Response's ``lgos_interrupt`` call with
    its answer and no ``previous_response_id`` (the OpenAI Agents SDK does
    without ``auto_previous_response_id``) would start the operation afresh
    and be asked again, forever. Answers in the trailing items (after the
    last message) are refused; earlier ones are history and stay allowed.
    """
    interrupt_calls = {
        item.call_id
        for item in items
        if isinstance(item, FunctionCallItem) and item.name == INTERRUPT_FUNCTION_NAME
    }
    if not interrupt_calls:
        return
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


def _selected_tools(
    request: ResponseCreateRequest,
) -> tuple[tuple[ClientFunctionTool, ...], tuple[str, ...]]:
    functions: list[ClientFunctionTool] = []
    server: list[str] = []
    seen: set[str] = set()
    for index, tool in enumerate(request.tools or ()):
        name = WEB_SEARCH if isinstance(tool, WebSearchSelector) else tool.name
        if name in seen:
            raise InvalidRequestError(
                f"The tool '{name}' is declared twice.", param=f"tools[{index}]"
            )
        seen.add(name)
        if isinstance(tool, FunctionTool):
            functions.append(
                ClientFunctionTool(
                    name=tool.name,
                    description=tool.description,
                    parameters=tool.parameters,
                    strict=tool.strict,
                )
            )
        else:
            server.append(name)
    return tuple(functions), tuple(server)


def _tool_choice(
    request: ResponseCreateRequest,
    functions: tuple[ClientFunctionTool, ...],
    server_tools: tuple[str, ...],
) -> ToolChoice:
    choice = request.tool_choice
    if choice is None or isinstance(choice, str):
        return choice
    if isinstance(choice, CustomToolChoice):
        if choice.name not in server_tools or choice.name == WEB_SEARCH:
            raise InvalidRequestError(
                f"tool_choice names '{choice.name}', not a selected custom tool.",
                param="tool_choice",
            )
        return NamedCustomToolChoice(choice.name)
    if choice.name not in {tool.name for tool in functions}:
        raise InvalidRequestError(
            f"tool_choice names '{choice.name}', which is not among the tools.",
            param="tool_choice",
        )
    return NamedFunctionToolChoice(choice.name)


@dataclass(frozen=True, slots=True)
class DecodedResponseRequest:
    """A decoded Responses request.

    Attributes:
        graph_request: The protocol-neutral request.
        messages: The conversation as LangChain messages (empty on resume).
        resume: The answers to a paused run, when ``previous_response_id``
            was sent.
        run_id: The caller-chosen run UUID (``metadata.lgos_run_id``), or
            the one encoded in ``previous_response_id``, or None.

    """

    graph_request: GraphRequest
    messages: list[BaseMessage]
    resume: InterruptResume | None
    run_id: uuid.UUID | None


def _resume(
    request: ResponseCreateRequest, run_id: uuid.UUID | None
) -> InterruptResume:
    assert request.previous_response_id is not None
    resumed_run, nonce = parse_interrupt_response_id(request.previous_response_id)
    if run_id is not None and run_id != resumed_run:
        raise InvalidRequestError(
            "metadata.lgos_run_id does not match previous_response_id.",
            param=f"metadata.{RUN_ID_METADATA_KEY}",
        )
    items = request.input
    if isinstance(items, str) or not items:
        raise InvalidRequestError(
            "A resume sends only function_call_output items answering the calls.",
            param="input",
        )
    answers: dict[str, str] = {}
    for index, item in enumerate(items):
        if not isinstance(item, FunctionCallOutputItem):
            raise InvalidRequestError(
                "A resume sends only function_call_output items answering the calls.",
                param=f"input[{index}]",
            )
        if item.call_id in answers:
            raise InvalidRequestError(
                f"The call '{item.call_id}' has more than one output.",
                param=f"input[{index}].call_id",
            )
        answers[item.call_id] = item.output
    return InterruptResume(
        run_id=resumed_run,
        nonce=nonce,
        answers=answers,
        instructions=request.instructions,  # checked against the run's own
    )


def decode_response_request(request: ResponseCreateRequest) -> DecodedResponseRequest:
    """Normalize one foreground Responses request for graph execution.

    Returns:
        The protocol-neutral request, the conversation as LangChain messages
        (``instructions`` first, as a ``SystemMessage``), and the resume of a
        paused run when ``previous_response_id`` is set.

    Raises:
        InvalidRequestError: Values outside the served subset (``store=true``
            in the foreground), metadata over OpenAI's limits,
            unmatched tool exchanges, duplicate tool names, an invalid
            ``metadata.lgos_run_id``, or a malformed resume.

    """
    check_stream_options(request.stream, request.stream_options)
    if request.store and not request.background:
        raise InvalidRequestError(
            "Foreground responses are not stored; send store=false or omit it.",
            param="store",
        )
    tools, server_tools = _selected_tools(request)
    metadata = check_metadata(request.metadata)
    raw_run_id = metadata.get(RUN_ID_METADATA_KEY)
    run_id = parse_run_id(raw_run_id) if raw_run_id is not None else None
    graph_request = GraphRequest(
        model=request.model,
        metadata=metadata,
        user=request.safety_identifier or request.user,
        tools=tools,
        tool_choice=_tool_choice(request, tools, server_tools),
        parallel_tool_calls=request.parallel_tool_calls,
        server_tools=server_tools,
    )
    if request.previous_response_id is not None:
        resume = _resume(request, run_id)
        return DecodedResponseRequest(graph_request, [], resume, resume.run_id)
    return DecodedResponseRequest(graph_request, _messages(request), None, run_id)
