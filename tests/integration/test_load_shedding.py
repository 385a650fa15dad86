"""Load shedding on a real `lgos serve`: a burst beyond the cap is refused at once.

Issue 39, row 6: 1,500 streams sent at once made `GET /v1/models` wait 20 s.
With `LGOS_MAX_CONCURRENT_RUNS`, the runs beyond the cap get a retryable 503
`server_overloaded` with `Retry-After` at once, and the models list and the
probes keep answering during the burst (half within 0.5 s, none as slow as a
run; the figures under load are the benchmarks' business).
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.lgos.slow_graphs import SLOW_SECONDS
from tests.procs import free_port, lgos_command, running

pytestmark = [pytest.mark.integration]

FACTORY = "tests.lgos.slow_graphs:serve_slow_registry"
CAP = 20
BURST = 300


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("shed") / "api.log"
    port = free_port()
    with running(
        [*lgos_command(), "serve", FACTORY, "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/health/ready",
        log=log,
        env={"LGOS_MAX_CONCURRENT_RUNS": str(CAP)},
    ):
        yield f"http://127.0.0.1:{port}"


async def _stream(client: httpx.AsyncClient) -> tuple[int, str | None, float]:
    started = time.monotonic()
    body = {"model": "slow", "input": "hi", "stream": True}
    async with client.stream("POST", "/v1/responses", json=body) as reply:
        text = (await reply.aread()).decode()
    retry_after = reply.headers.get("retry-after")
    if reply.status_code == 503:
        assert '"server_overloaded"' in text
    else:
        assert "response.completed" in text
    return reply.status_code, retry_after, time.monotonic() - started


def _probe_during(url: str, done: threading.Event) -> list[float]:
    """Time the models list and the probes, from a thread of their own, until ``done``."""
    took: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as client:
        while not done.is_set():
            for path in ("/v1/models", "/health/ready", "/health/live"):
                started = time.monotonic()
                reply = client.get(path)
                assert reply.status_code == 200, reply.text
                took.append(time.monotonic() - started)
            time.sleep(0.1)
    return took


async def _burst(url: str) -> list[tuple[int, str | None, float]]:
    limits = httpx.Limits(max_connections=BURST + 10, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        return await asyncio.gather(*[_stream(client) for _ in range(BURST)])


def test_a_burst_beyond_the_cap_is_refused_at_once(url: str) -> None:
    done = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        probing = pool.submit(_probe_during, url, done)
        try:
            results = asyncio.run(_burst(url))
        finally:
            done.set()
        probes = probing.result()
    statuses = Counter(status for status, _, _ in results)
    assert set(statuses) == {200, 503}, statuses
    assert statuses[200] >= CAP
    refused = [(after, took) for status, after, took in results if status == 503]
    assert all(after == "1" for after, _ in refused)
    # Refused at once, not after waiting for a slot.
    assert max(took for _, took in refused) < SLOW_SECONDS
    # The probes answer at once: half of them within 0.5 s, and none waits as
    # long as a run does (before the cap, the models list waited 20 s). One
    # slow probe on a loaded machine is the machine: this process's burst
    # client shares the interpreter with the probing thread.
    assert statistics.median(probes) < 0.5, probes
    assert max(probes) < SLOW_SECONDS, probes


def test_the_slots_come_back(url: str) -> None:
    async def one() -> int:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            replies = await asyncio.gather(
                *[
                    client.post("/v1/responses", json={"model": "slow", "input": "x"})
                    for _ in range(CAP)
                ]
            )
        return sum(reply.status_code == 200 for reply in replies)

    assert asyncio.run(one()) == CAP
