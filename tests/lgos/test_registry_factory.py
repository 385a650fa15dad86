"""What a registry factory must return, and the error that says what it returned."""

from __future__ import annotations

from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest

from langgraph_openai_serve.server.app import enter_registry
from langgraph_openai_serve.server.factory import RegistryFactoryError
from tests.lgos.graphs import make_registry

pytestmark = pytest.mark.anyio


async def _enter(made: Any) -> Any:
    async with AsyncExitStack() as stack:
        return await enter_registry(stack, lambda _resources: made, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("made", "named"), [(None, "returned None"), ({}, "returned a dict")]
)
async def test_a_factory_without_a_registry_is_named(made: Any, named: str) -> None:
    with pytest.raises(RegistryFactoryError) as raised:
        await _enter(made)
    assert named in str(raised.value)
    assert "return GraphRegistry(" in str(raised.value)


async def test_a_registry_or_a_context_of_one_is_entered() -> None:
    registry = make_registry()
    assert await _enter(registry) is registry

    @asynccontextmanager
    async def opened() -> Any:
        yield registry

    assert await _enter(opened()) is registry
