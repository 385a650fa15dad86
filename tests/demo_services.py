"""The demo API and Files service as real processes, shared by the session.

The documentation's code addresses them as ``http://127.0.0.1:8000`` and
``http://127.0.0.1:8003``, and the demo MCP server as ``http://127.0.0.1:8005``,
as a reader running ``just demo --mcp`` would; the docs runner maps those
origins to these processes. The client matrix
(``tests/clients``) drives the same demo API with real OpenAI clients. Both
run offline: free ports, the offline model without delay, temporary storage,
a working directory without the developer's ``.env``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from tests.procs import free_port, wait_http
from tests.tiers import needs

BIN = Path(sys.executable).parent
DEMO_API = "http://127.0.0.1:8000"
DEMO_FILES = "http://127.0.0.1:8003"
DEMO_MCP = "http://127.0.0.1:8005"
# Variables that would make the demo use a real provider or another service.
SCRUBBED = ("OPENAI_", "DEMO_", "LGOS_", "HATCHET_", "LANGFUSE_", "OTEL_")


def clean_env() -> dict[str, str]:
    """The environment without provider keys or demo and LGOS settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
    env["PYTHONUNBUFFERED"] = "1"
    env["NO_PROXY"] = "127.0.0.1,localhost"
    return env


@contextmanager
def service_process(
    name: str,
    args: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    ready: str,
    timeout: float = 90,
) -> Iterator[None]:
    """Run ``args`` in ``cwd`` with exactly ``env`` until the block ends.

    Output goes to ``cwd/<name>.log``; the block starts once ``ready`` (a
    URL) answers below 500, within ``timeout`` seconds.

    Raises:
        RuntimeError: The process exited before ``ready`` answered.
        AssertionError: ``ready`` did not answer in time (``tests.waiting``).

    """
    log = cwd / f"{name}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            args, cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        wait_http(ready, process, log, timeout=timeout)
        yield
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@contextmanager
def files_service(
    cwd: Path, *, api_key: str | None = None, env: dict[str, str] | None = None
) -> Iterator[str]:
    """The Files service on a free port, its objects and metadata under
    ``cwd/files``; yields its address (``http://127.0.0.1:<port>``, the
    OpenAI-compatible routes under ``/v1``). ``api_key`` replaces the
    development default key; ``env`` adds settings (``DEMO_FILES_API_KEYS``)."""
    port = free_port()
    settings = clean_env() | {
        "DEMO_FILES_STORAGE_URL": str(cwd / "files" / "objects"),
        "DEMO_FILES_DATABASE_URL": str(cwd / "files" / "metadata.sqlite3"),
    }
    settings |= env or {}
    if api_key is not None:
        settings["DEMO_FILES_API_KEY"] = api_key
    url = f"http://127.0.0.1:{port}"
    with service_process(
        "files",
        [sys.executable, "-m", "lgos_demo_files", "--port", str(port)],
        env=settings,
        cwd=cwd,
        ready=f"{url}/health",
    ):
        yield url


@contextmanager
def demo_api(
    cwd: Path,
    files_url: str,
    *,
    files_key: str | None = None,
    chunk_delay: float = 0.0,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """The demo API (``lgos serve``, the offline model) on a free port, its
    ``display_file`` files in the Files service at ``files_url`` (with
    ``files_key`` when given); yields its address (``http://127.0.0.1:<port>``,
    the OpenAI routes under ``/v1``). ``chunk_delay``: seconds between the
    offline model's chunks; ``env`` adds settings (``LGOS_API_KEYS``)."""
    port = free_port()
    settings = clean_env() | {
        "DEMO_API_OFFLINE_CHUNK_DELAY": str(chunk_delay),
        "DEMO_API_FILES_BASE_URL": f"{files_url}/v1",
    }
    if files_key is not None:
        settings["DEMO_API_FILES_API_KEY"] = files_key
    settings |= env or {}
    url = f"http://127.0.0.1:{port}"
    with service_process(
        "api",
        [
            str(BIN / "lgos"),
            "serve",
            "lgos_demo_api.registry:create_registry",
            "--port",
            str(port),
        ],
        env=settings,
        cwd=cwd,
        ready=f"{url}/v1/health",
    ):
        yield url


@pytest.fixture(scope="session")
@needs("integration")
def demo_url_map(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Start the Files service, the demo API and the demo MCP server; map the
    documented origins."""
    cwd = tmp_path_factory.mktemp("docs-services")
    mcp_port = free_port()
    with ExitStack() as stack:
        files = stack.enter_context(files_service(cwd))
        api = stack.enter_context(demo_api(cwd, files))
        stack.enter_context(
            service_process(
                "mcp",
                [
                    sys.executable,
                    "-m",
                    "lgos_demo_api.mcp_server",
                    "--port",
                    str(mcp_port),
                ],
                env=clean_env()
                | {"DEMO_MCP_NOTES_PATH": str(cwd / "mcp" / "notes.json")},
                cwd=cwd,
                ready=f"http://127.0.0.1:{mcp_port}/health",
            )
        )
        yield {
            DEMO_API: api,
            DEMO_FILES: files,
            DEMO_MCP: f"http://127.0.0.1:{mcp_port}",
        }


@pytest.fixture(scope="session")
def demo_api_url(demo_url_map: dict[str, str]) -> str:
    """The running demo API's OpenAI base URL (``http://127.0.0.1:<port>/v1``)."""
    return f"{demo_url_map[DEMO_API]}/v1"
