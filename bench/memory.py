"""Memory of the LGOS server process: idle streams, and growth over many requests.

Both figures use a fresh ``lgos serve`` process and read its resident set
size (RSS, MiB) with psutil.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.figures import RESPONSES_BODY, Bench
from bench.harness import JSON_HEADERS, Call, Server, encode


async def run_count(call: Call, total: int, concurrency: int) -> float:
    """Run ``call`` exactly ``total`` times from ``concurrency`` workers; seconds."""
    remaining = total

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            await call()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - start


async def idle_streams(bench: Bench, server: Server, count: int) -> dict[str, Any]:
    """RSS with ``count`` Responses streams open on the ``idle`` graph.

    Each stream is held after its ``response.created`` event while the graph
    waits; then every client disconnects, which must cancel the runs.
    """
    url = f"{server.base}/v1/responses"
    data = encode({"model": "idle", "input": "hi", "stream": True})
    opened = 0
    all_open, release = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        nonlocal opened
        async with bench.session.post(url, data=data, headers=JSON_HEADERS) as reply:
            if reply.status != 200:
                raise RuntimeError(f"idle stream: {reply.status}")
            async for line in reply.content:
                if line.startswith(b"event: response.created"):
                    break
            opened += 1
            if opened == count:
                all_open.set()
            await release.wait()
            reply.close()  # disconnect mid-stream

    before = server.rss_mb()
    holders = [asyncio.create_task(hold()) for _ in range(count)]
    try:
        await asyncio.wait_for(all_open.wait(), 120)
        await asyncio.sleep(0.5)
        during = server.rss_mb()
    finally:
        release.set()
        await asyncio.gather(*holders)
    await asyncio.sleep(1.0)
    after = server.rss_mb()
    await bench.responses_call(RESPONSES_BODY, base=server.base)()  # still serving
    return {
        "streams": count,
        "rss_before_mb": before,
        "rss_open_mb": during,
        "rss_after_close_mb": after,
        "kb_per_stream": 1024 * (during - before) / count,
    }


async def growth(
    bench: Bench, server: Server, total: int, warmup: int
) -> dict[str, Any]:
    """RSS after ``warmup`` requests, then every tenth of ``total`` more requests.

    Trivial non-streaming Responses at concurrency 16. ``growth_per_1000_mb``
    is the RSS change from after warm-up to the end, per 1000 requests; a
    leak shows as steady growth across ``samples_mb`` rather than a plateau.
    """
    call = bench.responses_call(RESPONSES_BODY, base=server.base)
    await run_count(call, warmup, 16)
    samples = [server.rss_mb()]
    step = total // 10
    seconds = 0.0
    for _ in range(10):
        seconds += await run_count(call, step, 16)
        samples.append(server.rss_mb())
    return {
        "requests": step * 10,
        "warmup_requests": warmup,
        "rate": step * 10 / seconds,
        "rss_after_warmup_mb": samples[0],
        "rss_end_mb": samples[-1],
        "samples_mb": samples,
        "growth_per_1000_mb": 1000 * (samples[-1] - samples[0]) / (step * 10),
    }


async def memory(bench: Bench) -> dict[str, Any]:
    """Idle streams (200, or 20 in quick mode) then growth over 10,000 requests."""
    streams, total, warmup = (20, 500, 100) if bench.quick else (200, 10_000, 1000)
    with Server.lgos(name="lgos-memory") as server:
        await bench.responses_call(RESPONSES_BODY, base=server.base)()
        return {
            "idle_streams": await idle_streams(bench, server, streams),
            "growth": await growth(bench, server, total, warmup),
        }
