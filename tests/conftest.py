import atexit
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI

# The plugins below are imported by the helpers next (tests.pg needs tiers):
# registered first, pytest loads them with its assertion rewriting all the same.
pytest.register_assert_rewrite("tests.tiers", "tests.timing", "tests.order")

from tests.chainlit_root import app_root  # noqa: E402
from tests.demo_services import demo_api_url, demo_url_map  # noqa: E402, F401 - shared
from tests.pg import postgres_uri, restartable_postgres  # noqa: E402, F401 - shared

# Test tiers (markers, checked at collection), --timings with the time budget
# (--budget-total, --budget-test), and the slowest files first (for xdist).
pytest_plugins = ("tests.tiers", "tests.timing", "tests.order")

# Chainlit reads its app root (ui/chainlit/.chainlit/config.toml) when it is
# first imported and writes default files into the working directory when that
# root lacks them; point it at the UI's config before any test imports
# chainlit, through a root of this process's own (tests/chainlit_root.py: a
# Chainlit server another xdist worker stops would delete a shared .files).
_CHAINLIT_ROOT = tempfile.mkdtemp(prefix="lgos-chainlit-root-")
atexit.register(shutil.rmtree, _CHAINLIT_ROOT, True)
os.environ.setdefault("CHAINLIT_APP_ROOT", str(app_root(Path(_CHAINLIT_ROOT))))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def demo_registry() -> Any:
    """The offline demo registry (``lgos_demo_api.registry``) in memory.

    In-memory checkpointer, store and run coordinator; the offline model
    streams without delay.
    """
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
    from langgraph_openai_serve.server import ServerResources
    from lgos_demo_api.registry import create_registry
    from lgos_demo_api.settings import DemoApiSettings

    settings = DemoApiSettings(
        _env_file=None,  # type: ignore[call-arg]
        openai_api_key=None,
        offline_chunk_delay=0.0,
    )
    resources = ServerResources(
        checkpointer=InMemorySaver(),
        store=InMemoryStore(),
        run_coordinator=InMemoryRunCoordinator(),
    )
    return create_registry(resources, settings=settings)


def demo_app(registry: Any = None, *, background: Any = None) -> Any:
    """A FastAPI app serving ``registry`` (default :func:`demo_registry`)
    in-process, with ``background`` as its background engine (none: a
    ``background=true`` request is refused)."""
    from fastapi import FastAPI

    from langgraph_openai_serve import LanggraphOpenaiServe

    app = FastAPI()
    LanggraphOpenaiServe(
        registry if registry is not None else demo_registry(),
        app,
        background=background,
    ).bind_openai_api()
    return app


@asynccontextmanager
async def background_demo_http() -> AsyncIterator[Any]:
    """An ``httpx.AsyncClient`` on :func:`demo_app` (base ``http://lgos``)
    with the in-memory background engine running: ``background=true``
    Responses run as tasks of this event loop."""
    import httpx

    from langgraph_openai_serve.background import InMemoryBackgroundBackend

    registry = demo_registry()
    backend = InMemoryBackgroundBackend(registry)
    app = demo_app(registry, background=backend)
    async with (
        backend.lifespan(),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://lgos"
        ) as http,
    ):
        yield http


@pytest.fixture
async def demo_client() -> AsyncIterator[AsyncOpenAI]:
    """The OpenAI SDK talking to :func:`demo_app`."""
    import httpx

    app = demo_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http:
        yield AsyncOpenAI(
            base_url="http://lgos/v1", api_key="test", http_client=http, max_retries=0
        )
