"""Command-line clients (Codex, aider, llm) against the demo API, recorded.

A CLI is a program of its own, not a library the test can patch, so the
client matrix puts two things around it:

- :class:`WireProxy`, a recording HTTP proxy in front of the demo API. It
  listens on a Unix socket, forwards each request to the demo API unchanged
  and streams the answer back; every exchange (method, path, headers, JSON
  body, status, answer) is kept for the test, as ``node_cells`` keeps the
  JavaScript clients' exchanges.
- :func:`run_cli`, which runs the CLI under ``unshare --net``: a network
  namespace whose only interface is loopback, where ``netns_bridge.py``
  pipes ``127.0.0.1:8000`` to the proxy's socket. Nothing else is reachable,
  so a client's update check, telemetry or web search cannot leave the
  machine. The namespace also sets the proxy variables (``HTTPS_PROXY``...)
  to the bridge, so a client that honours them shows each attempt to leave
  as a ``CONNECT`` the proxy refuses and records (:attr:`WireProxy.left`).

:func:`check_first_body` compares the first request body a client sent with
the committed copy in ``tests/clients/bodies/`` (machine paths, UUIDs, dates
and timestamps redacted), so a new client release that changes what it sends
shows up as a diff. ``LGOS_RECORD_CLIENT_BODIES=1`` rewrites the copies.
"""

from __future__ import annotations

import difflib
import gzip
import http.client
import importlib.metadata
import json
import os
import re
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.demo_services import clean_env
from tests.tiers import require

HERE = Path(__file__).resolve().parent
BRIDGE = HERE / "netns_bridge.py"
BODIES = HERE / "bodies"
PORT = 8000
"""The demo API's port as the CLIs see it, inside their network namespace."""
BASE_URL = f"http://127.0.0.1:{PORT}/v1"
"""The demo API's OpenAI base URL as the CLIs see it."""
RECORD = "LGOS_RECORD_CLIENT_BODIES"
PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)

# Request headers that belong to one hop, not to the request.
_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "content-length",
}


