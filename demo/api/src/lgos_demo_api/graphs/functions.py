"""The `functions` graph: calls the client's own functions, then answers.

The client (for example the Chainlit UI) sends its functions as OpenAI
function `tools` with `tool_choice` and `parallel_tool_calls`; LGOS hands them
to the graph as `GraphRequest.tools` and friends, and `functions_context`
turns them into the graph's runtime context. The single `agent` node binds
the functions to the model and returns its answer: either function calls,
which LGOS serves as `function_call` items for the client to run, or, once
the client has sent the results back, an answer that uses them.

The graph enforces the request's choices itself too: with
`tool_choice="none"` it never returns a call, and with
`parallel_tool_calls=false` it returns at most one call per answer.

The offline stand-in, `functions_responder` (in `functions_offline`),
decides deterministically which offered functions the question is about (by
the words in their names) and fills their arguments from the question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from langgraph_openai_serve import (
    ClientSettings,
    GraphConfig,
    GraphRequest,
    NamedFunctionToolChoice,
)
from lgos_demo_api.graphs.functions_offline import functions_responder
from lgos_demo_api.graphs.tool_calls import ask_with_functions, function_tools
from lgos_demo_api.models import answered_by, chat_model
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "CLIENT_FUNCTIONS",
    "SYSTEM_PROMPT",
    "FunctionsContext",
    "build_functions_graph",
    "functions_context",
    "functions_graph_config",
]

CLIENT_FUNCTIONS = frozenset({"get_current_time", "roll_dice"})
"""The functions the demo's Chainlit UI offers; advertised as `client_tools`."""

SYSTEM_PROMPT = (
    "You are a helpful assistant. When one of your functions can answer the "
    "question, call it instead of guessing; when function results arrive, "
    "answer the question with them."
)


@dataclass(frozen=True, slots=True)
class FunctionsContext:
    """The `functions` graph's runtime context, built from the request.

    Attributes:
        tools: The client's functions as OpenAI (Chat Completions format) tool
            dicts, ready for `bind_tools`.
        tool_choice: `None` (the model decides), `"auto"`, `"none"`,
            `"required"`, or the name of the one function to call.
        parallel_tool_calls: `False` limits an answer to one call; `None`
            or `True` allow several.

    """

    tools: tuple[dict[str, Any], ...] = ()
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None


def functions_context(
    request: GraphRequest, settings: ClientSettings | None = None
) -> FunctionsContext:
    """Build the runtime context from a request (`GraphConfig.context_factory`).

    Args:
        request: The normalized request, from Responses or Chat Completions.
        settings: Unused (the graph publishes no settings).

    Returns:
        The client's function tools, tool choice and parallel-calls flag.

    """
    choice = request.tool_choice
    if isinstance(choice, NamedFunctionToolChoice):
        tool_choice: str | None = choice.name
    elif isinstance(choice, str):
        tool_choice = choice
    else:
        tool_choice = None
    return FunctionsContext(
        function_tools(request), tool_choice, request.parallel_tool_calls
    )


FunctionsGraph = CompiledStateGraph[
    MessagesState, FunctionsContext, MessagesState, MessagesState
]
"""The compiled `functions` graph type."""


def build_functions_graph(
    model: BaseChatModel,
    *,
    system_prompt: str = SYSTEM_PROMPT,
    name: str = "functions",
) -> FunctionsGraph:
    """Compile the `functions` graph (or another client-tools graph) around a model.

    `START -> agent -> END` over `MessagesState`, with
    `context_schema=FunctionsContext`. `agent` sends the system prompt and
    the conversation (function calls and results included) to the model,
    with the client's functions bound (`bind_tools(tools, tool_choice=...,
    parallel_tool_calls=...)`) when there are any, and appends the answer
    after enforcing `tool_choice="none"` and `parallel_tool_calls=false`.
    The `mcp` graph is this graph with its own prompt and name.

    Args:
        model: Any LangChain chat model (`ChatOpenAI`, `OfflineChatModel`, ...).
        system_prompt: The system message; `SYSTEM_PROMPT` by default.
        name: The compiled graph's name.

    Returns:
        The compiled graph, named `name`, without a checkpointer.

    """

    async def agent(
        state: MessagesState, runtime: Runtime[FunctionsContext]
    ) -> dict[str, Any]:
        context = runtime.context or FunctionsContext()
        messages = [SystemMessage(system_prompt), *state["messages"]]
        answer = await ask_with_functions(
            model,
            messages,
            tools=context.tools,
            tool_choice=context.tool_choice,
            parallel_tool_calls=context.parallel_tool_calls,
        )
        return {"messages": [answer]}

    builder = StateGraph(MessagesState, context_schema=FunctionsContext)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder.compile(name=name)


def functions_graph_config(settings: DemoApiSettings) -> GraphConfig:
    """Register the `functions` graph with the model the settings select.

    Args:
        settings: The demo settings (`chat_model` picks OpenAI or offline; the
            offline model plays `functions_responder`).

    Returns:
        A `GraphConfig` whose `client_tools` are `CLIENT_FUNCTIONS` and whose
        context comes from `functions_context`.

    """
    return GraphConfig(
        graph=build_functions_graph(
            chat_model(settings, responder=functions_responder)
        ),
        description=(
            "Calls functions that your client runs (the demo UI offers "
            "get_current_time and roll_dice), then answers with their results. "
            "Try: what time is it in Tokyo? or: roll two dice. "
            f"{answered_by(settings)}"
        ),
        client_tools=CLIENT_FUNCTIONS,
        context_factory=functions_context,
    )
