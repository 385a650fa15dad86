"""Scale-out on the container engine: requests per second through HAProxy.

With 1, 2 and 3 API replicas behind the balancer of `just demo --replicas N`
(its overlay, demo/compose/replicas.yaml).

Usage::

    uv run --frozen --no-sync python -m bench.replicas            # 10 s per figure
    uv run --frozen --no-sync python -m bench.replicas --seconds 5 --replicas 1,2

It starts the Compose stack of ``compose.yaml`` with ``demo/compose/replicas.yaml``
in its own project (``lgos-bench-replicas``; only PostgreSQL, Hatchet, the API
replicas, the balancer and one worker), scales the API to each count with
``docker compose up --scale api=N``, and loads the balancer's published port
from this process (aiohttp, 32 requests in flight) with two workloads:

- ``chat``: a non-streaming Responses request to the demo's ``chat`` graph on
  the offline model (no pause, nothing stored);
- ``approval``: an interrupt round trip, a request that pauses and the resume
  that completes it (PostgreSQL checkpoints and a lease on every run);

then runs background ``deep-research`` runs on the worker to count what
PostgreSQL and Hatchet carry per run (transactions committed in each
database, less what the idle stack commits in the same time). The stack and
its volumes are removed at the end.

The load client runs on the same cores as the stack, so every figure is
printed with the machine's CPU use while it was measured: when the machine is
busy near 100 % of its cores, the rate is the CPU ceiling of this machine, not
of LGOS, and more replicas cannot raise it. The engine and the images come
from the environment (``DOCKER_HOST``, ``DEMO_*_IMAGE``), or from
``.data/compose-e2e.env`` when ``scripts/compose-e2e.sh prepare`` wrote one.
Prints tables; writes nothing. docs/deploy.md ("Capacity") has the figures of
one run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

import aiohttp
import psutil

from bench.harness import (
    Call,
    client_session,
    encode,
    resume_body,
    summary,
    timed,
)
from bench.machine import machine
from bench.replicas_stack import KEY, Stack

CONCURRENCY = 32
"""Requests in flight from the load client."""
BACKGROUND_RUNS = 10
"""Background deep-research runs whose database work is counted."""
RESEARCH = "Compare LangGraph interrupts and OpenAI Agents SDK approvals"


async def _post(session: aiohttp.ClientSession, url: str, body: bytes) -> Any:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
    async with session.post(url, data=body, headers=headers) as reply:
        data = await reply.json()
        if reply.status != 200:
            raise RuntimeError(f"POST {url}: {reply.status} {data}")
        return data


def workloads(session: aiohttp.ClientSession, url: str) -> dict[str, Call]:
    """Return the measured calls by name; each checks its answer."""
    chat = encode({"model": "chat", "input": "Hello"})
    approval = encode({"model": "approval", "input": "Refund order 42"})

    async def chat_call() -> None:
        answer = await _post(session, f"{url}/responses", chat)
        assert answer["status"] == "completed", answer

    async def approval_call() -> None:
        paused = await _post(session, f"{url}/responses", approval)
        [call] = [i for i in paused["output"] if i["type"] == "function_call"]
        resume = resume_body(paused["id"], call["call_id"], "approve")
        done = await _post(session, f"{url}/responses", encode(resume))
        assert done["status"] == "completed", done

    return {"chat": chat_call, "approval": approval_call}


def _busy(before: Any, after: Any) -> float:
    """Return the machine's CPU busy share between two ``psutil.cpu_times()``."""
    idle = (after.idle + after.iowait) - (before.idle + before.iowait)
    total = sum(after) - sum(before)
    return 1 - idle / total if total else 0.0


STATS_FLUSH_SECONDS = 11.0
"""PostgreSQL's backends report the transactions of an idle session within
10 s (PGSTAT_IDLE_INTERVAL): counters are read this long after the work."""


async def measure(
    stack: Stack, call: Call, seconds: float, requests_per_call: int, *, commits: bool
) -> dict[str, Any]:
    """Measure ``call`` under load through the balancer.

    Returns its rate (requests/s), latency, the machine's, the client's and
    each service's CPU, and (with ``commits``) the lgos database's
    transactions per call.
    """
    await timed(call, 1.0, CONCURRENCY)  # warm-up: connections, caches
    if commits:
        await asyncio.sleep(STATS_FLUSH_SECONDS)
        commits_before = stack.commits()
    me = psutil.Process()
    cpu_before, mine_before = psutil.cpu_times(), me.cpu_times()
    start = time.perf_counter()
    services = asyncio.create_task(_services_midway(stack, seconds))
    latencies = await timed(call, seconds, CONCURRENCY)
    elapsed = time.perf_counter() - start
    cpu_after, mine_after = psutil.cpu_times(), me.cpu_times()
    result = summary(latencies, elapsed, CONCURRENCY)
    result["services"] = await services
    result["rate"] *= requests_per_call
    result["machine_busy"] = _busy(cpu_before, cpu_after)
    client = (mine_after.user + mine_after.system) - (
        mine_before.user + mine_before.system
    )
    result["client_cores"] = client / elapsed
    result["lgos_commits_per_call"] = None
    if commits:
        await asyncio.sleep(STATS_FLUSH_SECONDS)
        used = stack.commits()["lgos"] - commits_before["lgos"]
        result["lgos_commits_per_call"] = used / result["n"]
    return result


async def _services_midway(stack: Stack, seconds: float) -> dict[str, float]:
    await asyncio.sleep(seconds / 3)
    return await asyncio.to_thread(stack.cpu_by_service)


