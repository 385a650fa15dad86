"""The Compose stack the scale-out benchmark runs (``bench/replicas.py``).

``compose.yaml`` with the overlay ``demo/compose/replicas.yaml`` in the project
``lgos-bench-replicas``, on free loopback ports, with the offline model unpaced:
scaled with ``docker compose up --scale api=N``, read through HAProxy's
statistics, PostgreSQL's ``pg_stat_database`` and ``docker stats``.
"""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from dataclasses import dataclass

from bench.harness import ROOT, free_port

__all__ = ["KEY", "OVERLAY", "PROJECT", "SERVICES", "Stack"]

PROJECT = "lgos-bench-replicas"
OVERLAY = "compose.yaml:demo/compose/replicas.yaml"
KEY = "lgos-bench"
"""The API key of the benchmark's stack (``DEMO_LGOS_API_KEY``)."""
SERVICES = ("api", "balancer", "worker")
"""What the stack runs besides the dependencies Compose starts for them."""


def _env_file() -> dict[str, str]:
    path = ROOT / ".data" / "compose-e2e.env"
    values: dict[str, str] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#") and "=" in line:
                name, _, value = line.partition("=")
                values[name.strip()] = value.strip()
    return values


@dataclass
class Stack:
    """The Compose project this benchmark starts, on free loopback ports."""

    env: dict[str, str]

    @classmethod
    def create(cls) -> Stack:
        """Build the project's environment: engine, images, ports, offline model."""
        env = {**os.environ, **_env_file()}
        for name in ("COMPOSE_PROFILES", "OTEL_EXPORTER_OTLP_ENDPOINT"):
            env.pop(name, None)
        env.update(
            COMPOSE_PROJECT_NAME=PROJECT,
            COMPOSE_FILE=OVERLAY,
            POSTGRES_PASSWORD="lgos-bench",
            DEMO_LGOS_API_KEY=KEY,
            DEMO_API_PORT=str(free_port()),
            DEMO_CORPUS_PORT=str(free_port()),
            DEMO_CHAINLIT_PORT=str(free_port()),
            DEMO_BALANCER_STATS_PORT=str(free_port()),
            DEMO_PUBLISH_ADDRESS="127.0.0.1",
            DEMO_API_OFFLINE_CHUNK_DELAY="0",
            DEMO_API_OFFLINE_ANSWER_DELAY="0",
            DEMO_WORKER_REPLICAS="1",
            LGOS_LOG_FORMAT="json",
        )
        return cls(env)

    @property
    def url(self) -> str:
        """The balancer's OpenAI base URL."""
        return f"http://127.0.0.1:{self.env['DEMO_API_PORT']}/v1"

    def compose(self, *args: str, timeout: float = 900) -> str:
        """Run ``docker compose ARGS`` in the project; its stdout.

        Raises:
            RuntimeError: The command failed (with its output).

        """
        done = subprocess.run(
            ["docker", "compose", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"docker compose {' '.join(args)}: {done.returncode}\n"
                f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            )
        return done.stdout

    def scale(self, replicas: int) -> None:
        """Run ``replicas`` API replicas and wait until the balancer uses all."""
        self.compose(
            "up", "--build", "--detach", "--wait", "--wait-timeout", "600",
            "--scale", f"api={replicas}", *SERVICES,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while self.balanced() != replicas:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the balancer has {self.balanced()} replicas up")
            time.sleep(0.5)

    def balanced(self) -> int:
        """How many replicas HAProxy marks UP (its statistics, CSV)."""
        port = self.env["DEMO_BALANCER_STATS_PORT"]
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}/stats;csv", timeout=10
            ) as reply:
                rows = reply.read().decode()
        except OSError:
            return 0
        return sum(
            line.startswith("api,api") and line.split(",")[17] == "UP"
            for line in rows.splitlines()
        )

    def commits(self) -> dict[str, int]:
        """Transactions committed so far in the ``lgos`` and ``hatchet`` databases."""
        out = self.compose(
            "exec", "-T", "postgres", "psql", "-U", "lgos", "-d", "lgos", "-At",
            "-c", "select datname, xact_commit from pg_stat_database "
            "where datname in ('lgos', 'hatchet')",
        )  # fmt: skip
        return {
            name: int(value)
            for name, _, value in (line.partition("|") for line in out.split())
        }

    def cpu_by_service(self) -> dict[str, float]:
        """Cores each service uses now (``docker stats``, summed over replicas)."""
        done = subprocess.run(
            ["docker", "stats", "--no-stream", "--format", "{{.Name}} {{.CPUPerc}}"],
            env=self.env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        cores: dict[str, float] = {}
        for line in done.stdout.splitlines():
            name, _, percent = line.partition(" ")
            if not name.startswith(f"{PROJECT}-"):
                continue
            service = name.removeprefix(f"{PROJECT}-").rsplit("-", 1)[0]
            cores[service] = cores.get(service, 0.0) + float(percent.rstrip("%")) / 100
        return cores

    def down(self) -> None:
        """Remove the project's containers, network and volumes."""
        self.compose("down", "--volumes", "--remove-orphans", "--timeout", "10")
