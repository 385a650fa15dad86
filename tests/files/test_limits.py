"""The upload size limit (enforced while streaming), aborted uploads, concurrency."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import openai
import pytest

from lgos_demo_files.upload import DRAIN_LIMIT
from tests.contract.openapi import validate
from tests.files.conftest import API_KEY, FilesStack, StackFactory

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

BOUNDARY = "limitboundary"
HEAD = (
    f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n'
    f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
    "Content-Type: application/octet-stream\r\n\r\n"
).encode()
TAIL = f"\r\n--{BOUNDARY}--\r\n".encode()
MULTIPART = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}


def leftovers(stack: FilesStack) -> list[str]:
    """Every file under the storage directory, staging files included."""
    return sorted(str(p) for p in stack.storage.rglob("*") if p.is_file())


async def test_limit_is_inclusive_and_413_leaves_nothing(
    make_pg_stack: StackFactory,
) -> None:
    async with make_pg_stack(max_bytes=1024) as stack:
        exact = await stack.client.files.create(
            file=("ok.bin", b"x" * 1024), purpose="batch"
        )
        assert exact.bytes == 1024

        with pytest.raises(openai.APIStatusError) as caught:
            await stack.client.files.create(
                file=("big.bin", b"x" * 1025), purpose="batch"
            )
        assert caught.value.status_code == 413
        body = caught.value.response.json()
        validate("ErrorResponse", body)
        assert body["error"]["code"] == "file_too_large"
        assert body["error"]["param"] == "file"

        assert [f.id for f in (await stack.client.files.list()).data] == [exact.id]
        assert stack.stored_keys() == [exact.id]
        # The service keeps working after a refusal.
        again = await stack.client.files.create(file=("ok2.bin", b"y"), purpose="batch")
        assert (await stack.client.files.content(again.id)).content == b"y"


async def test_limit_is_enforced_while_the_body_streams(
    make_pg_stack: StackFactory,
) -> None:
    chunk = b"z" * (64 * 1024)
    offered = 200 * 1024 * 1024  # far more than would ever be read
    sent = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal sent
        yield HEAD
        while sent < offered:
            sent += len(chunk)
            yield chunk
        yield TAIL

    async with make_pg_stack(max_bytes=256 * 1024) as stack:
        # No Content-Length: chunked, so only the streaming check can stop it.
        reply = await stack.http.post("/v1/files", content=body(), headers=MULTIPART)
        assert reply.status_code == 413
        validate("ErrorResponse", reply.json())
        # Reading stopped a bounded distance past the limit.
        assert sent <= 256 * 1024 + DRAIN_LIMIT + 2 * len(chunk)
        assert sent < offered // 4
        assert leftovers(stack) == []
        assert (await stack.client.files.list()).data == []


async def test_declared_oversized_length_is_refused_before_reading(
    make_pg_stack: StackFactory,
) -> None:
    read = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal read
        read += 1
        yield HEAD + b"x" * 10 + TAIL

    async with make_pg_stack(max_bytes=1024) as stack:
        reply = await stack.http.post(
            "/v1/files",
            content=body(),
            headers={**MULTIPART, "Content-Length": str(10 * 1024**3)},
        )
        assert reply.status_code == 413
        validate("ErrorResponse", reply.json())
        assert read == 0


async def test_aborted_multipart_upload_leaves_no_staging_files(
    make_pg_stack: StackFactory,
) -> None:
    # Larger than obstore's 5 MiB buffer, so a multipart upload really starts.
    limit = 12 * 1024 * 1024
    async with make_pg_stack(max_bytes=limit) as stack:
        with pytest.raises(openai.APIStatusError) as caught:
            await stack.client.files.create(
                file=("big.bin", os.urandom(limit + 1)), purpose="batch"
            )
        assert caught.value.status_code == 413
        assert leftovers(stack) == []

        payload = os.urandom(limit)
        created = await stack.client.files.create(
            file=("fits.bin", payload), purpose="batch"
        )
        assert created.bytes == limit
        assert (await stack.client.files.content(created.id)).content == payload
        assert stack.stored_keys() == [created.id]


async def test_client_disconnect_mid_upload_leaves_nothing(
    pg_stack: FilesStack,
) -> None:
    messages = [
        {"type": "http.request", "body": HEAD, "more_body": True},
        {"type": "http.request", "body": b"x" * 1000, "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/files",
        "raw_path": b"/v1/files",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"files.test"),
            (b"authorization", f"Bearer {API_KEY}".encode()),
            (b"content-type", MULTIPART["Content-Type"].encode()),
        ],
        "client": ("127.0.0.1", 1234),
        "server": ("files.test", 80),
        "state": {},
    }
    await pg_stack.app(scope, receive, send)  # pyright: ignore[reportArgumentType]
    assert sent[0]["type"] == "http.response.start"
    assert sent[0]["status"] < 500
    assert leftovers(pg_stack) == []
    assert (await pg_stack.client.files.list()).data == []


async def test_twenty_concurrent_uploads(make_stack: StackFactory) -> None:
    async with make_stack() as stack:
        payloads = {
            f"part-{i:02d}.bin": os.urandom(50_000 + i * 997) for i in range(20)
        }
        created = await asyncio.gather(
            *(
                stack.client.files.create(file=(name, data), purpose="assistants")
                for name, data in payloads.items()
            )
        )
        assert len({f.id for f in created}) == 20
        assert stack.stored_keys() == sorted(f.id for f in created)

        listed = await stack.client.files.list()
        assert {f.id for f in listed.data} == {f.id for f in created}

        async def check(file: openai.types.FileObject) -> None:
            retrieved = await stack.client.files.retrieve(file.id)
            assert retrieved.filename == file.filename
            assert retrieved.bytes == len(payloads[file.filename])
            content = await stack.client.files.content(file.id)
            assert content.content == payloads[file.filename]

        await asyncio.gather(*(check(f) for f in created))

        await asyncio.gather(*(stack.client.files.delete(f.id) for f in created))
        assert stack.stored_keys() == []
        assert (await stack.client.files.list()).data == []
