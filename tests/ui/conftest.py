"""Chainlit UI tests; the root conftest points Chainlit at ui/chainlit first.

The fixtures here are shared by several test files: ``files``, an OpenAI
client on the Files app in process, and the UI's Chainlit ``app`` on the
in-process demo API and Files app (``clients``, ``lgos_transport``,
``files_transport``).
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType

import chainlit.data
import httpx
import httpx2
import openai
import pytest

from lgos_demo_files import FilesSettings, create_app
from tests.conftest import demo_app
from tests.ui.files_app import API_KEY
from tests.ui.in_process import Clients


@pytest.fixture
async def files(tmp_path: Path) -> AsyncIterator[openai.AsyncOpenAI]:
    settings = FilesSettings(
        _env_file=None,  # type: ignore[call-arg]
        api_key=API_KEY,  # type: ignore[arg-type]
        storage_url=str(tmp_path / "objects"),
        database_url=str(tmp_path / "meta.sqlite3"),
        sweep_interval_seconds=0,
    )
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http,
    ):
        yield openai.AsyncOpenAI(
            base_url="http://files/v1",
            api_key=API_KEY,
            http_client=http,
            max_retries=0,
        )


@pytest.fixture
def lgos_transport() -> httpx2.AsyncBaseTransport:
    """The offline demo API, in process (the root conftest's :func:`demo_app`)."""
    app = demo_app()
    return httpx2.ASGITransport(app=app)


@pytest.fixture
async def files_transport(tmp_path: Path) -> AsyncIterator[httpx2.AsyncBaseTransport]:
    settings = FilesSettings(
        _env_file=None,  # type: ignore[call-arg]
        api_key=API_KEY,
        storage_url=str(tmp_path / "objects"),
        database_url=str(tmp_path / "meta.sqlite3"),
        sweep_interval_seconds=0,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield httpx2.ASGITransport(app=app)


@pytest.fixture
async def clients(
    lgos_transport: httpx2.AsyncBaseTransport,
    files_transport: httpx2.AsyncBaseTransport,
) -> AsyncIterator[Clients]:
    made = Clients(lgos_transport, files_transport)
    yield made
    for client in made.made:
        await client.close()


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch, clients: Clients) -> ModuleType:
    """The UI's Chainlit app, without a data layer, on in-process services."""
    module = importlib.import_module("lgos_chainlit.app")
    chat_state = importlib.import_module("lgos_chainlit.chat_state")
    monkeypatch.setattr(chainlit.data, "_data_layer", None)
    monkeypatch.setattr(chainlit.data, "_data_layer_initialized", True)
    monkeypatch.setattr(module, "make_client", clients.lgos_client)
    monkeypatch.setattr(chat_state, "make_client", clients.lgos_client)
    monkeypatch.setattr(chat_state, "make_files_client", clients.files_client)
    monkeypatch.setattr(module, "RESUME_ASK_DELAY", 0.05)
    return module
