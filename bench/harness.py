"""Server processes, the HTTP client and the timing loop the figures share."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import psutil

ROOT = Path(__file__).resolve().parents[1]
LGOS = str(Path(sys.executable).with_name("lgos"))
FACTORY = "bench.apps:registry"
LGOS_ENV = {
    "LGOS_INTERRUPT_SWEEP_INTERVAL_MINUTES": "0",
    # No run cap: the concurrent-streams figure goes to 500 streams at once,
    # over the default LGOS_MAX_CONCURRENT_RUNS (128).
    "LGOS_MAX_CONCURRENT_RUNS": "0",
}
"""The environment of every ``lgos serve`` the benchmarks start."""

Call = Callable[[], Awaitable[Any]]

SERVER_OPTIONS = [
    "--log-level",
    "warning",
    "--no-access-log",
    # Longer than the client's keep-alive: a server closing an idle pooled
    # connection while the client reuses it fails the request.
    "--timeout-keep-alive",
    "120",
]


def free_port() -> int:
    """Return a free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A server process on a loopback port, started and stopped by the bench.

    Construction starts the process; :meth:`wait_ready` (called on entering
    it as a context manager) waits until it serves, so several servers can
    start at once.

    Args:
        args: The command, with ``{port}`` standing for the chosen port.
        ready_path: A GET path answering 2xx once the server is ready; None
            for a process without HTTP (checked to be alive after a second).
        env: Extra environment variables.
        name: Used for the log file name.

    """

    def __init__(
        self,
        args: Sequence[str],
        *,
        ready_path: str | None,
        env: Mapping[str, str] | None = None,
        name: str = "server",
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = Path(tempfile.gettempdir()) / f"lgos-bench-{name}-{self.port}.log"
        environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [arg.format(port=self.port) for arg in args],
                cwd=ROOT,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self._ready_path = ready_path
        self._ready = False

    @classmethod
    def lgos(cls, env: Mapping[str, str] | None = None, name: str = "lgos") -> Server:
        """``lgos serve bench.apps:registry`` (no access log, warnings only)."""
        args = [LGOS, "serve", FACTORY, "--port", "{port}"]
        args += SERVER_OPTIONS
        lgos_env = {**LGOS_ENV, **(env or {})}
        return cls(args, ready_path="/v1/health", env=lgos_env, name=name)

    @classmethod
    def bare(cls) -> Server:
        """``uvicorn bench.apps:bare_app`` with the same options as LGOS."""
        args = [sys.executable, "-m", "uvicorn", "bench.apps:bare_app"]
        args += ["--port", "{port}", *SERVER_OPTIONS]
        return cls(args, ready_path="/health", name="bare")

    def wait_ready(self, timeout: float = 60) -> None:
        """Wait until the server answers its ready path (once).

        Raises:
            RuntimeError: The process exited or did not answer in ``timeout``
                seconds (the message ends with its log).

        """
        if self._ready:
            return
        if self._ready_path is None:
            time.sleep(1)
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.log}: exited\n{self.log_tail()}")
            self._ready = True
            return
        request = f"GET {self._ready_path} HTTP/1.0\r\n\r\n".encode()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.log}: exited\n{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5) as sock:
                    sock.sendall(request)
                    if sock.recv(16).startswith((b"HTTP/1.1 2", b"HTTP/1.0 2")):
                        self._ready = True
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.log}: not ready in {timeout:g} s\n{self.log_tail()}")

    def log_tail(self) -> str:
        """Return the last 4000 characters of the server's output."""
        return self.log.read_text(errors="replace")[-4000:]

    def cpu_seconds(self) -> float:
        """User plus system CPU seconds the server process has used."""
        times = psutil.Process(self.process.pid).cpu_times()
        return times.user + times.system

    def rss_mb(self) -> float:
        """Resident set size of the server process, in MiB."""
        return psutil.Process(self.process.pid).memory_info().rss / 2**20

    def stop(self) -> None:
        """Stop the process (SIGINT, then SIGKILL after 10 s); delete its log.

        Errors quote the log's tail before this runs, so nothing is lost.
        """
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.log.unlink(missing_ok=True)

    def __enter__(self) -> Server:
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def client_session() -> aiohttp.ClientSession:
    """Open the one HTTP client of every figure: aiohttp, keep-alive, no limit."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=60),
        timeout=aiohttp.ClientTimeout(total=None, sock_read=300),
    )


JSON_HEADERS = {"Content-Type": "application/json"}


def encode(body: Any) -> bytes:
    """Encode a request body once, so each call only sends bytes."""
    return orjson.dumps(body)


def resume_body(
    previous_id: str, call_id: str, answer: str, model: str = "approval"
) -> dict[str, Any]:
    """Build the Responses request that answers one ``lgos_interrupt`` call."""
    return {
        "model": model,
        "previous_response_id": previous_id,
        "input": [
            {"type": "function_call_output", "call_id": call_id, "output": answer}
        ],
    }


async def post(session: aiohttp.ClientSession, url: str, body: bytes) -> Any:
    """POST JSON bytes; return the decoded JSON answer.

    Raises:
        RuntimeError: Any status other than 200 (with the body).

    """
    async with session.post(url, data=body, headers=JSON_HEADERS) as reply:
        data = await reply.read()
        if reply.status != 200:
            raise RuntimeError(f"POST {url}: {reply.status} {data[:500]!r}")
    return orjson.loads(data)


async def get(session: aiohttp.ClientSession, url: str) -> Any:
    """GET ``url``; return the decoded JSON answer.

    Raises:
        RuntimeError: Any status other than 200 (with the body).

    """
    async with session.get(url) as reply:
        data = await reply.read()
        if reply.status != 200:
            raise RuntimeError(f"GET {url}: {reply.status} {data[:500]!r}")
    return orjson.loads(data)


def summary(latencies: list[float], elapsed: float, concurrency: int) -> dict[str, Any]:
    """Rate (completions / ``elapsed`` seconds), p50/p99 latency in milliseconds."""
    ordered = sorted(latencies)
    count = len(ordered)
    return {
        "rate": count / elapsed,
        "p50_ms": 1000 * ordered[count // 2],
        "p99_ms": 1000 * ordered[min(count - 1, int(count * 0.99))],
        "n": count,
        "concurrency": concurrency,
    }


def percentile_ms(values: list[float], fraction: float) -> float:
    """Return the ``fraction`` percentile of ``values`` (seconds) in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def timed(call: Call, seconds: float, concurrency: int) -> list[float]:
    """Latencies of ``call`` run by ``concurrency`` workers for ``seconds``.

    Each worker starts calls until ``seconds`` have passed and lets its last
    one finish, so every worker completes at least one call.
    """
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def worker() -> None:
        while True:
            begin = time.perf_counter()
            await call()
            end = time.perf_counter()
            latencies.append(end - begin)
            if end >= stop:
                return

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies


