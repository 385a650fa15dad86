"""`python -m lgos_demo_files` as a real Uvicorn process, over real HTTP."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import openai
import pytest

from tests.contract.openapi import validate
from tests.procs import free_port, running

pytestmark = [pytest.mark.integration]

KEY = "server-test-key"


def test_module_serves_files_over_http(tmp_path: Path, postgres_uri: str) -> None:
    port = free_port()
    env = {
        "DEMO_FILES_API_KEY": KEY,
        "DEMO_FILES_DATABASE_URL": postgres_uri,
        "DEMO_FILES_STORAGE_URL": f"file://{tmp_path / 'objects'}",
        "DEMO_FILES_MAX_BYTES": str(1024 * 1024),
    }
    args = [
        sys.executable,
        "-m",
        "lgos_demo_files",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with running(
        args,
        ready_url=f"http://127.0.0.1:{port}/health",
        log=tmp_path / "files.log",
        env=env,
    ):
        health = httpx.get(f"http://127.0.0.1:{port}/health")
        assert health.json() == {"status": "ok"}

        client = openai.OpenAI(
            base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, max_retries=0
        )
        created = client.files.create(
            file=("hello.md", b"# hi\n"), purpose="assistants"
        )
        assert created.filename == "hello.md"
        assert client.files.content(created.id).content == b"# hi\n"
        assert [f.id for f in client.files.list()] == [created.id]
        assert (tmp_path / "objects" / created.id).read_bytes() == b"# hi\n"

        # Oversized: refused with 413 while streaming (the SDK sees the answer),
        # and refused from Content-Length alone when far too large.
        for size in (3 * 1024 * 1024, 40 * 1024 * 1024):
            with pytest.raises(openai.APIStatusError) as caught:
                client.files.create(file=("big.bin", b"\0" * size), purpose="batch")
            assert caught.value.status_code == 413
            validate("ErrorResponse", caught.value.response.json())
        assert sorted(p.name for p in (tmp_path / "objects").iterdir()) == [created.id]

        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(
                base_url=f"http://127.0.0.1:{port}/v1", api_key="nope", max_retries=0
            ).files.list()
        assert client.files.delete(created.id).deleted is True
