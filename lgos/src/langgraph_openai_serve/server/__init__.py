"""Run a registry factory as a server: ``lgos serve`` and :func:`create_app`.

Install ``langgraph-openai-serve[server]``.
"""

from langgraph_openai_serve.server.app import (
    create_app,
    load_factory,
    load_scope_resolver,
)
from langgraph_openai_serve.server.resources import (
    RegistryFactory,
    ServerResources,
    open_resources,
)
from langgraph_openai_serve.server.server_settings import ServerSettings

__all__ = [
    "RegistryFactory",
    "ServerResources",
    "ServerSettings",
    "create_app",
    "load_factory",
    "load_scope_resolver",
    "open_resources",
]
