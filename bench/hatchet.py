"""Hatchet for the benchmark: the embedded engine and the engine's own floor.

:func:`hatchet_environment` yields the ``HATCHET_CLIENT_*`` variables of an
engine: the configured one, or one started here the way the tests start it
(``scripts/ensure-hatchet.sh`` builds the pinned engine once; the SDK's
``start_embedded_sidecar`` runs it on a temporary PostgreSQL database).

The engine floor is the Hatchet SDK alone, with the same ``hatchet-sdk``
and the same engine as LGOS: a worker process (``python -m bench.hatchet``)
running a task that returns at once, and this process triggering it and
waiting for its completion — by polling the run through the REST API as
LGOS's ``GET /v1/responses/{id}`` reads it (``runs.aio_get``), and by the
SDK's own result wait (``aio_result``, the engine's run-event stream).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hatchet_sdk import Context, EmptyModel, Hatchet

from bench.harness import ROOT, Call, Server, free_port

HATCHET_VARIABLES = ("HATCHET_CLIENT_TOKEN", "HATCHET_CLIENT_EMBEDDED_BINARY_PATH")
"""Either one means a Hatchet engine is configured."""

FLOOR_TASK = "lgos-bench-noop"
"""The no-op task of the engine floor."""

ENSURE_HATCHET = ROOT / "scripts" / "ensure-hatchet.sh"


class EngineUnavailable(Exception):
    """No Hatchet engine here; the message says why and how to get one."""


def engine_configured() -> bool:
    """Whether ``HATCHET_CLIENT_*`` variables configure an engine."""
    return any(os.environ.get(name) for name in HATCHET_VARIABLES)


def engine_built() -> str | None:
    """Return the sidecar launcher if ``ensure-hatchet.sh`` has built the engine.

    Reads the cache directory the script uses (``LGOS_HATCHET_CACHE_DIR`` or
    ``~/.cache/lgos/hatchet``, per pinned version) without building anything.
    """
    go_mod = ROOT / "scripts" / "hatchet" / "go.mod"
    version = next(
        (
            line.split()[2]
            for line in go_mod.read_text().splitlines()
            if line.startswith("require github.com/hatchet-dev/hatchet ")
        ),
        None,
    )
    cache = os.environ.get("LGOS_HATCHET_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        / "lgos"
        / "hatchet"
    )
    directory = Path(cache) / str(version)
    binaries = ("hatchet-lite", "hatchet-admin", "hatchet-migrate")
    if version and all(os.access(directory / name, os.X_OK) for name in binaries):
        return str(directory / "hatchet-embedded-sidecar")
    return None


def _launcher() -> str:
    """Build the engine if needed (``ensure-hatchet.sh``); return the launcher.

    Raises:
        EngineUnavailable: The script failed (no Go, no network, ...).

    """
    if shutil.which("bash") is None:
        raise EngineUnavailable("bash is needed to run scripts/ensure-hatchet.sh")
    done = subprocess.run(
        ["bash", str(ENSURE_HATCHET)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        msg = f"scripts/ensure-hatchet.sh failed: {done.stderr.strip()[-500:]}"
        raise EngineUnavailable(msg)
    return done.stdout.strip().splitlines()[-1]


@contextmanager
def hatchet_environment(database_uri: str | None) -> Iterator[dict[str, str]]:
    """Yield the ``HATCHET_CLIENT_*`` variables of a running engine.

    With ``HATCHET_CLIENT_*`` already configured, yields nothing new (the
    processes inherit them). Otherwise starts the engine through the SDK's
    embedded mode on ``database_uri`` (a PostgreSQL database of its own,
    e.g. from :func:`bench.lifecycle.postgres_database`), as the tests'
    ``hatchet_engine`` fixture does, and stops it afterwards. While the
    context is open, ``os.environ`` holds the variables too, so that the
    Hatchet client of this process (the floor) reaches the same engine.

    Raises:
        EngineUnavailable: No engine is configured and no database was given,
            or the engine could not be built or started.

    """
    if engine_configured():
        yield {}
        return
    if database_uri is None:
        raise EngineUnavailable("no PostgreSQL database for the embedded engine")
    from hatchet_sdk import EmbeddedHatchetConfig
    from hatchet_sdk.embedded import start_embedded_sidecar

    launcher = _launcher()
    try:
        sidecar = start_embedded_sidecar(
            EmbeddedHatchetConfig(
                binary_path=launcher,
                database_url=f"{database_uri}?sslmode=disable",
                log_level="warn",
                ready_timeout_seconds=240,
            )
        )
    except Exception as exc:  # the SDK raises several kinds; all mean "no engine"
        raise EngineUnavailable(
            f"the embedded Hatchet engine did not start: {exc}"
        ) from exc
    with sidecar:
        handshake = sidecar.handshake
        variables = {
            "HATCHET_CLIENT_TOKEN": handshake.token,
            "HATCHET_CLIENT_TENANT_ID": handshake.tenant_id,
            "HATCHET_CLIENT_HOST_PORT": handshake.grpc_address,
            "HATCHET_CLIENT_SERVER_URL": handshake.api_url,
            "HATCHET_CLIENT_TLS_STRATEGY": "none",
        }
        saved = {name: os.environ.get(name) for name in variables}
        os.environ.update(variables)
        try:
            yield variables
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _floor_task(hatchet: Any) -> Any:
    """Register the no-op task (no retries, like LGOS's) on ``hatchet``."""

    @hatchet.task(name=FLOOR_TASK, retries=0)
    async def noop(task_input: EmptyModel, ctx: Context) -> dict[str, str]:
        return {"status": "ok"}

    return noop


def floor_calls(poll: float) -> tuple[dict[str, Call], Any]:
    """Make the engine-floor calls, in this process's Hatchet client.

    ``rest`` triggers the no-op task and polls ``runs.aio_get`` every
    ``poll`` seconds until the run is ``COMPLETED`` (LGOS's read path, the
    bench's poll interval); ``listen`` triggers it and awaits the SDK's
    ``aio_result`` (the engine's run-event stream, no polling).

    Returns:
        ``({"rest": call, "listen": call}, hatchet)``; the worker must run
        (:func:`floor_worker_command`).

    """
    from hatchet_sdk.clients.rest.models.v1_task_status import V1TaskStatus

    hatchet = Hatchet()
    task = _floor_task(hatchet)

    async def rest() -> None:
        ref = await task.aio_run(EmptyModel(), wait_for_result=False)
        deadline = time.monotonic() + 120
        while True:
            await asyncio.sleep(poll)
            try:
                details = await hatchet.runs.aio_get(ref.workflow_run_id)
            except Exception:  # not visible through the REST API yet
                details = None
            if details is not None and details.run.status == V1TaskStatus.COMPLETED:
                return
            if details is not None and details.run.status in (
                V1TaskStatus.FAILED,
                V1TaskStatus.CANCELLED,
            ):
                raise RuntimeError(f"floor run ended {details.run.status}")
            if time.monotonic() > deadline:
                raise RuntimeError("floor run still not completed after 120 s")

    async def listen() -> None:
        ref = await task.aio_run(EmptyModel(), wait_for_result=False)
        result = await ref.aio_result()
        if result.get("status") != "ok":
            raise RuntimeError(f"unexpected floor result {result!r}")

    return {"rest": rest, "listen": listen}, hatchet


class HatchetWorker(Server):
    """A Hatchet worker process with the SDK's health route enabled.

    ``health_port`` is the loopback port of its ``/health`` route, which
    answers 200 once the worker is connected to the engine (see
    :func:`wait_healthy`).
    """

    def __init__(self, args: list[str], name: str) -> None:
        self.health_port = free_port()
        env = {
            "HATCHET_CLIENT_WORKER_HEALTHCHECK_ENABLED": "true",
            "HATCHET_CLIENT_WORKER_HEALTHCHECK_PORT": str(self.health_port),
            "HATCHET_CLIENT_WORKER_HEALTHCHECK_BIND_ADDRESS": "127.0.0.1",
        }
        super().__init__(args, ready_path=None, env=env, name=name)


def wait_healthy(worker: HatchetWorker, timeout: float = 240) -> None:
    """Wait until a :class:`HatchetWorker` answers its health route with 200.

    Raises:
        RuntimeError: The process exited or was not healthy in ``timeout``
            seconds (with its log's tail).

    """
    url = f"http://127.0.0.1:{worker.health_port}/health"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if worker.process.poll() is not None:
            raise RuntimeError(f"{worker.log}: exited\n{worker.log_tail()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(
        f"{worker.log}: not healthy in {timeout:g} s\n{worker.log_tail()}"
    )


def floor_worker_command() -> list[str]:
    """Return the command of the floor's worker process (this interpreter)."""
    import sys

    return [sys.executable, "-m", "bench.hatchet"]


def _run_floor_worker() -> None:
    """Run the no-op task's worker until stopped (``python -m bench.hatchet``)."""
    hatchet = Hatchet()
    task = _floor_task(hatchet)
    hatchet.worker("lgos-bench-floor", workflows=[task]).start()


if __name__ == "__main__":
    _run_floor_worker()
