"""``lgos worker``: a Hatchet worker executing background Responses.

Beside ``lgos serve`` (:mod:`~langgraph_openai_serve.server.app`): both open
the same server resources and run the same registry factory, so the worker
resumes pauses with the checkpointer and coordinator the API uses.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import AsyncExitStack

from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_stop import RunStop
from langgraph_openai_serve.server.app import (
    enter_registry,
    install_tracing,
    load_factory,
)
from langgraph_openai_serve.server.resources import RegistryFactory, open_resources
from langgraph_openai_serve.server.server_settings import ServerSettings
from langgraph_openai_serve.server.shutdown import stop_after_grace

__all__ = ["run_worker"]


def run_worker(
    factory: str | RegistryFactory, *, name: str = "lgos", slots: int | None = None
) -> None:
    """Run a Hatchet worker executing background Responses (``lgos worker``).

    The worker's lifespan opens the server resources (``LGOS_POSTGRES_URI``)
    and yields the registry that ``factory`` builds from them. Blocks until
    the worker stops.

    On SIGTERM the Hatchet SDK stops taking tasks and waits for the running
    ones, then the worker exits 0; ``lgos worker`` adds a bound: runs still
    executing ``LGOS_SHUTDOWN_GRACE_SECONDS`` after the signal (or at a
    second SIGTERM) are stopped, their Responses end ``failed`` (a resume
    keeps its pause) and their leases are released.

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
    stop = RunStop()
    task = create_hatchet_task(hatchet, stop=stop)

    async def lifespan() -> AsyncGenerator[GraphRegistry, None]:
        async with AsyncExitStack() as stack:
            resources = await stack.enter_async_context(open_resources(settings))
            registry = await enter_registry(stack, registry_factory, resources)
            # The SDK installed its SIGTERM handler when the worker was built.
            restore = stop_after_grace(stop, settings.shutdown_grace_seconds)
            if restore is not None:
                stack.callback(restore)
            yield registry

    worker = hatchet.worker(name, slots=slots, workflows=[task], lifespan=lifespan)
    worker.start()
