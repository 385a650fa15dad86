"""Decode a Chat Completions request into a GraphRequest and LangChain messages."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ToolMessage,
)

from langgraph_openai_serve.api.chat.request import (
    AssistantMessageParam,
    ChatCompletionRequest,
    FilePart,
    SystemMessageParam,
    ToolMessageParam,
    UserMessageParam,
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
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.request import (
    ClientFunctionTool,
    GraphRequest,
    NamedFunctionToolChoice,
    ToolChoice,
)

__all__ = ["decode_chat_request"]


def _content(content: str | list[Any] | None) -> str | list[str | dict[str, Any]]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return [
        file_block(part.file.file_id)
        if isinstance(part, FilePart)
        else {"type": "text", "text": part.text}
        for part in content
    ]


def _named(name: str | None) -> dict[str, Any]:
    # Only fields with values are passed: the same message, built faster.
    return {} if name is None else {"name": name}


def _message(message: Any, index: int) -> BaseMessage:
    if isinstance(message, UserMessageParam):
        return human_message(_content(message.content), **_named(message.name))
    if isinstance(message, SystemMessageParam):
        fields = _named(message.name)
        if message.role == "developer":
            fields["additional_kwargs"] = {"__openai_role__": "developer"}
        return system_message(_content(message.content), **fields)
    if isinstance(message, ToolMessageParam):
        return ToolMessage(
            content=_content(message.content), tool_call_id=message.tool_call_id
        )
    assert isinstance(message, AssistantMessageParam)
    calls = [
        {
            "id": call.id,
            "name": call.function.name,
            "args": parse_arguments(
                call.function.arguments,
                param=f"messages[{index}].tool_calls[{position}].function.arguments",
            ),
            "type": "tool_call",
        }
        for position, call in enumerate(message.tool_calls or ())
    ]
    fields = _named(message.name)
    if message.refusal:
        fields["additional_kwargs"] = {"refusal": message.refusal}
    if calls:  # LangChain normalizes tool calls as it validates them
        return AIMessage(content=_content(message.content), tool_calls=calls, **fields)  # type: ignore[arg-type]
    return ai_message(_content(message.content), **fields)


def _tool_choice(request: ChatCompletionRequest) -> ToolChoice:
    choice = request.tool_choice
    if choice is None or isinstance(choice, str):
        return choice
    names = {tool.function.name for tool in request.tools or ()}
    if choice.function.name not in names:
        raise InvalidRequestError(
            f"tool_choice names '{choice.function.name}', which is not a tool.",
            param="tool_choice",
        )
    return NamedFunctionToolChoice(choice.function.name)


def decode_chat_request(
    request: ChatCompletionRequest,
) -> tuple[GraphRequest, list[BaseMessage]]:
    """Normalize one Chat Completions request for graph execution.

    Returns:
        The protocol-neutral request and the messages as LangChain messages.

    Raises:
        InvalidRequestError: Metadata over OpenAI's limits, unmatched tool
            exchanges, duplicate tool names, or a ``tool_choice`` naming an
            undeclared function.

    """
    check_stream_options(request.stream, request.stream_options)
    if request.store:
        raise InvalidRequestError(
            "Chat completions are not stored; send store=false or omit it.",
            param="store",
        )
    tools = tuple(
        ClientFunctionTool(
            name=tool.function.name,
            description=tool.function.description,
            parameters=tool.function.parameters,
            strict=tool.function.strict,
        )
        for tool in request.tools or ()
    )
    if len({tool.name for tool in tools}) != len(tools):
        raise InvalidRequestError("Tool names must be unique.", param="tools")
    messages = [
        _message(message, index) for index, message in enumerate(request.messages)
    ]
    check_tool_exchanges(messages, param="messages")
    graph_request = GraphRequest(
        model=request.model,
        metadata=check_metadata(request.metadata),
        user=request.safety_identifier or request.user,
        tools=tools,
        tool_choice=_tool_choice(request),
        parallel_tool_calls=request.parallel_tool_calls,
    )
    return graph_request, messages
