"""The protocol-neutral request that graph adapters receive.

Both API decoders (Responses and Chat Completions) produce a
:class:`GraphRequest`; graph adapters (``request_to_input``,
``context_factory``) never see raw OpenAI transport models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph_openai_serve.graph.generation import GenerationSettings

__all__ = [
    "ClientFunctionTool",
    "GraphRequest",
    "NamedCustomToolChoice",
    "NamedFunctionToolChoice",
    "ToolChoice",
]


@dataclass(frozen=True, slots=True)
class ClientFunctionTool:
    """A client-owned function the graph may ask the client to call.

    Attributes:
        name: Function name, as declared by the client.
        description: Optional description for the model.
        parameters: JSON Schema object of the arguments, or None.
        strict: OpenAI's ``strict`` flag, or None when unspecified.

    """

    name: str
    description: str | None = None
    parameters: Mapping[str, Any] | None = None
    strict: bool | None = None


@dataclass(frozen=True, slots=True)
class NamedFunctionToolChoice:
    """``tool_choice`` naming one client function the model must call."""

    name: str


@dataclass(frozen=True, slots=True)
class NamedCustomToolChoice:
    """``tool_choice`` naming one registered server custom tool."""

    name: str


ToolChoice = (
    Literal["none", "auto", "required"]
    | NamedFunctionToolChoice
    | NamedCustomToolChoice
    | None
)
"""Normalized ``tool_choice``: None when the client did not send one."""


@dataclass(frozen=True, slots=True)
class GraphRequest:
    """One OpenAI request, normalized for graph adapters.

    Attributes:
        model: The registered model (graph) name.
        metadata: The request's string metadata, LGOS keys included
            (``lgos_settings``); a read-only mapping.
        user: The end user from ``safety_identifier`` or the deprecated
            ``user`` field, or None.
        tools: Normalized client function tools.
        tool_choice: Normalized tool choice, or None when omitted.
        parallel_tool_calls: The client's ``parallel_tool_calls``, or None.
        server_tools: Names of the registered server tools this request
            selected.
        generation: The generation controls the request sent (``temperature``,
            the output-token limit, ...), validated; all None when it sent
            none. Only controls the graph declares in
            ``GraphConfig.generation_controls`` are ever set.
        scope: The server-trusted scope the run belongs to: its checkpoint
            scope (the tenant of the request's API key, the value of the
            application's scope resolver, or ``"default"``). LGOS sets it
            when it prepares the run, whatever the request carried, so a
            ``context_factory`` can keep one tenant's data (files, records)
            apart from another's. Nothing a client sends can choose it.

    """

    model: str
    metadata: Mapping[str, str] = field(default_factory=dict)
    user: str | None = None
    tools: tuple[ClientFunctionTool, ...] = ()
    tool_choice: ToolChoice = None
    parallel_tool_calls: bool | None = None
    server_tools: tuple[str, ...] = ()
    generation: GenerationSettings = field(default_factory=GenerationSettings)
    scope: str = "default"
