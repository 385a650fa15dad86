"""Graph registration: :class:`GraphConfig` and :class:`GraphFeature`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from enum import StrEnum
from typing import Any, Self

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph.state import CompiledStateGraph
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.client_settings import (
    ClientSettings,
    check_no_settings,
)
from langgraph_openai_serve.graph.generation import GenerationControl
from langgraph_openai_serve.graph.graph_request import GraphRequest

__all__ = ["GraphConfig", "GraphFeature"]

_ASYNC_CHECKPOINTER_METHODS = ("aget_tuple", "aput", "aput_writes", "adelete_thread")


class GraphFeature(StrEnum):
    """Optional server behaviour and client capabilities a graph declares.

    The values are advertised in the ``lgos.features`` discovery extension.
    """

    INTERRUPTS = "interrupts"
    """Pending ``interrupt()`` calls become ``lgos_interrupt`` function calls."""
    BACKGROUND = "background"
    """The graph accepts polling-only background Responses."""
    FILE_INPUTS = "file_inputs"
    """The graph resolves native file content parts (``input_file.file_id``)."""
    MCP_TOOLS = "mcp_tools"
    """A client may attach and execute tools from its MCP server or gateway.

    Advertising only (seed 001): LGOS does no MCP discovery and publishes no
    tool definitions. The client sends the tools as ordinary function
    ``tools`` (``GraphRequest.tools``) and runs the calls the graph returns;
    see the MCP tools guide (``docs/how-to/mcp-tools.md``).
    """


GraphSource = (
    CompiledStateGraph
    | Callable[[], CompiledStateGraph]
    | Callable[[], Awaitable[CompiledStateGraph]]
)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class GraphConfig(BaseModel):
    """How one graph is served as an OpenAI ``model``.

    Usage::

        GraphConfig(graph=chat_graph, description="General-purpose chat.")

    Attributes:
        graph: A compiled LangGraph graph, or a sync or async factory returning
            one. A compiled graph is validated here and reused; a factory is
            called and validated on every request, never cached.
        description: Required human-readable description, advertised as
            ``lgos.description``.
        features: :class:`GraphFeature` values, frozen at construction.
        client_settings: A :class:`ClientSettings` subclass published on model
            retrieval and validated per request, or None.
        server_tools: Names of server-executed tools the graph allowlists.
        client_tools: Names of client-owned functions the graph may call (for
            example ``display_file``); never also a server tool.
        generation_controls: The :class:`GenerationControl` values the graph
            honours (names such as ``"temperature"`` are accepted), frozen at
            construction and advertised as ``lgos.generation_controls``. A
            request's values for them reach the graph in
            ``GraphRequest.generation``; any other generation control a client
            sends is refused (400 ``unsupported_parameter``). A graph
            declaring any needs a ``context_factory`` or ``request_to_input``
            to receive them.
        runtime_callbacks: LangChain callbacks (a list or a callback manager)
            placed in every run's ``RunnableConfig``; never mutated. With
            ``LGOS_ENABLE_LANGFUSE=True`` LGOS adds its Langfuse handler
            beside them in each run's copy.
        request_to_input: ``(GraphRequest, messages) -> graph input``; sync or
            async. Default: ``{"messages": messages}``.
        context_factory: ``(GraphRequest, settings | None) -> context``; sync
            or async. Default: the validated settings instance (or None).
        output_to_message: ``(graph output) -> AIMessage``; sync or async.
            Default: the last message of ``output["messages"]``.

    Raises:
        pydantic.ValidationError: At construction, when the description is
            empty, a settings model cannot build its schema or defaults, a
            tool is both server and client owned, generation controls are
            declared without an adapter to receive them, or a directly
            supplied graph cannot be served (static breakpoints, a
            checkpointer without ``GraphFeature.INTERRUPTS``, settings that
            are not its context).

    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    graph: Any
    description: str = Field(min_length=1)
    features: frozenset[GraphFeature] = frozenset()
    client_settings: type[ClientSettings] | None = None
    server_tools: frozenset[str] = frozenset()
    client_tools: frozenset[str] = frozenset()
    generation_controls: frozenset[GenerationControl] = frozenset()
    runtime_callbacks: list[Any] | BaseCallbackManager | None = None
    request_to_input: (
        Callable[[GraphRequest, list[BaseMessage]], Any | Awaitable[Any]] | None
    ) = None
    context_factory: (
        Callable[[GraphRequest, ClientSettings | None], Any | Awaitable[Any]] | None
    ) = None
    output_to_message: Callable[[Any], AIMessage | Awaitable[AIMessage]] | None = None

    @field_validator("graph")
    @classmethod
    def _check_graph_source(cls, value: Any) -> Any:
        if isinstance(value, CompiledStateGraph) or callable(value):
            return value
        msg = "graph must be a compiled state graph or a graph factory"
        raise ValueError(msg)

    @field_validator("client_settings")
    @classmethod
    def _check_client_settings(
        cls, value: type[ClientSettings] | None
    ) -> type[ClientSettings] | None:
        if value is not None:
            if not (isinstance(value, type) and issubclass(value, ClientSettings)):
                msg = "client_settings must be a ClientSettings subclass"
                raise ValueError(msg)
            value.json_schema()
            value.default_values()
        return value

    @model_validator(mode="after")
    def _check_tool_ownership(self) -> Self:
        if shared := self.server_tools & self.client_tools:
            names = ", ".join(sorted(shared))
            msg = f"Tools cannot be both server and client tools: {names}"
            raise ValueError(msg)
        return self

    @model_validator(mode="after")
    def _check_generation_controls(self) -> Self:
        if self.generation_controls and (
            self.context_factory is None and self.request_to_input is None
        ):
            msg = (
                "A graph declaring generation_controls receives their values in "
                "GraphRequest.generation: give it a context_factory or "
                "request_to_input that hands them to the graph."
            )
            raise ValueError(msg)
        return self

    @model_validator(mode="after")
    def _check_compiled_graph(self) -> Self:
        if isinstance(self.graph, CompiledStateGraph):
            try:
                validate_graph(self.graph, self)
            except GraphError as exc:
                raise ValueError(str(exc)) from exc
        return self

    def supports(self, feature: GraphFeature) -> bool:
        """Return whether the graph declares ``feature``."""
        return feature in self.features

    def honours(self, control: GenerationControl) -> bool:
        """Return whether the graph declares the generation ``control``."""
        return control in self.generation_controls

    async def resolve_graph(self) -> CompiledStateGraph:
        """Return the compiled graph, calling and validating a factory.

        Raises:
            GraphError: The factory returned something LGOS cannot serve.

        """
        if isinstance(self.graph, CompiledStateGraph):
            return self.graph
        graph = await _maybe_await(self.graph())
        validate_graph(graph, self)
        return graph

    async def build_input(
        self, request: GraphRequest, messages: list[BaseMessage]
    ) -> Any:
        """Build the graph input for a request (default ``{"messages": ...}``)."""
        if self.request_to_input is None:
            return {"messages": messages}
        return await _maybe_await(self.request_to_input(request, messages))

    async def build_context(
        self, request: GraphRequest, graph: CompiledStateGraph
    ) -> Any:
        """Build the LangGraph runtime context for a request.

        Validates ``metadata.lgos_settings`` first (a model without
        ``client_settings`` accepts only its absence or ``"{}"``), then calls
        the context factory, if any, with the request and the settings.

        Raises:
            InvalidRequestError: Invalid runtime settings, or settings sent to
                a model that publishes none (400).
            GraphError: A non-null context for a graph without a context schema.

        """
        settings = None
        if self.client_settings is not None:
            settings = self.client_settings.validate_request(request)
        else:
            check_no_settings(request)
        if self.context_factory is not None:
            context = await _maybe_await(self.context_factory(request, settings))
        else:
            context = settings
        if context is not None and graph.context_schema is None:
            msg = "A graph that receives runtime context must declare context_schema."
            raise GraphError(msg)
        return context

    async def render_output(
        self, output: Any, *, graph: str | None = None
    ) -> AIMessage:
        """Convert the graph's final output into the answer ``AIMessage``.

        Args:
            output: The graph's final state (its last root ``values``).
            graph: The graph's registered name, named in the errors.

        Returns:
            ``output_to_message(output)`` when given, else the last message
            of the output's ``messages`` (an empty ``AIMessage`` when that
            list is empty).

        Raises:
            GraphError: ``output_to_message`` returned something else than an
                ``AIMessage``; the output has no messages field; or its last
                message is not an ``AIMessage`` (the message says which type
                it is: the user's own ``HumanMessage`` when no node added an
                answer).

        """
        named = f"Graph {graph!r}" if graph else "The graph"
        if self.output_to_message is not None:
            message = await _maybe_await(self.output_to_message(output))
            if not isinstance(message, AIMessage):
                got = type(message).__name__
                msg = (
                    f"{named}: output_to_message returned a {got}; it must "
                    "return an AIMessage."
                )
                raise GraphError(msg)
            return message
        messages = (
            output.get("messages")
            if isinstance(output, Mapping)
            else getattr(output, "messages", None)
        )
        if messages is None:
            msg = (
                f"{named}'s output has no messages field: give its state a "
                "messages list (MessagesState) or give GraphConfig an "
                "output_to_message."
            )
            raise GraphError(msg)
        if not messages:
            return AIMessage(content="")
        message = messages[-1]
        if not isinstance(message, AIMessage):
            raise GraphError(_not_an_answer(named, message))
        return message


