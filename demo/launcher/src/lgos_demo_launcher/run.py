"""The runner of `just demo`: finds out the facts, follows the plan.

Everything this module decides comes from `lgos_demo_launcher.plan`; what it
adds is the input and output: asking Docker whether an engine answers,
probing ports, printing, and running the services until they end or Ctrl-C
stops them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from lgos_demo_launcher.checks import (
    ATTACHED,
    IMAGES_MISSING,
    LOCAL_IMAGES,
    attach_refusal,
    busy_ports,
    readiness,
)
from lgos_demo_launcher.plan import (
    LOCAL_SYNC,
    DockerCheck,
    Help,
    LaunchError,
    Plan,
    load_env,
    make_plan,
)

ROOT = Path(__file__).resolve().parents[4]
"""The repository's root: commands and relative paths are taken from there."""

BIFROST_GENERATOR = "demo/gateway/src/lgos_demo_gateway/bifrost.py"
"""The script that prints Bifrost's configuration (run as a file: no import needed)."""


def _out(text: str) -> None:
    print(text, flush=True)


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _which(env: Mapping[str, str]) -> Callable[[str], str | None]:
    """Find programs on the PATH of ``env`` (the one the services get)."""
    return lambda name: shutil.which(name, path=env.get("PATH", ""))


def docker_check(env: Mapping[str, str]) -> DockerCheck:
    """Ask whether a Docker engine and the Compose plugin answer in time."""
    seconds = env.get("DEMO_DOCKER_TIMEOUT") or "5"
    docker = _which(env)("docker")
    if docker is None:
        return DockerCheck(False, "no docker command on PATH")
    try:
        limit = float(seconds)
    except ValueError:
        limit = 5.0
    try:
        info = subprocess.run(
            [docker, "info"],
            env=dict(env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return DockerCheck(
            False, f"no Docker engine answered 'docker info' within {seconds}s"
        )
    if info.returncode != 0:
        lines = [line for line in info.stderr.splitlines() if line.strip()]
        detail = f" ({lines[-1]})" if lines else ""
        return DockerCheck(False, f"no Docker engine answers 'docker info'{detail}")
    plugin = subprocess.run(
        [docker, "compose", "version"],
        env=dict(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    if plugin.returncode != 0:
        return DockerCheck(
            False, "a Docker engine answers but the 'docker compose' plugin is missing"
        )
    return DockerCheck(True, "a Docker engine answers 'docker info'")


def port_busy(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port``."""
    if not 0 < port < 65536:
        return False
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _docker_output(
    env: Mapping[str, str], *args: str, strict: bool = True
) -> str | None:
    """Return the stdout of ``docker args...`` (stderr dropped).

    None when it cannot run, or (``strict``) when it ends with an error.
    """
    try:
        done = subprocess.run(
            ["docker", *args],
            env=dict(env),
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 or not strict else None


def run_until_stopped(command: Sequence[str], env: Mapping[str, str]) -> int:
    """Run ``command`` until it ends; return its status as `just demo` reports it.

    Ctrl-C reaches the command too (the terminal signals the whole process
    group); whatever status it then ends with, the result is 130, an
    interrupt. A SIGTERM stop (143) is a normal end (0).
    """
    interrupted = False

    def on_interrupt(_signum: int, _frame: object) -> None:
        nonlocal interrupted
        interrupted = True

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        try:
            process = subprocess.Popen(list(command), env=dict(env))
        except FileNotFoundError:
            _err(f"just demo: {command[0]}: command not found")
            return 127
        status = process.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    if status < 0:
        status = 128 - status
    if interrupted:
        return 130
    if status == 143:
        return 0
    return status


def _print_bifrost_config(plan: Plan) -> None:
    config = plan.bifrost_config
    if config is None:
        return
    _out(f"  Bifrost configuration ({config.where}):")
    done = subprocess.run(
        [sys.executable, BIFROST_GENERATOR, "--lgos-url", config.lgos_url, "--print"],
        env=plan.env,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    for line in done.stdout.splitlines():
        _out(f"    {line}")
    if done.returncode != 0:  # its own message is on stderr
        raise SystemExit(done.returncode)


def _refuse_busy_ports(plan: Plan) -> None:
    message = busy_ports(plan, port_busy)
    if message:
        raise LaunchError(message, 1)


def _check_images(plan: Plan) -> None:
    images = (
        _docker_output(plan.env, "compose", "config", "--images", strict=False) or ""
    )
    missing = False
    for image in images.splitlines():
        if not image or image in LOCAL_IMAGES:
            continue
        inspect = subprocess.run(
            ["docker", "image", "inspect", image],
            env=plan.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        missing = missing or inspect.returncode != 0
    if not missing:
        return
    _out("Pulling the images the stack needs...")
    pull = subprocess.run(
        ["docker", "compose", "pull", "--ignore-buildable", "--quiet"],
        env=plan.env,
        check=False,
    )
    if pull.returncode != 0:
        raise LaunchError(IMAGES_MISSING, 1)


def _announce_ready(plan: Plan, stop: threading.Event) -> None:
    """Every 2 s until ``stop``: once the stack reports ready, say so once."""
    while not stop.wait(2):
        states = _docker_output(
            plan.env, "compose", "ps", "--format", "{{.Service}}={{.Health}}"
        )
        if states is None:
            continue
        provisioned = None
        if plan.open_webui_url:
            provisioned = _docker_output(
                plan.env,
                "compose",
                "ps",
                "--all",
                "--status",
                "exited",
                "--format",
                "{{.Service}}={{.ExitCode}}",
                "open-webui-provision",
            )
        ready = readiness(plan, states, provisioned)
        if ready is None:
            continue
        if ready.warning:
            _err(ready.warning)
        _out(ready.line)
        return


def run_compose(plan: Plan) -> int:
    """Start the Compose stack of ``plan`` (or attach to it) until it ends."""
    attached = False
    if not plan.dry_run:
        running = _docker_output(
            plan.env, "compose", "ps", "--status", "running", "-q", strict=False
        )
        if running and running.strip():
            services = _docker_output(
                plan.env,
                "compose",
                "--profile",
                "*",
                "ps",
                "--status",
                "running",
                "--services",
                strict=False,
            )

            def replicas() -> int:
                ids = _docker_output(
                    plan.env,
                    "compose",
                    "ps",
                    "--status",
                    "running",
                    "-q",
                    "api",
                    strict=False,
                )
                return len([line for line in (ids or "").splitlines() if line])

            refusal = attach_refusal(plan, (services or "").split(), replicas)
            if refusal:
                raise LaunchError(refusal, 1)
            attached = True
        else:
            _refuse_busy_ports(plan)
        _check_images(plan)
    for line in plan.stdout:
        _out(line)
    _print_bifrost_config(plan)
    if attached:
        _out(ATTACHED.format(compose_cli=plan.compose_cli))
    if plan.dry_run:
        for line in plan.dry_run_lines:
            _out(line)
        return 0
    for line in plan.start_lines:
        _out(line)
    stop = threading.Event()
    watcher = threading.Thread(target=_announce_ready, args=(plan, stop), daemon=True)
    watcher.start()
    status = run_until_stopped(plan.command, plan.env)
    stop.set()
    if status not in (0, 130):
        # Nothing half-started keeps running (restart: unless-stopped would
        # even bring it back with the engine).
        _err(
            f"just demo: Compose ended with status {status}; "
            "stopping the containers it started."
        )
        sys.stdout.flush()
        subprocess.run(
            ["docker", "compose", "stop"], env=plan.env, stdout=2, check=False
        )
    return status


def _step(
    command: Sequence[str], env: Mapping[str, str], stdout: int | None = None
) -> str:
    """Run a preparation step; a failure ends the launcher with its status."""
    done = subprocess.run(
        list(command), env=dict(env), stdout=stdout, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(done.returncode)
    return done.stdout or ""


def run_local(plan: Plan) -> int:
    """Start the local processes of ``plan`` with honcho until they end."""
    for line in plan.warnings:
        _err(line)
    if not plan.dry_run:
        _refuse_busy_ports(plan)
    for line in plan.stdout:
        _out(line)
    _print_bifrost_config(plan)
    for line in plan.after_config:
        _out(line)
    if plan.bifrost_missing:
        _err(plan.bifrost_missing)
        if not plan.dry_run:
            return 1
    if plan.dry_run:
        for line in plan.dry_run_lines:
            _out(line)
        return 0
    for line in plan.start_lines:
        _out(line)
    env = plan.env
    _step(LOCAL_SYNC, env)
    if plan.ensure_litellm:
        # The pinned LiteLLM proxy in its own environment (cached after the first run).
        litellm = _step(
            ["bash", "scripts/ensure-litellm.sh"],
            env,
            stdout=subprocess.PIPE,
        )
        env["DEMO_GATEWAY_LITELLM"] = litellm.rstrip("\n")
    if plan.ensure_open_webui:
        _step(["bash", "scripts/ensure-open-webui.sh"], env, stdout=subprocess.DEVNULL)
    # What the processes write under .data is the user's alone:
    # files 0600, folders 0700.
    os.umask(0o077)
    return run_until_stopped(plan.command, env)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `just demo` with ``argv`` (default: the command line); return the status."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = ROOT if (ROOT / "justfile").is_file() else Path.cwd()
    os.chdir(root)
    env = load_env(os.environ, os.environ.get("DEMO_ENV_FILE") or ".env")
    try:
        plan = make_plan(
            args,
            env,
            docker=lambda: docker_check(env),
            which=_which(env),
            is_executable=lambda path: os.access(path, os.X_OK),
            cwd=str(root),
        )
        if isinstance(plan, Help):
            sys.stdout.write(plan.text)
            return 0
        if plan.mode == "compose":
            return run_compose(plan)
        return run_local(plan)
    except LaunchError as refused:
        _err(refused.message)
        return refused.code