async def background_cost(stack: Stack, runs: int) -> dict[str, float]:
    """Count the transactions of one background deep-research run.

    The plan runs in the foreground, the research on the worker; what the
    idle stack commits in as long is subtracted.
    """
    url = stack.url
    tools = [{"type": "web_search"}]
    async with client_session() as session:
        await asyncio.sleep(STATS_FLUSH_SECONDS)
        idle_before = stack.commits()
        started = time.perf_counter()
        await asyncio.sleep(15)
        idle_seconds = time.perf_counter() - started
        idle_after = stack.commits()
        before = stack.commits()
        started = time.perf_counter()
        for _ in range(runs):
            plan = await _post(
                session,
                f"{url}/responses",
                encode({"model": "deep-research", "input": RESEARCH, "tools": tools}),
            )
            [call] = [i for i in plan["output"] if i["type"] == "function_call"]
            answer = {
                **resume_body(
                    plan["id"], call["call_id"], "Start research", "deep-research"
                ),
                "tools": tools,
                "background": True,
            }
            created = await _post(session, f"{url}/responses", encode(answer))
            headers = {"Authorization": f"Bearer {KEY}"}
            while True:
                async with session.get(
                    f"{url}/responses/{created['id']}", headers=headers
                ) as reply:
                    status = (await reply.json())["status"]
                if status not in ("queued", "in_progress"):
                    assert status == "completed", status
                    break
                await asyncio.sleep(0.05)
        seconds = time.perf_counter() - started
        await asyncio.sleep(STATS_FLUSH_SECONDS)
        seconds_counted = time.perf_counter() - started
        after = stack.commits()
    result = {"seconds_per_run": seconds / runs}
    for database in ("lgos", "hatchet"):
        idle_rate = (idle_after[database] - idle_before[database]) / idle_seconds
        used = after[database] - before[database] - idle_rate * seconds_counted
        result[f"{database}_commits_per_run"] = used / runs
        result[f"{database}_idle_commits_per_second"] = idle_rate
    return result


def print_tables(
    info: dict[str, Any],
    rows: list[tuple[int, str, dict[str, Any]]],
    cost: dict[str, float],
) -> None:
    """Print the figures as Markdown tables."""
    print(
        f"\nMachine: {info['cpu_model']}, {info['logical_cores']} logical cores, "
        f"{info['memory_gb']} GB; commit {info['git_commit']}; {info['date']}"
    )
    print(
        "\n| replicas | workload | requests/s | p50 ms | p99 ms | machine CPU busy "
        "| load client (cores) | lgos DB commits per call |"
    )
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for replicas, name, r in rows:
        commits = r["lgos_commits_per_call"]
        print(
            f"| {replicas} | {name} | {r['rate']:.0f} | {r['p50_ms']:.0f} | "
            f"{r['p99_ms']:.0f} | {100 * r['machine_busy']:.0f} % of "
            f"{info['logical_cores']} | {r['client_cores']:.2f} | "
            f"{'' if commits is None else f'{commits:.1f}'} |"
        )
    services = sorted({s for _, _, r in rows for s in r["services"]})
    print(
        "\nCores each service used, sampled a third into each figure (docker stats):\n"
    )
    print("| replicas | workload | " + " | ".join(services) + " |")
    print("| ---: | --- |" + " ---: |" * len(services))
    for replicas, name, r in rows:
        cells = " | ".join(f"{r['services'].get(s, 0.0):.2f}" for s in services)
        print(f"| {replicas} | {name} | {cells} |")
    if cost:
        print(
            f"\nBackground deep-research run (plan + research on the worker), "
            f"{BACKGROUND_RUNS} runs one after another: "
            f"{cost['seconds_per_run']:.2f} s each; "
            f"lgos DB {cost['lgos_commits_per_run']:.0f} commits per run, "
            f"hatchet DB {cost['hatchet_commits_per_run']:.0f} commits per run "
            "(the idle stack: hatchet "
            f"{cost['hatchet_idle_commits_per_second']:.1f}/s, "
            f"lgos {cost['lgos_idle_commits_per_second']:.1f}/s)."
        )


async def run(replica_counts: list[int], seconds: float) -> None:
    """Start the stack, measure each count, print, remove the stack."""
    info = machine()
    stack = Stack.create()
    rows: list[tuple[int, str, dict[str, Any]]] = []
    cost: dict[str, float] = {}
    stack.down()
    try:
        for replicas in replica_counts:
            print(f"scaling to {replicas} replica(s)...", file=sys.stderr)
            stack.scale(replicas)
            async with client_session() as session:
                for name, call in workloads(session, stack.url).items():
                    per_call = 2 if name == "approval" else 1
                    result = await measure(
                        stack,
                        call,
                        seconds,
                        per_call,
                        commits=replicas == replica_counts[0],
                    )
                    rows.append((replicas, name, result))
                    print(
                        f"  {name}: {result['rate']:.0f} requests/s, CPU busy "
                        f"{100 * result['machine_busy']:.0f} %",
                        file=sys.stderr,
                    )
        print("background runs...", file=sys.stderr)
        cost = await background_cost(stack, BACKGROUND_RUNS)
    finally:
        stack.down()
    print_tables(info, rows, cost)


def main(argv: list[str] | None = None) -> None:
    """Command line: ``--seconds`` per figure, ``--replicas`` counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--replicas", default="1,2,3", help="comma-separated counts")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.replicas.split(",")]
    if not counts or any(n < 1 or n > 16 for n in counts):
        parser.error("--replicas takes counts from 1 to 16, e.g. 1,2,3")
    asyncio.run(run(counts, args.seconds))


if __name__ == "__main__":
    main()
