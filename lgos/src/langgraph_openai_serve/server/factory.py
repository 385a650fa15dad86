"""Find the registry factory and build its registry: what ``lgos`` checks of its target.

:func:`load_factory` imports ``module:attribute`` and refuses the likeliest
wrong targets by name before a server starts; :func:`enter_registry` calls the
factory with the process's resources when it starts, and names what a factory
returned instead of a ``GraphRegistry``. ``lgos serve`` and ``lgos worker``
(through :mod:`~langgraph_openai_serve.server.app` and
:mod:`~langgraph_openai_serve.server.worker`) share them.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette

from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.server.resources import RegistryFactory, ServerResources

__all__ = [
    "RegistryFactoryError",
    "enter_registry",
    "import_attribute",
    "load_factory",
    "registry_factory_failed",
]

logger = logging.getLogger(__name__)


class RegistryFactoryError(TypeError):
    """The registry factory returned something other than a ``GraphRegistry``.

    Raised by :func:`enter_registry` when the server starts (the factory
    needs the process's resources, so it cannot be called earlier), after
    logging its message as one ERROR line; ``lgos serve`` then exits with
    status 2, as for the other factory mistakes it finds before starting.
    """


_factory_failures: list[str] = []
"""The messages of this process's registry factory failures at startup."""


def registry_factory_failed() -> bool:
    """Whether an app of this process stopped starting on its registry factory.

    True after :class:`RegistryFactoryError`, or a ``ValueError``/``TypeError``
    the factory raised. ``lgos serve`` asks it when Uvicorn's startup failed,
    to exit with status 2 (a wrong factory) instead of Uvicorn's 3.
    """
    return bool(_factory_failures)


def import_attribute(path: str) -> Any:
    """Import ``"package.module:attribute"`` (dotted attributes allowed).

    Raises:
        ValueError: ``path`` is not ``module:attribute``, or the module or
            the attribute does not exist.

    """
    module_name, _, attribute = path.partition(":")
    if not module_name or not attribute:
        msg = f"Expected 'module:attribute', got {path!r}."
        raise ValueError(msg)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        msg = f"Cannot import module {module_name!r}: {exc}."
        raise ValueError(msg) from exc
    found: Any = module
    for name in attribute.split("."):
        try:
            found = getattr(found, name)
        except AttributeError:
            msg = f"Module {module_name!r} has no attribute {attribute!r}."
            raise ValueError(msg) from None
    return found


def load_factory(path: str) -> RegistryFactory:
    """Import a registry factory from ``"package.module:attribute"``.

    Raises:
        ValueError: ``path`` is not ``module:attribute``, the module or the
            attribute does not exist, or the attribute is not a factory: a
            ``GraphRegistry`` or an ASGI application (the two likeliest
            mistakes, each named in the message), anything not callable, or
            a callable that cannot be called with the one argument LGOS
            passes (:class:`ServerResources`), such as ``def f(): ...``.

    """
    factory = import_attribute(path)
    if isinstance(factory, GraphRegistry):
        msg = (
            f"{path!r} is a GraphRegistry, not a registry factory: point lgos at "
            "a function that takes ServerResources and returns the registry "
            "(def create_registry(resources): return registry)."
        )
        raise ValueError(msg)
    if isinstance(factory, Starlette):
        msg = (
            f"{path!r} is an ASGI application, not a registry factory: lgos "
            "builds the application itself from a function that takes "
            "ServerResources and returns a GraphRegistry (or run this app with "
            f"uvicorn {path})."
        )
        raise ValueError(msg)
    if not callable(factory):
        msg = f"{path!r} is not callable."
        raise ValueError(msg)
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin or C callable: call it and see
        return factory  # type: ignore[return-value]
    try:
        signature.bind(None)
    except TypeError:
        msg = (
            f"{path!r} cannot take the one argument lgos passes (ServerResources), "
            f"its signature is {signature}: write it as "
            "def create_registry(resources): return registry."
        )
        raise ValueError(msg) from None
    return factory  # type: ignore[return-value]


def _reason(exc: ValueError | TypeError) -> str:
    """One line of what the factory raised; a pydantic error as model: reason."""
    if isinstance(exc, ValidationError):
        reasons = [
            str(error["msg"]).removeprefix("Value error, ") for error in exc.errors()
        ]
        return f"{exc.title}: {'; '.join(reasons)}"
    return " ".join(line.strip() for line in str(exc).splitlines()) or repr(exc)


async def enter_registry(
    stack: AsyncExitStack, factory: RegistryFactory, resources: ServerResources
) -> GraphRegistry:
    """Build the registry, entering it when the factory returns a context manager.

    Raises:
        RegistryFactoryError: The factory produced something other than a
            GraphRegistry (a ``TypeError``); the message names what it
            returned and the ``return`` it needs, and is logged at ERROR
            first.
        ValueError, TypeError: As the factory raised them (a GraphRegistry or
            GraphConfig refusing its arguments, a pydantic ``ValidationError``
            among them), after logging their message as one ERROR line; ``lgos
            serve`` then exits with status 2 too.

    """
    try:
        made = factory(resources)
        if isinstance(made, AbstractAsyncContextManager):
            registry = await stack.enter_async_context(made)
        else:
            registry = made
    except (ValueError, TypeError) as exc:
        # A GraphRegistry or GraphConfig refusing what the factory built (a
        # missing description, interrupts without a run coordinator, ...):
        # one readable line before Uvicorn's traceback, and exit status 2.
        msg = f"The registry factory failed: {_reason(exc)}"
        logger.error("%s", msg)
        _factory_failures.append(msg)
        raise
    if not isinstance(registry, GraphRegistry):
        got = "None" if registry is None else f"a {type(registry).__name__}"
        msg = (
            f"The registry factory returned {got}, not a GraphRegistry: end it "
            "with `return GraphRegistry(graphs={...})`."
        )
        # One readable line before the traceback (Uvicorn's, at startup).
        logger.error("%s", msg)
        _factory_failures.append(msg)
        raise RegistryFactoryError(msg)
    return registry
