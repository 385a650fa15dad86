"""Multi-process scaling: ``lgos serve --workers N`` against the bare app.

Uvicorn's ``--workers N`` runs N server processes sharing one listening
socket. The group starts LGOS (``lgos serve bench.apps:registry``) and the
bare floor (``uvicorn bench.apps:bare_app``) with 1 and 2 workers each, and
loads every one with the same non-streaming requests from a separate load
process (aiohttp, as every figure), in interleaved rounds.

The load process runs beside the servers on the same cores. A server whose
processes spend ``s`` ms of CPU per request, loaded by a client spending
``c`` ms, can reach at most ``cores / (s + c)`` requests per second once all
cores are busy, against ``1 / s`` for one worker process (one core): the
CPU ceiling of the 2-worker/1-worker ratio is ``2 s / (s + c)`` on two
cores, below 2 whenever the client costs anything. Each figure reports its
``s`` and ``c`` and that ceiling, so the ratio can be read against it.

``python -m bench.scaling`` is the load process itself: it reads one JSON
command per line on stdin and answers one JSON line on stdout.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from typing import Any

import orjson
import psutil

from bench.figures import RESPONSES_BODY, Bench
from bench.harness import (
    FACTORY,
    LGOS,
    LGOS_ENV,
    ROOT,
    SERVER_OPTIONS,
    Server,
    client_session,
    encode,
    timed,
)

WORKERS = (1, 2)
"""Uvicorn worker counts measured."""

CONCURRENCY = 32
"""Requests in flight from the load process (16 in quick mode)."""

# Uvicorn replaces a worker that does not answer its health check in 5 s; a
# worker importing LangGraph on a busy machine without bytecode caches
# (PYTHONDONTWRITEBYTECODE) can take longer than that to start.
HEALTHCHECK = ["--timeout-worker-healthcheck", "120"]
STARTUP_SECONDS = 300.0
"""How long the 2-worker servers (six processes importing at once) may take."""


def _server(kind: str, workers: int) -> Server:
    """Start ``kind`` (``lgos`` or ``bare``) with ``workers`` processes.

    The command and options of :meth:`Server.lgos` and :meth:`Server.bare`,
    plus ``--workers`` and a longer worker health-check timeout.
    """
    options = [*SERVER_OPTIONS, "--workers", str(workers), *HEALTHCHECK]
    name = f"scaling-{kind}-w{workers}"
    if kind == "lgos":
        args = [LGOS, "serve", FACTORY, "--port", "{port}", *options]
        return Server(args, ready_path="/v1/health", env=LGOS_ENV, name=name)
    args = [sys.executable, "-m", "uvicorn", "bench.apps:bare_app"]
    args += ["--port", "{port}", *options]
    return Server(args, ready_path="/health", name=name)


def tree_cpu_seconds(server: Server) -> float:
    """User + system CPU seconds of ``server``'s process and all its children.

    Children that exited are not counted; workers live as long as the server.
    """
    root = psutil.Process(server.process.pid)
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


class LoadProcess:
    """The load generator in its own process (``python -m bench.scaling``).

    Its own asyncio loop and aiohttp session, so that the benchmark process
    (and its CPU) stays out of the figures and the load is not limited by
    anything the driver does meanwhile.
    """

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.scaling"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def run(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send one command; return its answer.

        Raises:
            RuntimeError: The load process failed (its error message).

        """
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(orjson.dumps(command) + b"\n")
        self.process.stdin.flush()
        answer = orjson.loads(self.process.stdout.readline() or b"null")
        if not isinstance(answer, dict) or "error" in answer:
            raise RuntimeError(f"load process: {answer}")
        return answer

    def stop(self) -> None:
        """Close its stdin (it exits) and wait for it."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


async def _load(
    url: str, body: bytes, expect: str, concurrency: int, seconds: float, warmup: int
) -> dict[str, Any]:
    """Load ``url`` with ``concurrency`` workers for ``seconds``; count answers.

    Every answer must contain ``expect`` (a JSON fragment of the right
    answer). Returns the completions, wall seconds, latencies (seconds) and
    this process's CPU seconds over the measured part.
    """
    async with client_session() as session:
        marker = expect.encode()

        async def call() -> None:
            async with session.post(url, data=body, headers=_HEADERS) as reply:
                data = await reply.read()
            if reply.status != 200 or marker not in data:
                raise RuntimeError(f"POST {url}: {reply.status} {data[:300]!r}")

        # Warm up every connection the measurement will use.
        await asyncio.gather(*(call() for _ in range(concurrency * warmup)))
        warmed = concurrency * warmup
        cpu_start, started = time.process_time(), time.perf_counter()
        latencies = await timed(call, seconds, concurrency)
        return {
            "count": len(latencies),
            "warmup_count": warmed,
            "elapsed": time.perf_counter() - started,
            "latencies": latencies,
            "cpu": time.process_time() - cpu_start,
        }


_HEADERS = {"Content-Type": "application/json"}


def _serve_commands() -> None:
    """Answer load commands from stdin (one JSON object per line) until EOF."""
    for line in sys.stdin.buffer:
        command = orjson.loads(line)
        try:
            answer = asyncio.run(
                _load(
                    command["url"],
                    command["body"].encode(),
                    command["expect"],
                    command["concurrency"],
                    command["seconds"],
                    command["warmup"],
                )
            )
        except Exception as exc:  # reported to the driver, which raises
            answer = {"error": repr(exc)}
        sys.stdout.buffer.write(orjson.dumps(answer) + b"\n")
        sys.stdout.buffer.flush()


def _target(kind: str, server: Server) -> tuple[str, str, str]:
    """URL, JSON body and expected answer fragment for ``kind``."""
    if kind == "lgos":
        return (
            f"{server.base}/v1/responses",
            encode(RESPONSES_BODY).decode(),
            '"text":"ok"',
        )
    return f"{server.base}/bare", encode(RESPONSES_BODY).decode(), '"object":"bare"'


def _stat(
    answers: list[dict[str, Any]], server_cpu: float, concurrency: int
) -> dict[str, Any]:
    """Summarise the rounds of one server (same shape as ``compare``'s stats)."""
    latencies = sorted(value for answer in answers for value in answer["latencies"])
    count = len(latencies)
    rates = [answer["count"] / answer["elapsed"] for answer in answers]
    client_cpu = sum(answer["cpu"] for answer in answers)
    # The server's CPU clock also ran through the warm-up requests.
    served = count + sum(answer["warmup_count"] for answer in answers)
    return {
        "rate": max(rates),
        "round_rates": rates,
        "p50_ms": 1000 * latencies[count // 2],
        "p99_ms": 1000 * latencies[min(count - 1, int(count * 0.99))],
        "n": count,
        "concurrency": concurrency,
        "cpu_ms": 1000 * server_cpu / served,
        "client_cpu_ms": 1000 * client_cpu / count,
    }


async def scaling(bench: Bench) -> dict[str, Any]:
    """Requests/s of LGOS and the bare app with 1 and 2 Uvicorn workers.

    One worker is the shared ``bench.lgos`` and ``bench.bare`` servers (the
    same command; Uvicorn serves ``--workers 1`` in its own process); the
    2-worker servers start together. Each of three rounds loads each server
    in turn for ``bench.seconds / 3`` from the load process, at
    ``CONCURRENCY`` requests in flight (16 in quick mode).

    Returns:
        ``{"lgos": {"1": stat, "2": stat, "ratio", "cpu_ceiling"}, "bare":
        {...}, "cores", "concurrency", "client": "aiohttp, one process"}``.
        A stat is ``compare``'s (best-round ``rate`` in requests/s, pooled
        ``p50_ms``/``p99_ms``), with ``cpu_ms`` of all the server's processes
        and ``client_cpu_ms`` of the load process, per request. ``ratio`` is
        rate(2) / rate(1); ``cpu_ceiling`` is 2 s / (s + c) from the 1-worker
        CPU figures (see the module docstring), capped at the worker count.

    Raises:
        RuntimeError: A server did not start, or a request failed.

    """
    concurrency = 16 if bench.quick else CONCURRENCY
    cores = os.cpu_count() or 1
    if bench.bare is None:
        raise RuntimeError("the scaling group needs the bare server")
    # One worker is what the shared servers already run: one process, the
    # same command and options (Uvicorn serves in-process for --workers 1).
    servers = {("bare", 1): bench.bare, ("lgos", 1): bench.lgos}
    started = [_server(kind, 2) for kind in ("bare", "lgos")]
    servers |= {("bare", 2): started[0], ("lgos", 2): started[1]}
    load = LoadProcess()
    try:
        for server in started:
            server.wait_ready(STARTUP_SECONDS)
        answers: dict[tuple[str, int], list[dict[str, Any]]] = {
            key: [] for key in servers
        }
        cpu = dict.fromkeys(servers, 0.0)
        rounds = 3
        for index in range(rounds):
            for key, server in servers.items():
                url, body, expect = _target(key[0], server)
                command = {
                    "url": url,
                    "body": body,
                    "expect": expect,
                    "concurrency": concurrency,
                    "seconds": bench.seconds / rounds,
                    "warmup": 2 if index == 0 else 1,
                }
                before = tree_cpu_seconds(server)
                answer = await asyncio.to_thread(load.run, command)
                cpu[key] += tree_cpu_seconds(server) - before
                answers[key].append(answer)
    finally:
        load.stop()
        for server in started:
            server.stop()
    out: dict[str, Any] = {
        "cores": cores,
        "concurrency": concurrency,
        "client": "aiohttp, one process",
    }
    for kind in ("lgos", "bare"):
        stats = {
            str(workers): _stat(answers[kind, workers], cpu[kind, workers], concurrency)
            for workers in WORKERS
        }
        one = stats["1"]
        server_ms, client_ms = one["cpu_ms"], one["client_cpu_ms"]
        ceiling = min(WORKERS[-1], cores) * server_ms / (server_ms + client_ms)
        out[kind] = {
            **stats,
            "ratio": stats[str(WORKERS[-1])]["rate"] / one["rate"],
            "cpu_ceiling": min(float(WORKERS[-1]), ceiling),
        }
    return out


RatioSpec = tuple[float, str | None, str]


def scaling_ratios(figures: dict[str, Any]) -> dict[str, RatioSpec]:
    """Ratios of the ``scaling`` group: requests/s with 2 workers / with 1.

    ``scaling_workers_2_vs_1`` has issue 22's target (``>= 1.60``: requests/s
    scale with processes up to the cores); ``…_vs_cpu_ceiling`` divides it by
    the most 2 workers can reach when the client shares the cores,
    2 s / (s + c) for server CPU s and client CPU c per request.

    Returns:
        Name → (value, target or None, definition); empty without the figure.

    """
    data = figures.get("scaling", {})
    if "lgos" not in data:
        return {}
    lgos, bare = data["lgos"], data["bare"]
    return {
        "scaling_workers_2_vs_1": (
            lgos["ratio"],
            ">= 1.60",
            "lgos serve --workers 2 / --workers 1, req/s",
        ),
        "scaling_workers_2_vs_1_vs_cpu_ceiling": (
            lgos["ratio"] / lgos["cpu_ceiling"],
            None,
            "that ratio / its CPU ceiling 2 s / (s + c) (server s, client c ms/req)",
        ),
        "scaling_bare_workers_2_vs_1": (
            bare["ratio"],
            None,
            "bare app --workers 2 / --workers 1, req/s",
        ),
    }


def scaling_rows(figures: dict[str, Any]) -> tuple[list[tuple[str, ...]], list[str]]:
    """Return the ``scaling`` table and its notes.

    The table is a header and a row per server and worker count; the notes
    give each server's ratio and CPU ceiling, and the setting. Both lists are
    empty without the figure.
    """
    data = figures.get("scaling")
    if not data or "lgos" not in data:
        return [], []
    rows: list[tuple[str, ...]] = [
        ("server", "workers", "req/s", "p50 ms", "p99 ms", "cpu ms", "client ms")
    ]
    for kind in ("bare", "lgos"):
        for workers in ("1", "2"):
            stat = data[kind][workers]
            rows.append(
                (
                    kind,
                    workers,
                    f"{stat['rate']:.0f}",
                    f"{stat['p50_ms']:.1f}",
                    f"{stat['p99_ms']:.1f}",
                    f"{stat['cpu_ms']:.3f}",
                    f"{stat['client_cpu_ms']:.3f}",
                )
            )
    notes = [
        f"{kind}: 2 workers / 1 = {data[kind]['ratio']:.2f}, CPU ceiling "
        f"{data[kind]['cpu_ceiling']:.2f}"
        for kind in ("bare", "lgos")
    ]
    where = f"{data['cores']} cores, {data['concurrency']} in flight, {data['client']}"
    return rows, [*notes, f"({where})"]


if __name__ == "__main__":
    _serve_commands()
