"""Decode a Responses request into a GraphRequest and LangChain messages."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from langgraph_openai_serve.api.common import check_metadata
from langgraph_openai_serve.api.messages import check_tool_exchanges, parse_arguments
from langgraph_openai_serve.api.responses.request import (
    FunctionCallItem,
    FunctionCallOutputItem,
    InputText,
    MessageItem,
    OutputText,
    ResponseCreateRequest,
)
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.request import (
    ClientFunctionTool,
    GraphRequest,
    NamedFunctionToolChoice,
    ToolChoice,
)

__all__ = ["decode_response_request"]


def _text_blocks(parts: list[Any]) -> list[str | dict[str, Any]]:
    return [{"type": "text", "text": part.text} for part in parts]


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
        else:
            block = {"type": "refusal", "refusal": part.refusal}
        if item.id is not None:
            block["id"] = item.id
        if item.phase is not None:
            block["phase"] = item.phase
        blocks.append(block)
    return blocks


def _message(item: MessageItem, index: int) -> BaseMessage:
    if item.role == "assistant":
        kwargs = {"phase": item.phase} if item.phase is not None else {}
        return AIMessage(
            content=_assistant_content(item), id=item.id, additional_kwargs=kwargs
        )
    content: str | list[str | dict[str, Any]]
    if isinstance(item.content, str):
        content = item.content
    else:
        if any(not isinstance(part, InputText) for part in item.content):
            raise InvalidRequestError(
                f"A {item.role} message accepts only input_text content.",
                param=f"input[{index}].content",
            )
        content = _text_blocks(item.content)
    if item.role == "user":
        return HumanMessage(content=content)
    kwargs = {"__openai_role__": "developer"} if item.role == "developer" else {}
    return SystemMessage(content=content, additional_kwargs=kwargs)


def _messages(request: ResponseCreateRequest) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    if request.instructions:
        messages.append(SystemMessage(content=request.instructions))
    if isinstance(request.input, str):
        messages.append(HumanMessage(content=request.input))
        return messages
    for index, item in enumerate(request.input):
        if isinstance(item, MessageItem):
            messages.append(_message(item, index))
        elif isinstance(item, FunctionCallItem):
            call = {
                "id": item.call_id,
                "name": item.name,
                "args": parse_arguments(
                    item.arguments, param=f"input[{index}].arguments"
                ),
                "type": "tool_call",
            }
            last = messages[-1] if messages else None
            if isinstance(last, AIMessage) and not isinstance(last, ToolMessage):
                # Consecutive calls (and the message before them) form one turn.
                last.tool_calls.append(call)  # type: ignore[arg-type]
            else:
                messages.append(AIMessage(content="", tool_calls=[call]))  # type: ignore[list-item]
        elif isinstance(item, FunctionCallOutputItem):
            messages.append(ToolMessage(content=item.output, tool_call_id=item.call_id))
    check_tool_exchanges(messages, param="input")
    return messages


def _tool_choice(request: ResponseCreateRequest) -> ToolChoice:
    choice = request.tool_choice
    if choice is None or isinstance(choice, str):
        return choice
    names = {tool.name for tool in request.tools or ()}
    if choice.name not in names:
        raise InvalidRequestError(
            f"tool_choice names '{choice.name}', which is not among the tools.",
            param="tool_choice",
        )
    return NamedFunctionToolChoice(choice.name)


def decode_response_request(
    request: ResponseCreateRequest,
) -> tuple[GraphRequest, list[BaseMessage]]:
    """Normalize one foreground Responses request for graph execution.

    Returns:
        The protocol-neutral request and the conversation as LangChain
        messages (``instructions`` first, as a ``SystemMessage``).

    Raises:
        InvalidRequestError: Values outside the served subset (``store=true``
            in the foreground, ``background``, ``previous_response_id``),
            metadata over OpenAI's limits, unmatched tool exchanges, or
            duplicate tool names.

    """
    if request.store:
        raise InvalidRequestError(
            "Foreground responses are not stored; send store=false or omit it.",
            param="store",
        )
    if request.background:
        raise InvalidRequestError(
            "Background responses are not enabled for this model.",
            param="background",
        )
    if request.previous_response_id is not None:
        raise InvalidRequestError(
            "previous_response_id only resumes an interrupted run; this model "
            "keeps no responses. Resend the conversation in input instead.",
            param="previous_response_id",
        )
    tools = tuple(
        ClientFunctionTool(
            name=tool.name,
            description=tool.description,
            parameters=tool.parameters,
            strict=tool.strict,
        )
        for tool in request.tools or ()
    )
    if len({tool.name for tool in tools}) != len(tools):
        raise InvalidRequestError("Tool names must be unique.", param="tools")
    graph_request = GraphRequest(
        model=request.model,
        metadata=check_metadata(request.metadata),
        user=request.safety_identifier or request.user,
        tools=tools,
        tool_choice=_tool_choice(request),
        parallel_tool_calls=request.parallel_tool_calls,
    )
    return graph_request, _messages(request)
