"""API keys on a real `lgos serve`: rotation by file and SIGHUP, tenants, the warning."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai import OpenAI

from tests.procs import ROOT, free_port, lgos_command, running
from tests.waiting import wait_until

FACTORY = "tests.lgos.interrupt_graphs:serve_interrupt_registry"
ACME = "sk-acme-000000000001"  # from the key file, tenant acme
GLOBEX = "sk-globex-0000000001"  # from LGOS_API_KEYS, tenant globex
OPEN_WARNING = "The API is open"


@dataclass
class Server:
    url: str
    key_file: Path
    log: Path
    process: subprocess.Popen[bytes]

    def status(self, key: str, path: str = "/models") -> int:
        headers = {"Authorization": f"Bearer {key}"}
        return httpx.get(f"{self.url}{path}", headers=headers, timeout=10).status_code

    def client(self, key: str) -> OpenAI:
        return OpenAI(base_url=self.url, api_key=key, max_retries=0)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `lgos serve` on every interface, with a key file and a key setting."""
    work = tmp_path_factory.mktemp("keys")
    key_file = work / "keys.txt"
    key_file.write_text(f"# the tenants' keys\n{ACME} acme\n")
    port = free_port()
    log = work / "api.log"
    env = {"LGOS_API_KEY_FILE": str(key_file), "LGOS_API_KEYS": f"{GLOBEX} globex"}
    with running(
        [*lgos_command(), "serve", FACTORY, "--host", "0.0.0.0", "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=log,
        env=env,
    ) as process:
        yield Server(f"http://127.0.0.1:{port}/v1", key_file, log, process)


def test_keys_are_required_and_no_warning_is_printed(server: Server) -> None:
    assert server.status(ACME) == 200
    assert server.status(GLOBEX) == 200
    reply = httpx.get(f"{server.url}/models", timeout=10)
    assert reply.status_code == 401
    assert reply.json()["error"]["code"] == "invalid_api_key"
    assert httpx.get(f"{server.url}/health", timeout=10).status_code == 200
    # Keys are set, so listening on 0.0.0.0 is not "open".
    log = server.log.read_text()
    assert OPEN_WARNING not in log
    assert ACME not in log
    assert GLOBEX not in log


def test_the_probes_are_open_and_the_metrics_need_a_key(server: Server) -> None:
    root = server.url.removesuffix("/v1")
    for probe in ("/health/live", "/health/ready"):
        assert httpx.get(f"{root}{probe}", timeout=10).status_code == 200
    refused = httpx.get(f"{root}/metrics", timeout=10)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "invalid_api_key"
    wrong = {"Authorization": "Bearer sk-not-a-key"}
    assert httpx.get(f"{root}/metrics", headers=wrong, timeout=10).status_code == 401
    scraped = httpx.get(
        f"{root}/metrics", headers={"Authorization": f"Bearer {ACME}"}, timeout=10
    )
    assert scraped.status_code == 200
    assert "lgos_http_requests_total" in scraped.text


def _resume(client: OpenAI, paused: Any) -> Any:
    return client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=[
            {"type": "function_call_output", "call_id": c.call_id, "output": "approve"}
            for c in paused.output
            if c.type == "function_call"
        ],
    )


def _error(client: OpenAI, paused: Any) -> tuple[int, Any]:
    with pytest.raises(openai.APIStatusError) as raised:
        _resume(client, paused)
    return raised.value.status_code, raised.value.body


def test_a_pause_is_out_of_another_tenants_reach(server: Server) -> None:
    acme, globex = server.client(ACME), server.client(GLOBEX)
    paused = acme.responses.create(model="approval", input="Refund 42")
    finished = acme.responses.create(model="approval", input="Refund 43")
    assert _resume(acme, finished).status == "completed"
    nonexistent = _error(acme, finished)
    assert nonexistent[0] == 409
    assert _error(globex, paused) == nonexistent
    assert _resume(acme, paused).status == "completed"


def test_a_rotated_key_file_is_read_without_a_restart(server: Server) -> None:
    rotated = "sk-acme-000000000002"
    new = server.key_file.with_name("keys.new")
    new.write_text(f"{rotated} acme\n")
    os.replace(new, server.key_file)  # atomic, as a Secret volume swaps files
    wait_until(
        lambda: server.status(ACME) == 401,
        timeout=10,
        interval=0.1,
        message="the old key to be refused",
    )
    assert server.status(rotated) == 200
    assert server.status(GLOBEX) == 200  # LGOS_API_KEYS is not the file's
    assert "API keys reloaded" in server.log.read_text()


def test_sighup_reads_the_key_file_at_once(server: Server) -> None:
    """A change the file check cannot see (same inode, size and time) needs SIGHUP."""
    old, new = "sk-acme-000000000003", "sk-acme-000000000004"
    server.key_file.write_text(f"{old} acme\n")  # a change the check sees
    wait_until(lambda: server.status(old) == 200, timeout=10, interval=0.1)
    stat = server.key_file.stat()
    with server.key_file.open("r+") as out:  # in place: same inode and size
        out.write(f"{new} acme\n")
    os.utime(server.key_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert server.status(new) == 401  # unseen until the signal
    server.process.send_signal(signal.SIGHUP)
    wait_until(
        lambda: server.status(new) == 200,
        timeout=10,
        interval=0.1,
        message="the new key after SIGHUP",
    )
    assert server.status(old) == 401
    assert "(SIGHUP)" in server.log.read_text()
    assert server.process.poll() is None  # SIGHUP did not end the process


def test_an_open_api_on_the_network_is_one_warning(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "api.log"
    with running(
        [*lgos_command(), "serve", FACTORY, "--host", "0.0.0.0", "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=log,
        env={"LGOS_API_KEYS": "", "LGOS_API_KEY_FILE": ""},
    ):
        assert httpx.get(f"http://127.0.0.1:{port}/v1/models").status_code == 200
    warnings = [line for line in log.read_text().splitlines() if OPEN_WARNING in line]
    assert len(warnings) == 1, log.read_text()
    record = json.loads(warnings[0])  # a log record in the server's format
    assert record["level"] == "WARNING"
    assert "lgos serve listens on 0.0.0.0" in record["message"]


def test_a_broken_key_file_stops_the_start_with_one_line(tmp_path: Path) -> None:
    key_file = tmp_path / "keys.txt"
    key_file.write_text(f"{ACME} acme and more\n")
    result = subprocess.run(
        [*lgos_command(), "serve", FACTORY, "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT), "LGOS_API_KEY_FILE": str(key_file)},
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"{key_file} line 1" in lines[0]
    assert ACME not in result.stderr
