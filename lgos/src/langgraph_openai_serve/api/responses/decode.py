"""Decode a Responses request: the run to start, and the Response to fill.

:func:`decode_response_request` is the whole decode stage of ``POST
/responses``: it checks the request against the served subset, looks up the
model's :class:`GraphConfig` once, checks tools and file inputs against it,
turns ``input`` into messages or a resume, and lays out the Response's
identity (a ``resp_lg_`` ID for interrupt runs). The run is one frozen
:class:`~langgraph_openai_serve.graph.run_spec.RunSpec`, handed to
:func:`~langgraph_openai_serve.api.http_run.start_run` as it is.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from langchain_core.messages import BaseMessage

from langgraph_openai_serve.api.generation import generation_settings
from langgraph_openai_serve.api.request_fields import (
    check_metadata,
    check_stream_options,
)
from langgraph_openai_serve.api.responses.frame import ResponseFrame
from langgraph_openai_serve.api.responses.input_items import input_messages
from langgraph_openai_serve.api.responses.interrupts import (
    RUN_ID_METADATA_KEY,
    decode_resume,
    interrupt_response_id,
    new_nonce,
    parse_run_id,
    request_fingerprint,
    resume_error,
)
from langgraph_openai_serve.api.responses.responses_request import (
    CustomToolChoice,
    FunctionTool,
    ResponseCreateRequest,
    Tool,
    WebSearchSelector,
)
from langgraph_openai_serve.api.tools import check_file_inputs, check_tools
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.generation import (
    GenerationControl,
    GenerationSettings,
)
from langgraph_openai_serve.graph.graph_request import (
    ClientFunctionTool,
    GraphRequest,
    NamedCustomToolChoice,
    NamedFunctionToolChoice,
    ToolChoice,
)
from langgraph_openai_serve.graph.interrupt import InterruptResume, ResumeError
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_spec import RunSpec, check_resumable
from langgraph_openai_serve.graph.server_tools import WEB_SEARCH
from langgraph_openai_serve.metrics import note_model

__all__ = ["ResponsePlan", "decode_response_request"]


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
class ResponsePlan:
    """A decoded Responses request: the run to start and the Response to fill.

    Attributes:
        request: The validated request, echoed in the Response.
        run: The run: the protocol-neutral request, the conversation (empty
            on resume), the model's graph (looked up once), the resume
            (``previous_response_id``), the run UUID of an interrupt run (the
            caller's ``metadata.lgos_run_id``, the resumed run's, or a new
            one), the client's instructions and, for a first request of an
            interrupt graph, its fingerprint
            (:func:`~.interrupts.request_fingerprint`).
        frame: The Response to fill: its ID (``resp_lg_…`` for interrupt
            runs), creation time and echoed fields.

    """

    request: ResponseCreateRequest
    run: RunSpec
    frame: ResponseFrame


def decode_response_request(
    request: ResponseCreateRequest,
    registry: GraphRegistry,
    *,
    frame: ResponseFrame | None = None,
    run_id: uuid.UUID | None = None,
    config: GraphConfig | None = None,
) -> ResponsePlan:
    """Decode one Responses request for a run.

    Args:
        request: The validated body.
        registry: Where ``request.model`` is registered.
        frame: A Response frame chosen already (a background run's, whose ID
            embeds the engine run); else one is made here, with a
            ``resp_lg_`` ID for interrupt graphs.
        run_id: The run UUID chosen at submission (background runs).
        config: ``request.model``'s graph when the caller looked it up
            already; else looked up here, once.

    Returns:
        The :class:`ResponsePlan`.

    Raises:
        InvalidRequestError: Unknown model (404), values outside the served
            subset (``store=true`` in the foreground), generation controls the
            graph does not declare, metadata over OpenAI's limits, tool or
            file-input errors, unmatched tool exchanges, an invalid
            ``metadata.lgos_run_id``, a malformed resume, or a resume
            of a model that never pauses (``previous_response_id``).

    """
    note_model(request.model, registry.graphs)
    check_stream_options(request.stream, request.stream_options)
    if request.store and not request.background:
        raise InvalidRequestError(
            "Foreground responses are not stored; send store=false or omit it.",
            param="store",
        )
    tools, server_tools = _selected_tools(request)
    metadata = check_metadata(request.metadata)
    raw_run_id = metadata.get(RUN_ID_METADATA_KEY)
    caller_run_id = parse_run_id(raw_run_id) if raw_run_id is not None else None
    tool_choice = _tool_choice(request, tools, server_tools)
    resume: InterruptResume | None = None
    messages: list[BaseMessage] = []
    if request.previous_response_id is not None:
        resume = decode_resume(request, caller_run_id)
        caller_run_id = resume.run_id
    else:
        messages = input_messages(request)
    config = config or registry.get_graph(request.model)
    try:
        # Before the generation and tool checks: a client chaining Responses
        # automatically learns first that this model never pauses.
        check_resumable(config, resume)
    except ResumeError as exc:
        raise resume_error(exc) or exc from None
    graph_request = GraphRequest(
        model=request.model,
        metadata=metadata,
        user=request.safety_identifier or request.user,
        tools=tools,
        tool_choice=tool_choice,
        parallel_tool_calls=request.parallel_tool_calls,
        server_tools=server_tools,
        generation=_generation(request, config),
    )
    check_tools(config, graph_request, [_tool_name(t) for t in request.tools or ()])
    check_file_inputs(config, request.model, messages)
    run_id = caller_run_id or run_id
    if frame is None:
        frame = ResponseFrame(request=request)
        if config.supports(GraphFeature.INTERRUPTS):
            run_id = run_id or uuid.uuid4()
            frame.nonce = new_nonce()
            frame.response_id = interrupt_response_id(run_id, frame.nonce)
    fingerprint = None
    if resume is None and config.supports(GraphFeature.INTERRUPTS):
        fingerprint = request_fingerprint(request)
    run = RunSpec(
        graph_request,
        messages,
        config,
        resume,
        run_id,
        request.instructions,
        fingerprint,
    )
    return ResponsePlan(request, run, frame)


def _generation(
    request: ResponseCreateRequest, config: GraphConfig
) -> GenerationSettings:
    sent: dict[GenerationControl, tuple[str, object]] = {}
    if request.temperature is not None:
        sent[GenerationControl.TEMPERATURE] = ("temperature", request.temperature)
    if request.top_p is not None:
        sent[GenerationControl.TOP_P] = ("top_p", request.top_p)
    if request.max_output_tokens is not None:
        sent[GenerationControl.MAX_OUTPUT_TOKENS] = (
            "max_output_tokens",
            request.max_output_tokens,
        )
    if request.reasoning is not None and request.reasoning.effort is not None:
        sent[GenerationControl.REASONING_EFFORT] = (
            "reasoning.effort",
            request.reasoning.effort,
        )
    return generation_settings(config, request.model, sent)


def _tool_name(tool: Tool) -> str:
    return WEB_SEARCH if isinstance(tool, WebSearchSelector) else tool.name