CpuClock = Callable[[], float]
"""CPU seconds used so far by the process doing a call's work."""


async def compare(
    calls: Mapping[str, Call],
    seconds: float,
    concurrency: int = 1,
    *,
    rounds: int = 3,
    warmup: int = 10,
    cpu: Mapping[str, CpuClock] | None = None,
) -> dict[str, dict[str, Any]]:
    """Measure several calls in interleaved rounds, ``seconds`` each in total.

    Each call first runs ``warmup`` times unmeasured. Then every round runs
    each call in turn for ``seconds / rounds`` from ``concurrency`` workers,
    so a burst of load from elsewhere on a shared machine hits all of them
    alike. A call's ``rate`` is its best round (completions / wall seconds
    of that round, tail included); latencies pool every round.

    ``cpu`` maps a name to the CPU clock of the process that does its work
    (the server's :meth:`Server.cpu_seconds`, or :func:`time.process_time`
    for in-process calls); its result then has ``cpu_ms``, CPU milliseconds
    per call, which load from other processes barely disturbs.

    ``driver_cpu_ms`` is this process's CPU per call: the client's share
    of HTTP calls (both share the machine's cores), all of an in-process one.

    Returns:
        Per name: ``{"rate": calls/s, "p50_ms", "p99_ms", "n", "concurrency",
        "round_rates", "driver_cpu_ms"}``, plus ``"cpu_ms"`` for the names in
        ``cpu``.

    """
    for call in calls.values():
        for _ in range(warmup):
            await call()
    clocks = cpu or {}
    latencies: dict[str, list[float]] = {name: [] for name in calls}
    rates: dict[str, list[float]] = {name: [] for name in calls}
    cpu_used = dict.fromkeys(clocks, 0.0)
    own_cpu = dict.fromkeys(calls, 0.0)
    for _ in range(rounds):
        for name, call in calls.items():
            clock = clocks.get(name)
            cpu_start = clock() if clock else 0.0
            own_start = time.process_time()
            started = time.perf_counter()
            measured = await timed(call, seconds / rounds, concurrency)
            rates[name].append(len(measured) / (time.perf_counter() - started))
            own_cpu[name] += time.process_time() - own_start
            if clock:
                cpu_used[name] += clock() - cpu_start
            latencies[name] += measured
    results: dict[str, dict[str, Any]] = {}
    for name in calls:
        results[name] = {
            **summary(latencies[name], 1.0, concurrency),
            "rate": max(rates[name]),
            "round_rates": rates[name],
            "driver_cpu_ms": 1000 * own_cpu[name] / len(latencies[name]),
        }
        if name in cpu_used:
            results[name]["cpu_ms"] = 1000 * cpu_used[name] / len(latencies[name])
    return results


async def measure(
    call: Call, seconds: float, concurrency: int = 1, warmup: int = 10
) -> dict[str, Any]:
    """Measure one call for ``seconds`` in one round (see :func:`compare`)."""
    result = await compare(
        {"call": call}, seconds, concurrency, rounds=1, warmup=warmup
    )
    return result["call"]


def floor(direct: float, bare: float) -> float:
    """Return the combined floor 1/(1/direct + 1/bare), in requests per second."""
    return 1 / (1 / direct + 1 / bare)
