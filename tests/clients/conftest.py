"""The client matrix: real OpenAI clients, unmodified, against the running demo API.

Every test here talks to the demo API that ``tests/demo_services.py`` starts
once per session (``lgos serve lgos_demo_api.registry:create_registry`` on a
free loopback port, offline model, no delay); the ``demo_api_url`` fixture is
its OpenAI base URL. Nothing may leave the machine: the clients' own network
habits (tracing exports, model price downloads, telemetry) are switched off
here, before any of them is imported.
"""

from __future__ import annotations

import os

# The OpenAI Agents SDK exports traces to OpenAI unless told not to.
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
# LiteLLM downloads its model price map on import unless told to use its copy.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["LITELLM_TELEMETRY"] = "False"

# The fixtures the client modules share; the guards and the expectations they
# use live in guards.py and matrix.py.
from collections.abc import AsyncIterator, Iterator

import pytest
from openai import AsyncOpenAI, OpenAI

from tests.clients.cli_harness import WireProxy, demo_proxy
from tests.clients.guards import Wire, loopback_only, record_wire
from tests.clients.matrix import API_KEY


@pytest.fixture
def offline_only() -> Iterator[None]:
    """Block and fail any lookup or connection beyond loopback during a test."""
    with loopback_only() as blocked:
        yield
    assert not blocked, f"a client tried to leave the machine: {blocked}"


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Wire:
    """Record every request sent through httpx or httpx2 during a test."""
    return record_wire(monkeypatch)


@pytest.fixture
def cli_proxy(demo_api_url: str) -> Iterator[WireProxy]:
    """The recording proxy a command-line client reaches the demo API through
    (``cli_harness``); fails the test if the client tried to go elsewhere."""
    with demo_proxy(demo_api_url) as proxy:
        yield proxy
    assert not proxy.left, f"a client tried to leave the machine: {proxy.left}"


@pytest.fixture
def openai_client(demo_api_url: str) -> Iterator[OpenAI]:
    """The OpenAI SDK's client for the demo API (no retries)."""
    with OpenAI(base_url=demo_api_url, api_key=API_KEY, max_retries=0) as client:
        yield client


@pytest.fixture
async def async_openai_client(demo_api_url: str) -> AsyncIterator[AsyncOpenAI]:
    """The OpenAI SDK's async client for the demo API (no retries)."""
    async with AsyncOpenAI(
        base_url=demo_api_url, api_key=API_KEY, max_retries=0
    ) as client:
        yield client
