"""LGOS overhead benchmark: prints a table and writes JSON.

Usage: ``just bench`` (or ``uv run python -m bench.run --seconds 5``).

Figures, all measured in one run on this machine:

- ``direct``: in-process ``graph.ainvoke`` rate of a trivial graph;
- ``bare``: a bare FastAPI JSON route over HTTP, same client;
- floor = 1 / (1/direct + 1/bare); target: LGOS ≥ 0.9 × floor;
- LGOS Responses and Chat Completions (non-streaming) rates and p50/p99 at
  concurrency 1 and 16;
- streaming a 200-chunk answer: the graph's own ``astream`` time, LGOS's total
  and time to first text delta; target: total ≤ 1.3 × (astream + bare).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from langchain_core.messages import HumanMessage

from bench.apps import streaming_graph, trivial_graph

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """Return a free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A Uvicorn process serving one of ``bench.apps``."""

    def __init__(self, app: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                app,
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{app} did not start")

    def stop(self) -> None:
        """Terminate the server."""
        self.process.terminate()
        self.process.wait(10)


async def measure(
    call: Callable[[], Awaitable[Any]], seconds: float, concurrency: int = 1
) -> dict[str, float]:
    """Run ``call`` for ``seconds`` from ``concurrency`` workers; rate and latency."""
    for _ in range(20):  # warm-up
        await call()
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def worker() -> None:
        while time.perf_counter() < stop:
            start = time.perf_counter()
            await call()
            latencies.append(time.perf_counter() - start)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "rate": len(latencies) / elapsed,
        "p50_ms": 1000 * latencies[len(latencies) // 2],
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "n": len(latencies),
    }


async def main(seconds: float, output: Path) -> dict[str, Any]:
    """Measure every figure for ``seconds`` each; write them to ``output``."""
    results: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        }
    }
    graph = trivial_graph()
    messages = {"messages": [HumanMessage("hi")]}
    results["direct"] = await measure(lambda: graph.ainvoke(messages), seconds)

    bare, lgos = Server("bench.apps:bare_app"), Server("bench.apps:lgos_app")
    try:
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        async with httpx.AsyncClient(timeout=30, limits=limits) as client:
            body = {"model": "trivial", "input": "hi"}

            async def bare_call() -> None:
                (await client.post(f"{bare.base}/bare", json=body)).raise_for_status()

            async def responses_call() -> None:
                reply = await client.post(f"{lgos.base}/v1/responses", json=body)
                reply.raise_for_status()

            chat_body = {
                "model": "trivial",
                "messages": [{"role": "user", "content": "hi"}],
            }

            async def chat_call() -> None:
                reply = await client.post(
                    f"{lgos.base}/v1/chat/completions", json=chat_body
                )
                reply.raise_for_status()

            results["bare"] = await measure(bare_call, seconds)
            for concurrency in (1, 16):
                results[f"responses_c{concurrency}"] = await measure(
                    responses_call, seconds, concurrency
                )
                results[f"chat_c{concurrency}"] = await measure(
                    chat_call, seconds, concurrency
                )
            results["bare_c16"] = await measure(bare_call, seconds, 16)

            stream_graph = streaming_graph()

            async def graph_astream() -> None:
                async for _ in stream_graph.astream(messages, stream_mode="messages"):
                    pass

            results["stream_graph_astream"] = await measure(graph_astream, seconds)
            first_delta: list[float] = []

            async def lgos_stream() -> None:
                start = time.perf_counter()
                seen = False
                async with client.stream(
                    "POST",
                    f"{lgos.base}/v1/responses",
                    json={"model": "stream200", "input": "hi", "stream": True},
                ) as reply:
                    async for line in reply.aiter_lines():
                        if not seen and line.startswith(
                            "event: response.output_text.delta"
                        ):
                            first_delta.append(time.perf_counter() - start)
                            seen = True

            results["stream_lgos"] = await measure(lgos_stream, seconds)
            first_delta.sort()
            results["stream_lgos"]["first_delta_p50_ms"] = (
                1000 * first_delta[len(first_delta) // 2]
            )
    finally:
        bare.stop()
        lgos.stop()

    direct, bare_rate = results["direct"]["rate"], results["bare"]["rate"]
    floor = 1 / (1 / direct + 1 / bare_rate)
    results["floor"] = floor
    results["ratios"] = {
        "responses_vs_floor": results["responses_c1"]["rate"] / floor,
        "chat_vs_floor": results["chat_c1"]["rate"] / floor,
        "stream_total_vs_target": results["stream_lgos"]["p50_ms"]
        / (results["stream_graph_astream"]["p50_ms"] + results["bare"]["p50_ms"]),
    }
    return results


def table(results: dict[str, Any]) -> str:
    """Render the results as a plain-text table with the target ratios."""
    rows = [("figure", "req/s", "p50 ms", "p99 ms")]
    for key in (
        "direct",
        "bare",
        "bare_c16",
        "responses_c1",
        "chat_c1",
        "responses_c16",
        "chat_c16",
        "stream_graph_astream",
        "stream_lgos",
    ):
        r = results[key]
        rows.append(
            (key, f"{r['rate']:.0f}", f"{r['p50_ms']:.2f}", f"{r['p99_ms']:.2f}")
        )
    width = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width[i]) for i, cell in enumerate(row)) for row in rows
    ]
    ratios = results["ratios"]
    lines += [
        "",
        f"floor 1/(1/direct + 1/bare) = {results['floor']:.0f} req/s",
        f"Responses / floor = {ratios['responses_vs_floor']:.2f}  (target >= 0.90)",
        f"Chat / floor      = {ratios['chat_vs_floor']:.2f}  (target >= 0.90)",
        "stream total / (astream + bare) = "
        f"{ratios['stream_total_vs_target']:.2f}  (target <= 1.30)",
        "stream first delta p50 = "
        f"{results['stream_lgos']['first_delta_p50_ms']:.2f} ms",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="LGOS overhead benchmark.")
    parser.add_argument("--seconds", type=float, default=5.0, help="per figure")
    parser.add_argument("--output", type=Path, default=ROOT / ".data" / "bench.json")
    args = parser.parse_args()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    results = asyncio.run(main(args.seconds, args.output))
    args.output.write_text(json.dumps(results, indent=2))
    print(table(results))
    print(f"\nJSON: {args.output}")