def _not_an_answer(named: str, message: Any) -> str:
    """Say what the final message is instead of an ``AIMessage``, and the fix."""
    got = type(message).__name__
    if isinstance(message, HumanMessage):
        return (
            f"{named} added no answer: the last message of its output is a "
            f"{got}, the user's own unless a node added it. The final "
            'node must return {"messages": [AIMessage(...)]}.'
        )
    return (
        f"{named} ended on a {got}, not an AIMessage: the final node must return "
        '{"messages": [AIMessage(...)]} (or give GraphConfig an output_to_message).'
    )


def validate_graph(graph: Any, config: GraphConfig) -> None:
    """Check that ``graph`` can be served under ``config``.

    Raises:
        GraphError: ``graph`` is not a compiled state graph; it or a subgraph
            has static breakpoints (LGOS pauses only at ``interrupt()``); it has
            a checkpointer without ``GraphFeature.INTERRUPTS``; an interrupt
            graph lacks an async checkpointer; or settings used directly as
            context are not the graph's context schema.

    """
    if not isinstance(graph, CompiledStateGraph):
        msg = f"Expected a compiled state graph, got {type(graph).__name__}."
        raise GraphError(msg)
    interrupts = config.supports(GraphFeature.INTERRUPTS)
    graphs = [("", graph), *graph.get_subgraphs(recurse=True)]
    for name, each in graphs:
        if each.interrupt_before_nodes or each.interrupt_after_nodes:
            where = f"subgraph {name!r}" if name else "the graph"
            declare = (
                ""
                if interrupts
                else ", and declare GraphFeature.INTERRUPTS with a checkpointer"
            )
            msg = (
                f"Static breakpoints (interrupt_before/interrupt_after) are not "
                f"supported ({where}): pause with interrupt() in a node instead"
                f"{declare}."
            )
            raise GraphError(msg)
    checkpointer = graph.checkpointer
    if not interrupts and checkpointer not in (None, False):
        msg = (
            "A checkpointer is only used by graphs declaring "
            "GraphFeature.INTERRUPTS; clients resend the conversation otherwise."
        )
        raise GraphError(msg)
    if interrupts:
        missing = [
            name
            for name in _ASYNC_CHECKPOINTER_METHODS
            if not callable(getattr(checkpointer, name, None))
        ]
        if checkpointer in (None, True, False) or missing:
            msg = (
                "Interrupt graphs need an async checkpointer implementing "
                + ", ".join(_ASYNC_CHECKPOINTER_METHODS)
                + ": compile the graph with one (in lgos serve's factory, "
                "builder.compile(checkpointer=resources.checkpointer)); see "
                "docs/how-to/interrupts.md."
            )
            raise GraphError(msg)
    if config.client_settings is not None and config.context_factory is None:
        schema = graph.context_schema
        if not (
            isinstance(schema, type) and issubclass(schema, config.client_settings)
        ):
            msg = (
                "Without a context_factory the client settings are the runtime "
                "context, so the graph's context_schema must be "
                f"{config.client_settings.__name__}."
            )
            raise GraphError(msg)
