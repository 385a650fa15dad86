"""The `mcp` graph: calls the tools of the client's MCP server, then answers.

The graph declares `GraphFeature.MCP_TOOLS`: a client that has an MCP server
(or an MCP gateway) attached discovers its tools, sends them as ordinary
function `tools`, runs each returned `function_call` through MCP and sends
the result back as `function_call_output` (Chat Completions: `tool_calls`
and `role: "tool"` messages). LGOS itself never talks MCP and publishes no
tool names for this graph (`client_tools` stays empty): which tools exist is
up to the client's server.

The graph is the `functions` graph (`build_functions_graph`) with its own
system prompt: one `agent` node binding the request's tools, honouring
`tool_choice` and `parallel_tool_calls`. With a real model that is the
ordinary tool-calling loop. Offline, `mcp_responder` (in
`mcp_tools_offline`) chooses among the offered tools by their names and
descriptions, one call per answer, and answers from the results.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from langgraph_openai_serve import GraphConfig, GraphFeature
from lgos_demo_api.graphs.functions import (
    FunctionsGraph,
    build_functions_graph,
    functions_context,
)
from lgos_demo_api.graphs.mcp_tools_offline import EXAMPLE_PROMPT, mcp_responder
from lgos_demo_api.models import answered_by, chat_model
from lgos_demo_api.settings import DemoApiSettings

__all__ = ["SYSTEM_PROMPT", "build_mcp_graph", "mcp_graph_config"]

SYSTEM_PROMPT = (
    "You are a helpful assistant with tools from the user's MCP server. Use "
    "them whenever they can do or check part of the request, one step at a "
    "time when a later step needs an earlier result (for example, save a "
    "conversion only after you have it). When a tool fails, say so and why "
    "instead of retrying blindly. Answer from the tool results and mention "
    "which tools you used."
)


def build_mcp_graph(model: BaseChatModel) -> FunctionsGraph:
    """Compile the `mcp` graph around a chat model.

    Args:
        model: Any LangChain chat model (`ChatOpenAI`, `OfflineChatModel`, ...).

    Returns:
        `build_functions_graph` with `SYSTEM_PROMPT`, named `mcp`.

    """
    return build_functions_graph(model, system_prompt=SYSTEM_PROMPT, name="mcp")


def mcp_graph_config(settings: DemoApiSettings) -> GraphConfig:
    """Register the `mcp` graph with the model the settings select.

    Args:
        settings: The demo settings (`chat_model` picks OpenAI or offline; the
            offline model plays `mcp_responder`).

    Returns:
        A `GraphConfig` with the `MCP_TOOLS` feature, no `client_tools`, and
        its context from `functions_context`.

    """
    return GraphConfig(
        graph=build_mcp_graph(chat_model(settings, responder=mcp_responder)),
        description=(
            "Calls the tools of the MCP server your client attaches (the demo "
            "UI with `just demo --mcp` attaches the demo MCP server: unit "
            "conversion, notes, a docs search), then answers from their "
            "results. Needs a client with an MCP server attached. "
            f"Try: {EXAMPLE_PROMPT}. {answered_by(settings)}"
        ),
        features=frozenset({GraphFeature.MCP_TOOLS}),
        context_factory=functions_context,
    )
