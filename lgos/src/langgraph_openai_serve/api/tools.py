"""Check a request's tools against the graph's server-tool allowlist."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from langgraph_openai_serve.api.messages import has_file_blocks
from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.server_tools import WEB_SEARCH

__all__ = ["check_file_inputs", "check_tools"]


def check_file_inputs(
    config: GraphConfig, model: str, messages: list[BaseMessage]
) -> None:
    """Reject file parts for graphs that do not declare ``FILE_INPUTS``.

    Raises:
        InvalidRequestError: 400 with ``param="input"``/``messages``.

    """
    if not config.supports(GraphFeature.FILE_INPUTS) and has_file_blocks(messages):
        raise InvalidRequestError(
            f"The model '{model}' does not accept file inputs.", param="input"
        )


def check_tools(
    config: GraphConfig, request: GraphRequest, tool_names: list[str]
) -> None:
    """Apply ``GraphConfig.server_tools`` to the tools a request declared.

    Rules (LGOS server tools): a selected custom tool or ``web_search`` must
    be in the graph's allowlist; a client function must not reuse a server
    tool's name.

    Args:
        config: The graph's registration.
        request: The decoded request.
        tool_names: The request's tool names in declaration order
            (``web_search`` for the built-in), for error parameters.

    Raises:
        InvalidRequestError: 400 with ``param`` naming the offending tool.

    """
    server = set(request.server_tools)
    for index, name in enumerate(tool_names):
        if name in server and name not in config.server_tools:
            what = "web search" if name == WEB_SEARCH else f"the custom tool '{name}'"
            raise InvalidRequestError(
                f"The model '{request.model}' does not offer {what}.",
                param=f"tools[{index}]",
            )
        if name not in server and name in config.server_tools:
            raise InvalidRequestError(
                f"'{name}' is a server tool of this model; a client function "
                "cannot reuse its name.",
                param=f"tools[{index}].name",
            )
