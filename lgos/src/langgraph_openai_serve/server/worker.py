"""``lgos worker``: a Hatchet worker executing background Responses.

Beside ``lgos serve`` (:mod:`~langgraph_openai_serve.server.app`): both open
the same server resources and run the same registry factory, so the worker
resumes pauses with the checkpointer and coordinator the API uses.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import AsyncExitStack

from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.server.app import (
    enter_registry,
    install_tracing,
    load_factory,
)
from langgraph_openai_serve.server.resources import RegistryFactory, open_resources
from langgraph_openai_serve.server.settings import ServerSettings

__all__ = ["run_worker"]


def run_worker(
    factory: str | RegistryFactory, *, name: str = "lgos", slots: int | None = None
) -> None:
    """Run a Hatchet worker executing background Responses (``lgos worker``).

    The worker's lifespan opens the server resources (``LGOS_POSTGRES_URI``)
    and yields the registry that ``factory`` builds from them. Blocks until
    the worker stops.

    Args:
        factory: A :data:`RegistryFactory`, or its ``module:attribute`` path.
        name: The Hatchet worker name.
        slots: How many runs the worker executes at once (Hatchet's default
            when None).

    Raises:
        ImportError: The ``hatchet`` extra is not installed.

    """
    from langgraph_openai_serve.integrations.hatchet import (
        create_hatchet_task,
        hatchet_client,
    )

    settings = ServerSettings()
    install_tracing(settings)
    registry_factory = load_factory(factory) if isinstance(factory, str) else factory
    hatchet = hatchet_client()
    task = create_hatchet_task(hatchet)

    async def lifespan() -> AsyncGenerator[GraphRegistry, None]:
        async with AsyncExitStack() as stack:
            resources = await stack.enter_async_context(open_resources(settings))
            yield await enter_registry(stack, registry_factory, resources)

    worker = hatchet.worker(name, slots=slots, workflows=[task], lifespan=lifespan)
    worker.start()
