#!/usr/bin/env python3
"""A Hatchet engine sidecar for the Hatchet SDK's embedded mode.

The Hatchet SDK's ``Hatchet.from_embedded()`` starts a sidecar process
(``HATCHET_CLIENT_EMBEDDED_BINARY_PATH``) with the command line of
``hatchet-embedded``'s sidecar command, waits for it to write a JSON handshake
(``token``, ``tenant_id``, ``grpc_address``, ``api_url``) and stops it by
closing its stdin. ``hatchet-embedded`` itself is not served by the Go module
proxy here, so ``scripts/ensure-hatchet.sh`` builds the same engine from
``github.com/hatchet-dev/hatchet`` (``hatchet-lite``: engine, gRPC and REST
API in one process; ``hatchet-migrate``; ``hatchet-admin``) and installs this
launcher beside those binaries. It speaks the same command line:

    hatchet-embedded-sidecar -handshake-file PATH -database-url URL
        [-grpc-port N] [-api-port N] [-no-migrations] [-log-level LEVEL]
        [-rabbitmq-url URL]

Differences from the upstream sidecar: there is no bundled PostgreSQL, so
``-database-url`` is required (``-postgres-data-dir`` is refused), and the
REST API always runs (``-no-api`` is accepted and ignored; LGOS's background
backend reads runs through it). The engine's generated configuration
(encryption keys) is kept per database under ``config/`` beside the binaries,
so a restarted engine reads what an earlier one wrote. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
# hatchet-admin quickstart seeds this tenant; tokens are minted for it.
DEFAULT_TENANT_ID = "707d0855-80ab-4e1f-a156-f1c4546cbf52"
READY_TIMEOUT_SECONDS = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _parse(argv: list[str]) -> argparse.Namespace:
    # Go's flag package spells long flags with one dash; argparse accepts that.
    parser = argparse.ArgumentParser(prog="hatchet-embedded-sidecar")
    parser.add_argument("-handshake-file", required=True)
    parser.add_argument("-database-url")
    parser.add_argument("-rabbitmq-url")
    parser.add_argument("-postgres-data-dir")
    parser.add_argument("-grpc-port", type=int)
    parser.add_argument("-api-port", type=int)
    parser.add_argument("-no-api", action="store_true")
    parser.add_argument("-no-migrations", action="store_true")
    parser.add_argument("-log-level")
    return parser.parse_args(argv)


def _engine_env(args: argparse.Namespace, config_dir: Path) -> dict[str, str]:
    grpc_port = args.grpc_port or _free_port()
    api_port = args.api_port or _free_port()
    grpc = f"127.0.0.1:{grpc_port}"
    static = HERE / "static"
    static.mkdir(exist_ok=True)
    index = static / "index.html"
    if not index.exists():
        index.write_text("<!doctype html><title>Hatchet engine</title>\n")
    env = dict(os.environ)
    env.update(
        DATABASE_URL=args.database_url,
        SERVER_URL=f"http://127.0.0.1:{api_port}",
        SERVER_PORT=str(_free_port()),
        SERVER_GRPC_PORT=str(grpc_port),
        SERVER_GRPC_BIND_ADDRESS="127.0.0.1",
        SERVER_GRPC_BROADCAST_ADDRESS=grpc,
        SERVER_GRPC_INSECURE="t",
        SERVER_INTERNAL_CLIENT_INTERNAL_GRPC_BROADCAST_ADDRESS=grpc,
        SERVER_HEALTHCHECK_PORT=str(_free_port()),
        SERVER_AUTH_COOKIE_DOMAIN="localhost",
        SERVER_AUTH_COOKIE_INSECURE="t",
        SERVER_DEFAULT_ENGINE_VERSION="V1",
        # A task whose worker stops heartbeating fails instead of being handed
        # to another worker: LGOS never runs a graph twice for one Response.
        SERVER_MAX_INTERNAL_RETRY_COUNT="0",
        LITE_STATIC_ASSET_DIR=str(static),
        LITE_FRONTEND_PORT=str(_free_port()),
        LITE_RUNTIME_PORT=str(api_port),
    )
    if args.rabbitmq_url:
        env["SERVER_MSGQUEUE_KIND"] = "rabbitmq"
        env["SERVER_MSGQUEUE_RABBITMQ_URL"] = args.rabbitmq_url
    else:
        env["SERVER_MSGQUEUE_KIND"] = "postgres"
    if args.log_level:
        env["SERVER_LOGGER_LEVEL"] = args.log_level
    return env


def _run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        command, env=env, stdout=subprocess.PIPE, stderr=sys.stderr, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"sidecar: {Path(command[0]).name} exited {done.returncode}")
    return done.stdout.decode()


def _ready(env: dict[str, str]) -> bool:
    urls = (
        f"http://127.0.0.1:{env['SERVER_HEALTHCHECK_PORT']}/ready",
        f"{env['SERVER_URL']}/api/ready",
    )
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status != 200:
                    return False
        except (OSError, urllib.error.URLError):
            return False
    return True


def main(argv: list[str]) -> int:
    """Start the engine, write the handshake, run until stdin closes."""
    args = _parse(argv)
    if not args.database_url:
        print(
            "sidecar: -database-url is required (no bundled PostgreSQL)",
            file=sys.stderr,
        )
        return 2
    if args.postgres_data_dir:
        print("sidecar: -postgres-data-dir is not supported", file=sys.stderr)
        return 2
    digest = hashlib.sha256(args.database_url.encode()).hexdigest()[:16]
    config_dir = HERE / "config" / digest
    config_dir.mkdir(parents=True, exist_ok=True)
    env = _engine_env(args, config_dir)

    if not args.no_migrations:
        _run([str(HERE / "hatchet-migrate")], env)
    _run(
        [
            str(HERE / "hatchet-admin"),
            "quickstart",
            "--skip",
            "certs",
            "--generated-config-dir",
            str(config_dir),
            "--overwrite=false",
        ],
        env,
    )
    lite = subprocess.Popen(
        [str(HERE / "hatchet-lite"), "--config", str(config_dir)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=sys.stderr,
        stderr=sys.stderr,
    )

    stop = threading.Event()

    def _stop(*_: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)

    def _watch_stdin() -> None:
        # The SDK closes our stdin to stop us (its process exited).
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        stop.set()

    threading.Thread(target=_watch_stdin, daemon=True).start()

    try:
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while not _ready(env):
            if lite.poll() is not None:
                print(
                    f"sidecar: hatchet-lite exited {lite.returncode}", file=sys.stderr
                )
                return 1
            if stop.is_set() or time.monotonic() > deadline:
                return 1
            time.sleep(0.2)
        token = (
            _run(
                [
                    str(HERE / "hatchet-admin"),
                    "token",
                    "create",
                    "--config",
                    str(config_dir),
                    "--tenant-id",
                    DEFAULT_TENANT_ID,
                    "--name",
                    f"sidecar-{os.getpid()}",
                ],
                env,
            )
            .strip()
            .splitlines()[-1]
        )
        handshake = {
            "token": token,
            "tenant_id": DEFAULT_TENANT_ID,
            "grpc_address": env["SERVER_GRPC_BROADCAST_ADDRESS"],
            "api_url": env["SERVER_URL"],
        }
        path = Path(args.handshake_file)
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(handshake))
        partial.replace(path)
        while not stop.wait(0.5):
            if lite.poll() is not None:
                print(
                    f"sidecar: hatchet-lite exited {lite.returncode}", file=sys.stderr
                )
                return 1
        return 0
    finally:
        if lite.poll() is None:
            lite.terminate()
            try:
                lite.wait(timeout=20)
            except subprocess.TimeoutExpired:
                lite.kill()
                lite.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
