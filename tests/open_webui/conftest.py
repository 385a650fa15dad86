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

from tests.conftest import background_demo_http

PIPE_FILE = Path(__file__).resolve().parents[2] / "ui" / "open-webui" / "lgos_pipe.py"
GENERATOR_FILE = PIPE_FILE.with_name("generate.py")


def _load(name: str, path: Path) -> ModuleType:
    """Import a module that is no package's, from its file, as ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_pipe_module() -> ModuleType:
    """Import the generated pipe, ``ui/open-webui/lgos_pipe.py``, as Open WebUI does."""
    return _load("lgos_pipe", PIPE_FILE)


lgos_pipe = load_pipe_module()


def load_generator() -> ModuleType:
    """Import ``ui/open-webui/generate.py`` (not a package) by its path."""
    return _load("lgos_pipe_generator", GENERATOR_FILE)


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
    async with background_demo_http() as http:
        client = AsyncOpenAI(
            base_url="http://lgos/v1",
            api_key="x",
            http_client=http,
            max_retries=0,
        )
        instance = lgos_pipe.Pipe()
        instance.client_factory = lambda: client
        instance.valves.STATE_PATH = str(tmp_path / "ledger.sqlite3")
        instance.valves.POLL_INTERVAL = 0.05
        yield instance
