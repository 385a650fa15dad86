"""Start and stop real server processes for integration and end-to-end tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[1]


def executable(name: str) -> str | None:
    """The program ``name`` on PATH, or None; a pyenv shim resolved to its target.

    A pyenv shim is a script that puts its Python's ``bin`` first on PATH before
    it runs the program: a test that puts a fake tool first on PATH, or runs the
    program with a PATH of its own, needs the program itself.
    """
    found = shutil.which(name)
    if found is None or Path(found).parent.name != "shims":
        return found
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return found
    done = subprocess.run(
        [pyenv, "which", name], capture_output=True, text=True, check=False
    )
    target = done.stdout.strip()
    return target if done.returncode == 0 and target else found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(
    url: str, process: subprocess.Popen, log: Path, timeout: float = 60
) -> None:
    """Wait until ``url`` answers below 500; fail at once if ``process`` exits."""

    def answered() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: process exited\n{log.read_text()[-4000:]}")
        try:
            return httpx.get(url, timeout=2).status_code < 500
        except httpx.HTTPError:
            return False

    wait_until(
        answered,
        timeout=timeout,
        interval=0.2,
        message=lambda: f"{url} to answer\n{log.read_text()[-4000:]}",
    )


@contextmanager
def running(
    args: Sequence[str],
    *,
    ready_url: str,
    log: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
    cwd: Path | None = None,
) -> Iterator[subprocess.Popen]:
    """Run ``args`` from ``cwd`` (the repository root) until the block ends."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    with log.open("wb") as out:
        process = subprocess.Popen(
            list(args),
            cwd=cwd or ROOT,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_http(ready_url, process, log, timeout)
            yield process
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def lgos_command() -> list[str]:
    return [str(Path(sys.executable).with_name("lgos"))]


def ensured(script: str, *, timeout: float) -> str:
    """Run ``scripts/<script>`` (an ``ensure-*.sh``) and return its last line.

    Those scripts install or build a pinned tool once (cached under
    ``~/.cache/lgos``) and print its path last. A script that fails or prints
    nothing fails the calling test with its stderr's tail: a tier that was
    asked for and cannot run is a failure, not a skip (``tests/tiers.py``).
    """
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        pytest.fail(
            f"scripts/{script} failed (exit {done.returncode}):\n"
            f"{done.stderr.strip()[-4000:]}",
            pytrace=False,
        )
    return lines[-1]
