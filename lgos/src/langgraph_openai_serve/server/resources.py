"""Process-wide resources handed to a registry factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.server.settings import ServerSettings

__all__ = ["RegistryFactory", "ServerResources", "open_resources"]


@dataclass(frozen=True, slots=True)
class ServerResources:
    """What the server opens once per process for the registry factory.

    Attributes:
        checkpointer: LangGraph checkpointer for interrupt-enabled graphs.
        store: LangGraph store for application data.
        run_coordinator: Lease provider for interrupt runs, or None.

    """

    checkpointer: BaseCheckpointSaver
    store: BaseStore
    run_coordinator: Any = None


RegistryFactory = Callable[
    [ServerResources],
    GraphRegistry | AbstractAsyncContextManager[GraphRegistry],
]
"""A callable taking :class:`ServerResources` and returning a
:class:`GraphRegistry` or an async context manager yielding one."""


@asynccontextmanager
async def open_resources(settings: ServerSettings) -> AsyncIterator[ServerResources]:
    """Open the resources for one server process.

    The in-memory checkpointer and store serve tests and single-process
    development.

    Yields:
        The open :class:`ServerResources`, closed when the context exits.

    """
    del settings  # PostgreSQL-backed resources are selected from settings later.
    yield ServerResources(checkpointer=InMemorySaver(), store=InMemoryStore())
