"""A real LiteLLM proxy (the pinned release) in front of a real `lgos serve`.

``litellm_executable`` builds (once, cached) the pinned proxy's own
environment with ``scripts/ensure-litellm.sh``; without it the tests skip,
except under ``CI=true``, where they fail. ``gateway`` runs
``python -m lgos_demo_gateway serve`` (the sync, then the proxy as its child)
on a free loopback port in front of the session's demo API
(``tests/demo_services.py``: the offline model, no key), once per session,
with ``DEMO_GATEWAY_MCP_URL`` set to ``mcp_stub`` (``tests/gateway/mcp_stub.py``,
a FastMCP server), as ``just demo --gateway --mcp`` runs it: the gateway's
``/mcp`` serves that server's tools. The proxy's environment keeps it offline
(``LITELLM_LOCAL_MODEL_COST_MAP``, no telemetry, no database).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.demo_services import clean_env
from tests.procs import ROOT, ensured, free_port, running, wait_http
from tests.tiers import needs

MASTER_KEY = "gateway-test-key"
STARTUP_TIMEOUT = 240.0


@dataclass
class Gateway:
    """The running gateway: its addresses, settings and log."""

    url: str
    """The proxy's base URL, without ``/v1``."""
    mcp_server_url: str
    """The MCP server the gateway serves at ``/mcp`` (``mcp_stub``)."""
    env: dict[str, str]
    """The ``DEMO_GATEWAY_*`` environment ``serve`` runs with (for ``sync``)."""
    config: Path
    log: Path
    process: subprocess.Popen[bytes]

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def mcp_url(self) -> str:
        """LiteLLM's MCP gateway: every configured server's tools."""
        return f"{self.url}/mcp"

    def model_info(self) -> dict[str, dict]:
        """``GET /model/info`` as ``{model_name: model_info}``."""
        response = httpx.get(
            f"{self.url}/model/info",
            headers={"Authorization": f"Bearer {MASTER_KEY}"},
            timeout=10,
        )
        response.raise_for_status()
        return {m["model_name"]: m["model_info"] for m in response.json()["data"]}

    def sync(self, **overrides: str) -> subprocess.CompletedProcess[str]:
        """Run ``python -m lgos_demo_gateway sync`` with the gateway's settings."""
        return subprocess.run(
            [sys.executable, "-m", "lgos_demo_gateway", "sync"],
            env={**self.env, **overrides},
            cwd=self.config.parent,
            capture_output=True,
            text=True,
            timeout=STARTUP_TIMEOUT,
        )


@pytest.fixture(scope="session")
@needs("stack")
def litellm_executable() -> str:
    """The pinned proxy's ``litellm`` (``scripts/ensure-litellm.sh``)."""
    return ensured("ensure-litellm.sh", timeout=900)


@pytest.fixture(scope="session")
@needs("integration")
def mcp_stub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``tests/gateway/mcp_stub.py`` on a free port: its ``/mcp`` URL."""
    port = free_port()
    log = tmp_path_factory.mktemp("mcp-stub") / "mcp-stub.log"
    with running(
        [sys.executable, "-m", "tests.gateway.mcp_stub", "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/health",
        log=log,
    ):
        yield f"http://127.0.0.1:{port}/mcp"


def gateway_env(
    tmp: Path, litellm: str, lgos_base_url: str, port: int, mcp_url: str = ""
) -> dict[str, str]:
    env = clean_env()  # no DEMO_*, OPENAI_*, LGOS_* from the developer
    for name in ("DATABASE_URL", "LITELLM_MASTER_KEY", "STORE_MODEL_IN_DB"):
        env.pop(name, None)
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "DEMO_GATEWAY_LGOS_BASE_URL": lgos_base_url,
            "DEMO_GATEWAY_HOST": "127.0.0.1",
            "DEMO_GATEWAY_PORT": str(port),
            "DEMO_GATEWAY_MASTER_KEY": MASTER_KEY,
            "DEMO_GATEWAY_CONFIG_PATH": str(tmp / "litellm.yaml"),
            "DEMO_GATEWAY_LITELLM": litellm,
            "DEMO_GATEWAY_STARTUP_TIMEOUT": str(STARTUP_TIMEOUT),
            "DEMO_GATEWAY_WATCH_INTERVAL": "0.25",
            "DEMO_GATEWAY_MCP_URL": mcp_url,
        }
    )
    return env


@pytest.fixture(scope="session")
def gateway(
    litellm_executable: str,
    demo_api_url: str,
    mcp_stub: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Gateway]:
    """``python -m lgos_demo_gateway serve`` in front of the session's demo API.

    With ``mcp_stub`` as its MCP server (``DEMO_GATEWAY_MCP_URL``).
    """
    tmp = tmp_path_factory.mktemp("gateway")
    port = free_port()
    env = gateway_env(tmp, litellm_executable, demo_api_url, port, mcp_stub)
    log = tmp / "gateway.log"
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "lgos_demo_gateway", "serve"],
            cwd=tmp,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_http(f"{url}/health/liveliness", process, log, timeout=STARTUP_TIMEOUT)
        yield Gateway(url, mcp_stub, env, tmp / "litellm.yaml", log, process)
    finally:
        process.terminate()  # the supervisor stops its proxy
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