@dataclass
class Exchange:
    """One request a client sent through the proxy, and what it got back."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    status: int = 0
    answer: bytes = b""
    done: threading.Event = field(default_factory=threading.Event)
    """Set once the proxy has the whole answer (a client may exit on the
    last chunk, before the proxy's thread has recorded it)."""

    def json(self) -> Any:
        """The answer as JSON (an error body, a Response, a Chat Completion)."""
        self.done.wait(10)
        return json.loads(self.answer)

    def events(self) -> list[dict[str, Any]]:
        """The answer's server-sent events' JSON data, in order."""
        self.done.wait(10)
        found = []
        for line in self.answer.decode().splitlines():
            if line.startswith("data:"):
                data = line.removeprefix("data:").strip()
                if data and data != "[DONE]":
                    found.append(json.loads(data))
        return found


@dataclass
class WireProxy:
    """A recording proxy in front of ``upstream`` (the demo API's origin)."""

    upstream: str
    socket: Path
    exchanges: list[Exchange] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    """Requests for anywhere but the demo API (proxy CONNECTs), refused."""

    def posts(self, path: str) -> list[Exchange]:
        """The POSTs whose path ends with ``path`` (``/responses``), in order."""
        return [
            e for e in self.exchanges if e.method == "POST" and e.path.endswith(path)
        ]


def _decoded(raw: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(raw)
    if encoding == "deflate":
        return zlib.decompress(raw)
    return raw


def _parsed(raw: bytes, encoding: str) -> Any:
    if not raw:
        return None
    try:
        text = _decoded(raw, encoding).decode()
    except (OSError, zlib.error, UnicodeDecodeError):
        return raw
    try:
        return json.loads(text)
    except ValueError:
        return text


def _handler(proxy: WireProxy) -> type[BaseHTTPRequestHandler]:
    origin = urlsplit(proxy.upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _body(self) -> bytes:
            if self.headers.get("transfer-encoding", "").lower() == "chunked":
                chunks = []
                while size := int(self.rfile.readline().split(b";")[0], 16):
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(chunks)
            return self.rfile.read(int(self.headers.get("content-length") or 0))

        def _refuse(self) -> None:
            proxy.left.append(f"{self.command} {self.path}")
            self.send_response(403)
            self.send_header("content-length", "0")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True

        def _forward(self) -> None:
            if self.command == "CONNECT" or not self.path.startswith("/"):
                self._refuse()
                return
            raw = self._body()
            headers = {k.lower(): v for k, v in self.headers.items()}
            exchange = Exchange(
                self.command,
                self.path,
                headers,
                _parsed(raw, headers.get("content-encoding", "")),
            )
            proxy.exchanges.append(exchange)
            upstream = http.client.HTTPConnection(
                origin.hostname or "127.0.0.1", origin.port, timeout=120
            )
            try:
                upstream.request(
                    self.command,
                    self.path,
                    body=raw,
                    headers={k: v for k, v in headers.items() if k not in _HOP}
                    | {"content-length": str(len(raw))},
                )
                answer = upstream.getresponse()
                exchange.status = answer.status
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in _HOP:
                        self.send_header(name, value)
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                received = []
                while piece := answer.read1(65536):
                    received.append(piece)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                exchange.answer = b"".join(received)
                self.wfile.write(b"0\r\n\r\n")
            finally:
                exchange.done.set()
                upstream.close()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_CONNECT = _forward

    return Handler


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@contextmanager
def wire_proxy(upstream: str, socket_path: Path) -> Iterator[WireProxy]:
    """Serve a :class:`WireProxy` for ``upstream`` at ``socket_path`` until the block ends."""
    proxy = WireProxy(upstream, socket_path)
    server = _Server(str(socket_path), _handler(proxy))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
        socket_path.unlink(missing_ok=True)


@contextmanager
def demo_proxy(demo_api_url: str) -> Iterator[WireProxy]:
    """A :class:`WireProxy` for the demo API at ``demo_api_url`` (its ``/v1`` URL).

    Its socket lives in a short temporary folder of its own: a Unix socket's
    path has at most 107 bytes, which pytest's ``tmp_path`` can exceed.
    """
    folder = Path(tempfile.mkdtemp(prefix="lgos-wire-"))
    try:
        with wire_proxy(demo_api_url.removesuffix("/v1"), folder / "api.sock") as proxy:
            yield proxy
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def python_cli(name: str) -> Path:
    """The virtual environment of the pinned Python CLI ``name`` (``aider``, ``llm``).

    ``scripts/ensure-cli-clients.sh`` (which ``just test`` runs for the
    ``clients`` tier) installs it once; here it only answers where.
    """
    require("clients")
    done = subprocess.run(
        ["bash", str(HERE.parents[1] / "scripts" / "ensure-cli-clients.sh"), name],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(
            f"scripts/ensure-cli-clients.sh {name} exited {done.returncode}:\n"
            f"{done.stderr}",
            pytrace=False,
        )
    return Path(done.stdout.split("\t")[1].strip())


def installed_version(venv: Path, distribution: str) -> str:
    """The version of ``distribution`` installed in ``venv`` (no process started)."""
    folders = [str(folder) for folder in venv.glob("lib/python*/site-packages")]
    found = [
        dist.version
        for dist in importlib.metadata.distributions(path=folders)
        if dist.metadata["Name"] == distribution
    ]
    assert len(found) == 1, f"{distribution} in {venv}: {found}"
    return found[0]


@dataclass(frozen=True)
class Ran:
    """What a CLI printed, how it exited, and how long it took."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def jsonl(self) -> list[dict[str, Any]]:
        """stdout's JSON lines (``codex exec --json``), other lines skipped."""
        found = []
        for line in self.stdout.splitlines():
            if line.startswith("{"):
                found.append(json.loads(line))
        return found


def _unshare() -> list[str]:
    found = shutil.which("unshare")
    if found is None:
        pytest.fail(
            "the CLI client tests need util-linux's unshare (a network namespace "
            "keeps each CLI on loopback)",
            pytrace=False,
        )
    # Root can make a network namespace; anyone else needs a user namespace too.
    return (
        [found, "--net"] if os.geteuid() == 0 else [found, "--net", "--map-root-user"]
    )


def run_cli(
    args: Sequence[str],
    proxy: WireProxy,
    *,
    cwd: Path,
    env: Mapping[str, str] = {},
    timeout: float = 60,
) -> Ran:
    """Run ``args`` in ``cwd`` in a network namespace that reaches only ``proxy``.

    The environment is :func:`clean_env` (no provider keys or LGOS settings)
    with UTC, bash as the shell, the proxy variables pointing at the bridge,
    and ``env`` on top. stdin is empty. Prints the command's output and the
    exchanges, so pytest shows them beside a failing assertion.
    """
    require("clients")
    bridge = f"http://127.0.0.1:{PORT}"
    full_env = (
        clean_env()
        | {"TZ": "UTC", "SHELL": "/bin/bash", "NO_COLOR": "1", "TERM": "dumb"}
        | {name: bridge for name in PROXY_VARIABLES}
        | {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
        | dict(env)
    )
    command = [
        *_unshare(),
        sys.executable,
        str(BRIDGE),
        str(proxy.socket),
        str(PORT),
        "--",
        *args,
    ]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        _show(args, stdout, stderr, proxy)
        pytest.fail(f"{args[0]} did not finish in {timeout} s", pytrace=False)
    ran = Ran(process.returncode, stdout, stderr, time.monotonic() - started)
    _show(args, stdout, stderr, proxy)
    print(f"exit {ran.returncode} after {ran.seconds:.1f} s")
    return ran


def _show(args: Sequence[str], stdout: str, stderr: str, proxy: WireProxy) -> None:
    print(f"$ {' '.join(args)}\n--- stdout\n{stdout}\n--- stderr\n{stderr[-6000:]}")
    for exchange in proxy.exchanges:
        answer = exchange.answer[:3000].decode(errors="replace")
        print(f"--- {exchange.method} {exchange.path} -> {exchange.status}\n{answer}")
    if proxy.left:
        print(f"--- refused (not the demo API): {proxy.left}")


# --------------------------------------------------------------------------
# The first request body, compared with its committed copy
# --------------------------------------------------------------------------

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
UNIX_MS = re.compile(r"\b1[0-9]{12}\b")


def redact(value: Any, paths: Mapping[str, str]) -> Any:
    """``value`` with what changes from run to run replaced by placeholders.

    ``paths`` maps machine paths (longest first wins) to their placeholder
    (``{"/tmp/.../work": "<cwd>"}``); UUIDs become ``<uuid>``, dates
    ``<date>`` and millisecond timestamps ``<unix-ms>``, in every string,
    JSON strings within strings included.
    """
    if isinstance(value, dict):
        return {key: redact(item, paths) for key, item in value.items()}
    if isinstance(value, list):
        return [redact(item, paths) for item in value]
    if isinstance(value, str):
        for path in sorted(paths, key=len, reverse=True):
            value = value.replace(path, paths[path])
        value = UUID.sub("<uuid>", value)
        value = DATE.sub("<date>", value)
        return UNIX_MS.sub("<unix-ms>", value)
    return value


def check_first_body(name: str, body: Any, paths: Mapping[str, str]) -> None:
    """Compare ``body`` (redacted) with ``tests/clients/bodies/<name>.json``.

    Keys and values must match; the order of an object's keys does not
    (Codex writes some objects from a hash map). With
    ``LGOS_RECORD_CLIENT_BODIES=1`` the file is written instead (keys
    sorted): review the diff and commit it when a client's new version
    changes its request.
    """
    path = BODIES / f"{name}.json"
    redacted = redact(body, paths)
    text = json.dumps(redacted, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get(RECORD):
        BODIES.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"no recorded body {path}: run with {RECORD}=1 once"
    committed = path.read_text()
    if redacted != json.loads(committed):
        diff = difflib.unified_diff(
            committed.splitlines(),
            text.splitlines(),
            f"{path.name} (committed)",
            f"{name} (sent now)",
            lineterm="",
        )
        pytest.fail(
            f"{name} now sends another first request than {path.name} records; "
            f"if the client's new version means it, rerun with {RECORD}=1 and "
            "commit the file:\n" + "\n".join(diff),
            pytrace=False,
        )
