"""Memory of the LGOS server process: idle streams, paused runs, growth.

Each figure uses a fresh ``lgos serve`` process and reads its resident set
size (RSS, MiB) with psutil; paused runs use one on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.figures import RESPONSES_BODY, Bench
from bench.harness import JSON_HEADERS, Call, Server, encode, post
from bench.lifecycle import Skipped, postgres_database


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


async def paused_runs(
    bench: Bench, server: Server, count: int, warmup: int
) -> dict[str, Any]:
    """RSS with ``count`` runs of ``approval`` paused at once, then resumed.

    ``server`` checkpoints on PostgreSQL. After ``warmup`` pause → resume
    round trips (code paths loaded, connection pool grown), ``count`` runs
    are paused one after another and left paused; then every one is resumed
    and finishes. Between pause and resume a run's state is in PostgreSQL,
    so ``kb_per_paused_run`` (the RSS growth while they are paused, KiB per
    run) is what the server process keeps for a paused run: ideally nothing.
    ``rss_resumed_mb`` is the RSS once all of them finished.

    Raises:
        RuntimeError: A request failed or answered something unexpected.

    """
    url = f"{server.base}/v1/responses"
    pause_body = encode({"model": "approval", "input": "x"})

    async def pause() -> dict[str, Any]:
        paused = await post(bench.session, url, pause_body)
        if not any(item["type"] == "function_call" for item in paused["output"]):
            raise RuntimeError("approval did not pause")
        return paused

    async def resume(paused: dict[str, Any]) -> None:
        call = next(i for i in paused["output"] if i["type"] == "function_call")
        body = {
            "model": "approval",
            "previous_response_id": paused["id"],
            "input": [
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": "approve",
                }
            ],
        }
        done = await post(bench.session, url, encode(body))
        if done["output"][-1]["content"][0]["text"] != "Decision: approve":
            raise RuntimeError("unexpected resume answer")

    for _ in range(warmup):
        await resume(await pause())
    await asyncio.sleep(0.5)
    before = server.rss_mb()
    waiting = [await pause() for _ in range(count)]
    await asyncio.sleep(0.5)
    during = server.rss_mb()
    for paused in waiting:
        await resume(paused)
    await asyncio.sleep(0.5)
    after = server.rss_mb()
    return {
        "runs": count,
        "warmup_round_trips": warmup,
        "rss_before_mb": before,
        "rss_paused_mb": during,
        "rss_resumed_mb": after,
        "kb_per_paused_run": 1024 * (during - before) / count,
    }


async def paused_runs_postgres(
    bench: Bench, postgres_uri: str | None, count: int, warmup: int
) -> dict[str, Any]:
    """:func:`paused_runs` on a fresh ``lgos serve`` with PostgreSQL.

    The database is ``postgres_uri``, or a temporary one (as for the
    interrupt figure); ``{"skipped": why}`` when PostgreSQL is not reachable.
    """
    try:
        with postgres_database(postgres_uri) as uri:
            env = {"LGOS_POSTGRES_URI": uri}
            with Server.lgos(env=env, name="lgos-memory-paused") as server:
                return await paused_runs(bench, server, count, warmup)
    except Skipped as exc:
        return {"skipped": str(exc)}


async def memory(bench: Bench, postgres_uri: str | None = None) -> dict[str, Any]:
    """Idle streams, growth over many requests, paused runs on PostgreSQL.

    200 idle streams (20 in quick mode), then 10,000 requests after 1,000
    warm-up (500 after 100) on one fresh server; then 200 paused runs (20)
    on another, with PostgreSQL (``postgres_uri`` or a temporary database).
    """
    streams, total, warmup = (20, 500, 100) if bench.quick else (200, 10_000, 1000)
    paused, paused_warmup = (20, 5) if bench.quick else (200, 50)
    with Server.lgos(name="lgos-memory") as server:
        await bench.responses_call(RESPONSES_BODY, base=server.base)()
        out = {
            "idle_streams": await idle_streams(bench, server, streams),
            "growth": await growth(bench, server, total, warmup),
        }
    out["paused_runs"] = await paused_runs_postgres(
        bench, postgres_uri, paused, paused_warmup
    )
    return out
