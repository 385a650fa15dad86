"""The recorded-Bifrost intermediary in front of the session's real demo API.

``bifrost`` runs ``python -m tests.bifrost.recorded_bifrost`` (the rules
recorded from Bifrost v1.4.19, see that module) on a free loopback port once
per session, in front of the demo API that ``tests/demo_services.py`` starts
(the offline model, no key). The tests reach the demo API through it on both
of Bifrost's routes: ``/v1`` (models ``openai/<graph>``) and
``/openai_passthrough/v1`` (bare graph names).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.procs import free_port, running

PROVIDER_KEY = "bifrost-provider-key"
"""What the intermediary sends LGOS as its ``openai`` provider key."""


@dataclass(frozen=True)
class Bifrost:
    """The running intermediary's addresses."""

    url: str
    """Its origin, ``http://127.0.0.1:<port>``."""

    @property
    def v1(self) -> str:
        """The OpenAI-compatible route's base URL (models ``openai/<graph>``)."""
        return f"{self.url}/v1"

    @property
    def passthrough(self) -> str:
        """The passthrough route's base URL (bare graph names)."""
        return f"{self.url}/openai_passthrough/v1"


@pytest.fixture(scope="session")
def bifrost(
    demo_api_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Bifrost]:
    """The intermediary in front of the session's demo API."""
    port = free_port()
    log = tmp_path_factory.mktemp("bifrost") / "bifrost.log"
    origin = demo_api_url.removesuffix("/v1")
    command = [
        sys.executable,
        "-m",
        "tests.bifrost.recorded_bifrost",
        "--upstream",
        origin,
        "--key",
        PROVIDER_KEY,
        "--port",
        str(port),
    ]
    with running(command, ready_url=f"http://127.0.0.1:{port}/health", log=log):
        yield Bifrost(f"http://127.0.0.1:{port}")
