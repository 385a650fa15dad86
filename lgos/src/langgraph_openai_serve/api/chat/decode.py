"""Decode a Chat Completions request: the neutral request, the messages, the frame.

:func:`decode_chat_request` is the whole decode stage of ``POST
/chat/completions``: it looks up the model's :class:`GraphConfig` once
(refusing interrupt models, which only the Responses API can resume), checks
the request against the served subset, turns ``messages`` into LangChain
messages, and checks tools and file inputs against the graph. The run is one
frozen :class:`~langgraph_openai_serve.graph.run_spec.RunSpec`, handed to
:func:`~langgraph_openai_serve.api.http_run.start_run` as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ToolMessage,
)

from langgraph_openai_serve.api.chat.chat_request import (
    AssistantMessageParam,
    ChatCompletionRequest,
    FilePart,
    SystemMessageParam,
    ToolMessageParam,
    UserMessageParam,
)
from langgraph_openai_serve.api.chat.frame import ChatFrame
from langgraph_openai_serve.api.generation import generation_settings
from langgraph_openai_serve.api.messages import (
    check_tool_exchanges,
    file_block,
    parse_arguments,
)
from langgraph_openai_serve.api.request_fields import (
    check_metadata,
    check_stream_options,
)
from langgraph_openai_serve.api.tools import check_file_inputs, check_tools
from langgraph_openai_serve.api.unvalidated_messages import (
    ai_message,
    human_message,
    system_message,
)
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.generation import (
    GenerationControl,
    GenerationSettings,
)
from langgraph_openai_serve.graph.graph_request import (
    ClientFunctionTool,
    GraphRequest,
    NamedFunctionToolChoice,
    ToolChoice,
)
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_spec import RunSpec
from langgraph_openai_serve.metrics import note_model

__all__ = ["ChatPlan", "decode_chat_request"]


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
    # Plain text user and assistant messages, most of a long history, first.
    content = message.content
    if not isinstance(content, str):
        content = _content(content)
    if isinstance(message, UserMessageParam):
        if message.name is None:
            return human_message(content)
        return human_message(content, name=message.name)
    if isinstance(message, AssistantMessageParam):
        return _assistant_message(message, index, content)
    if isinstance(message, SystemMessageParam):
        fields = _named(message.name)
        if message.role == "developer":
            fields["additional_kwargs"] = {"__openai_role__": "developer"}
        return system_message(content, **fields)
    assert isinstance(message, ToolMessageParam)
    return ToolMessage(content=content, tool_call_id=message.tool_call_id)


def _assistant_message(
    message: AssistantMessageParam, index: int, content: str | list[Any]
) -> BaseMessage:
    fields = _named(message.name)
    if message.refusal:
        fields["additional_kwargs"] = {"refusal": message.refusal}
    if not message.tool_calls:
        return ai_message(content, **fields)
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
        for position, call in enumerate(message.tool_calls)
    ]
    # LangChain normalizes tool calls as it validates them.
    return AIMessage(content=content, tool_calls=calls, **fields)  # type: ignore[arg-type]


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


def _max_tokens(request: ChatCompletionRequest) -> tuple[str, int] | None:
    # max_tokens is the deprecated name of max_completion_tokens.
    newer, older = request.max_completion_tokens, request.max_tokens
    if newer is not None and older is not None and newer != older:
        raise InvalidRequestError(
            "max_tokens is the deprecated name of max_completion_tokens: send one "
            "of them, or the same value in both.",
            param="max_tokens",
        )
    if newer is not None:
        return "max_completion_tokens", newer
    if older is not None:
        return "max_tokens", older
    return None


# Every control but the token limit has a Chat field of its own name.
_SAME_NAME_CONTROLS = tuple(
    control
    for control in GenerationControl
    if control is not GenerationControl.MAX_OUTPUT_TOKENS
)


def _generation(
    request: ChatCompletionRequest, config: GraphConfig
) -> GenerationSettings:
    sent: dict[GenerationControl, tuple[str, object]] = {
        control: (control.value, value)
        for control in _SAME_NAME_CONTROLS
        if (value := getattr(request, control.value)) is not None
    }
    if (limit := _max_tokens(request)) is not None:
        sent[GenerationControl.MAX_OUTPUT_TOKENS] = limit
    return generation_settings(config, request.model, sent)


@dataclass(frozen=True, slots=True)
class ChatPlan:
    """A decoded Chat Completions request: the run to start and its frame.

    Attributes:
        run: The run: the protocol-neutral request, the conversation as
            LangChain messages, and the model's graph (looked up once).
        frame: The completion's identity (ID, creation time, usage chunk).

    """

    run: RunSpec
    frame: ChatFrame


def decode_chat_request(
    request: ChatCompletionRequest, registry: GraphRegistry
) -> ChatPlan:
    """Decode one Chat Completions request for a run.

    Returns:
        The :class:`ChatPlan`.

    Raises:
        InvalidRequestError: Unknown model (404), a model that pauses for
            interrupts (``model``), ``store=true``, generation controls the
            graph does not declare (or two different token limits), metadata
            over OpenAI's limits, unmatched tool exchanges, duplicate tool names, a
            ``tool_choice`` naming an undeclared function, or tool and
            file-input errors.

    """
    note_model(request.model, registry.graphs)
    config = registry.get_graph(request.model)
    if config.supports(GraphFeature.INTERRUPTS):
        raise InvalidRequestError(
            f"The model '{request.model}' pauses for human input, which only the "
            "Responses API (/v1/responses) supports.",
            param="model",
        )
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
        generation=_generation(request, config),
    )
    check_tools(
        config, graph_request, [tool.function.name for tool in request.tools or ()]
    )
    check_file_inputs(config, request.model, messages)
    frame = ChatFrame(
        model=request.model,
        include_usage=bool(
            request.stream_options and request.stream_options.include_usage
        ),
        service_tier=request.service_tier,
        metadata=request.metadata,
    )
    return ChatPlan(RunSpec(graph_request, messages, config), frame)
