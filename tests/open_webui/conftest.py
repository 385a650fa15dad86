"""Load the Open WebUI pipe module the way Open WebUI does: from its file.

The pipe is one module under ``ui/open-webui`` (not a package of the
workspace); the tests import it by path and point it at the real offline demo
API in-process (the root conftest's ``demo_client``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from openai import AsyncOpenAI

PIPE_FILE = Path(__file__).resolve().parents[2] / "ui" / "open-webui" / "lgos_pipe.py"


def load_pipe_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lgos_pipe", PIPE_FILE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lgos_pipe"] = module
    spec.loader.exec_module(module)
    return module


lgos_pipe = load_pipe_module()


@pytest.fixture
def pipe(demo_client: AsyncOpenAI, tmp_path: Path):
    """A ``Pipe`` on the in-process offline demo, its ledger under tmp_path."""
    instance = lgos_pipe.Pipe()
    instance.client_factory = lambda: demo_client
    instance.valves.STATE_PATH = str(tmp_path / "ledger.sqlite3")
    return instance


@pytest.fixture
async def background_pipe(tmp_path: Path):
    """A ``Pipe`` on the offline demo with the in-memory background engine."""
    import httpx
    from fastapi import FastAPI
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore

    from langgraph_openai_serve import LanggraphOpenaiServe
    from langgraph_openai_serve.background import InMemoryBackgroundBackend
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
    registry = create_registry(resources, settings=settings)
    backend = InMemoryBackgroundBackend(registry)
    app = FastAPI()
    LanggraphOpenaiServe(registry, app, background=backend).bind_openai_api()
    async with (
        backend.lifespan(),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http,
    ):
        client = AsyncOpenAI(
            base_url="http://lgos/v1",
            api_key="x",
            http_client=http,  # pyright: ignore[reportArgumentType]
            max_retries=0,
        )
        instance = lgos_pipe.Pipe()
        instance.client_factory = lambda: client
        instance.valves.STATE_PATH = str(tmp_path / "ledger.sqlite3")
        instance.valves.POLL_INTERVAL = 0.05
        yield instance
