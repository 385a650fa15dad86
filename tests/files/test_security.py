"""Authentication, hostile filenames and IDs, malformed bodies (PostgreSQL)."""

from __future__ import annotations

import random

import httpx
import openai
import pytest

from lgos_demo_files.names import (
    MAX_FILENAME_BYTES,
    content_disposition,
    content_type_for,
    sanitize_filename,
)
from tests.contract.openapi import validate
from tests.files.conftest import API_KEY, BASE_URL, FilesStack

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

ROUTES = [
    ("POST", "/v1/files"),
    ("GET", "/v1/files"),
    ("GET", "/v1/files/file-abc"),
    ("GET", "/v1/files/file-abc/content"),
    ("DELETE", "/v1/files/file-abc"),
]


BAD_AUTHORIZATIONS = [
    None,
    "",
    "Bearer",
    "Bearer ",
    "Basic dGVzdDp0ZXN0",
    "Bearer wrong-key",
    f"Bearer {API_KEY}x",
    f"Token {API_KEY}",
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_route_needs_the_key(
    pg_stack: FilesStack, method: str, path: str
) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=pg_stack.app), base_url=BASE_URL
    ) as anonymous:
        for authorization in BAD_AUTHORIZATIONS:
            headers = {} if authorization is None else {"Authorization": authorization}
            files = (
                {"purpose": (None, "batch"), "file": ("a.txt", b"a")}
                if method == "POST"
                else None
            )
            reply = await anonymous.request(method, path, headers=headers, files=files)
            assert reply.status_code == 401, authorization
            body = reply.json()
            validate("ErrorResponse", body)
            assert body["error"]["type"] == "invalid_request_error"
            assert reply.headers["www-authenticate"] == "Bearer"
            assert API_KEY not in reply.text
    assert pg_stack.stored_keys() == []


async def test_sdk_with_a_wrong_key_gets_authentication_errors(
    pg_stack: FilesStack,
) -> None:
    created = await pg_stack.client.files.create(file=("a.txt", b"a"), purpose="batch")
    wrong = pg_stack.client.with_options(api_key="not-the-key")
    calls = [
        lambda: wrong.files.create(file=("b.txt", b"b"), purpose="batch"),
        lambda: wrong.files.list(),
        lambda: wrong.files.retrieve(created.id),
        lambda: wrong.files.content(created.id),
        lambda: wrong.files.delete(created.id),
    ]
    for call in calls:
        with pytest.raises(openai.AuthenticationError) as caught:
            await call()
        body = caught.value.response.json()
        validate("ErrorResponse", body)
        assert body["error"]["code"] == "invalid_api_key"
    # Nothing changed: the file is still there, no other was stored.
    assert [f.id for f in (await pg_stack.client.files.list()).data] == [created.id]
    assert pg_stack.stored_keys() == [created.id]


async def test_health_needs_no_key_and_touches_the_database(
    pg_stack: FilesStack,
) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=pg_stack.app), base_url=BASE_URL
    ) as anonymous:
        reply = await anonymous.get("/health")
        assert reply.status_code == 200
        assert reply.json() == {"status": "ok"}

        service = pg_stack.app.state.files
        await service.metadata.close()  # the database is gone
        try:
            broken = await anonymous.get("/health")
        finally:
            await service.metadata.open()
        assert broken.status_code == 503
        validate("ErrorResponse", broken.json())
        assert (await anonymous.get("/health")).status_code == 200


HOSTILE_NAMES = [
    ("../../etc/passwd", "passwd"),
    ("..\\x", "x"),
    ("..\\..\\windows\\system32\\cmd.exe", "cmd.exe"),
    ("C:\\Users\\me\\report.pdf", "report.pdf"),
    ("/absolute/path/to/file.txt", "file.txt"),
    ("..", "file"),
    ("...", "file"),
    ("./", "file"),
    (".bashrc", "bashrc"),
    ("...hidden.txt", "hidden.txt"),
    ("dir/", "dir"),
    ("  spaced   out  .txt  ", "spaced out .txt"),
    ("", "file"),
]


@pytest.mark.parametrize(("raw", "expected"), HOSTILE_NAMES)
async def test_hostile_filenames_through_the_sdk(
    pg_stack: FilesStack, raw: str, expected: str
) -> None:
    created = await pg_stack.client.files.create(
        file=(raw, b"payload"), purpose="user_data"
    )
    assert created.filename == expected
    again = await pg_stack.client.files.retrieve(created.id)
    assert again.filename == expected
    content = await pg_stack.client.files.content(created.id)
    assert content.content == b"payload"
    # Only the generated ID names the object: nothing escaped the store.
    assert pg_stack.stored_keys() == [created.id]
    assert sorted(p.name for p in pg_stack.storage.parent.iterdir()) == ["objects"]


async def test_control_characters_in_raw_part_headers(pg_stack: FilesStack) -> None:
    name = b"re\x00po\x01rt\x1b\x7f/../..\\.se\xe2\x80\xaecret\x00.txt"
    body = (
        b'--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n'
        b'--B\r\nContent-Disposition: form-data; name="file"; filename="'
        + name
        + b'"\r\n'
        b"Content-Type: text/plain\r\n\r\nsecret\r\n--B--\r\n"
    )
    reply = await pg_stack.http.post(
        "/v1/files",
        content=body,
        headers={"Content-Type": "multipart/form-data; boundary=B"},
    )
    assert reply.status_code == 200, reply.text
    created = reply.json()
    validate("OpenAIFile", created)
    # NUL, C0/C1 controls and the bidi override are gone; the path is dropped.
    assert created["filename"] == "secret.txt"
    assert pg_stack.stored_keys() == [created["id"]]


async def test_sdk_escapes_nul_and_it_is_never_stored(pg_stack: FilesStack) -> None:
    created = await pg_stack.client.files.create(
        file=("a\x00b\nc.txt", b"x"), purpose="user_data"
    )
    assert "\x00" not in created.filename and "\n" not in created.filename
    assert "/" not in created.filename and "\\" not in created.filename


async def test_long_filenames_are_shortened_keeping_the_extension(
    pg_stack: FilesStack,
) -> None:
    created = await pg_stack.client.files.create(
        file=("é" * 1000 + ".jsonl", b"{}"), purpose="batch"
    )
    assert created.filename.endswith(".jsonl")
    assert len(created.filename.encode()) <= MAX_FILENAME_BYTES
    assert created.filename == "é" * 124 + ".jsonl"
    assert pg_stack.stored_keys() == [created.id]

    # A part header beyond 16 KiB is refused as malformed, not a 500.
    with pytest.raises(openai.BadRequestError) as caught:
        await pg_stack.client.files.create(
            file=("a" * 40_000 + ".txt", b"x"), purpose="batch"
        )
    validate("ErrorResponse", caught.value.response.json())
    assert pg_stack.stored_keys() == [created.id]


TRAVERSAL_PATHS = [
    "/v1/files/..%2F..%2Fetc%2Fpasswd",
    "/v1/files/..%2F..%2Fetc%2Fpasswd/content",
    "/v1/files/%2e%2e/content",
    "/v1/files/..%5C..%5Cx/content",
    "/v1/files/file-..%2Fobjects/content",
    "/v1/files/file-abc%00/content",
    "/v1/files/file-abc%2F..%2F..%2Fx",
    "/v1/files/file-" + "a" * 65,
    "/v1/files/%00",
    "/v1/files/file-abc%20",
]


@pytest.mark.parametrize("path", TRAVERSAL_PATHS)
@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_traversal_ids_in_urls_are_not_found(
    pg_stack: FilesStack, path: str, method: str
) -> None:
    created = await pg_stack.client.files.create(
        file=("a.txt", b"keep"), purpose="batch"
    )
    reply = await pg_stack.http.request(method, path)
    assert reply.status_code in (404, 405)
    validate("ErrorResponse", reply.json())
    assert (await pg_stack.client.files.content(created.id)).content == b"keep"


@pytest.mark.parametrize(
    "file_id", ["../x", "..", "../../etc/passwd", "file-abc/../x", "\x00"]
)
async def test_traversal_ids_through_the_sdk(
    pg_stack: FilesStack, file_id: str
) -> None:
    for call in (
        pg_stack.client.files.retrieve,
        pg_stack.client.files.content,
        pg_stack.client.files.delete,
    ):
        try:
            await call(file_id)
        except openai.NotFoundError as exc:
            validate("ErrorResponse", exc.response.json())
        except ValueError as exc:  # the SDK itself refuses dot-segments
            assert "dot-segment" in str(exc)
        else:
            pytest.fail(f"{call.__name__}({file_id!r}) succeeded")


MALFORMED_BODIES = [
    (b"", "multipart/form-data; boundary=B"),
    (b"garbage", "multipart/form-data; boundary=B"),
    (b"--B\r\n", "multipart/form-data; boundary=B"),
    (
        b'--B\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
        "multipart/form-data; boundary=B",
    ),
    (b"--B\r\nX-Nothing: 1\r\n\r\nabc\r\n--B--\r\n", "multipart/form-data; boundary=B"),
    (
        b"--B\r\nContent-Disposition: attachment\r\n\r\nabc\r\n--B--\r\n",
        "multipart/form-data; boundary=B",
    ),
    (
        b'--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n\xff\xfe\r\n--B--\r\n',
        "multipart/form-data; boundary=B",
    ),
    (
        b"--B\r\n" + b"X: y\r\n" * 20 + b"\r\nabc\r\n--B--\r\n",
        "multipart/form-data; boundary=B",
    ),
    (b"--B--\r\n", "multipart/form-data; boundary=" + "B" * 300),
    (b"abc", "multipart/form-data"),
    (b"abc", "application/octet-stream"),
    (b"purpose=batch", "application/x-www-form-urlencoded"),
    (
        b"--B\r\n"
        + b"".join(
            b'Content-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--B\r\n'
            for _ in range(10)
        )
        + b"--",
        "multipart/form-data; boundary=B",
    ),
]


@pytest.mark.parametrize(("body", "content_type"), MALFORMED_BODIES)
async def test_malformed_uploads_are_400(
    pg_stack: FilesStack, body: bytes, content_type: str
) -> None:
    reply = await pg_stack.http.post(
        "/v1/files", content=body, headers={"Content-Type": content_type}
    )
    assert reply.status_code == 400, reply.text
    validate("ErrorResponse", reply.json())
    assert pg_stack.stored_keys() == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        *HOSTILE_NAMES,
        ("a\x00b.txt", "ab.txt"),
        ("tab\there.txt", "tab here.txt"),
        ("line\r\nbreak.txt", "line break.txt"),
        ("zero\u200bwidth\u202e.txt", "zerowidth.txt"),
        ("e\u0301te.txt", "\u00e9te.txt"),  # NFC
        ("name.", "name"),
        ("x" * 300, "x" * 255),
        ("x" * 300 + "." + "y" * 40, ("x" * 300 + "." + "y" * 40)[:255]),
        ("x" * 300 + ".tar.gz", "x" * 252 + ".gz"),
    ],
)
def test_sanitize_filename(raw: str, expected: str) -> None:
    assert sanitize_filename(raw) == expected
    assert len(expected.encode()) <= MAX_FILENAME_BYTES


def test_content_type_for() -> None:
    assert (
        content_type_for("Text/Plain; charset=utf-8", "a.bin")
        == "text/plain; charset=utf-8"
    )
    assert content_type_for(None, "a.png") == "image/png"
    assert content_type_for("bogus", "a.json") == "application/json"
    assert content_type_for("text/html\r\nX-Evil: 1", "a.txt") == "text/plain"
    assert content_type_for(None, "noextension") == "application/octet-stream"


def test_content_disposition_is_header_safe() -> None:
    header = content_disposition('we"ird\\ 名前.txt')
    assert header == (
        'attachment; filename="we_ird_ __.txt"; '
        "filename*=UTF-8''we%22ird%5C%20%E5%90%8D%E5%89%8D.txt"
    )
    assert header.isascii() and "\r" not in header and "\n" not in header


async def test_mutated_uploads_never_fail_with_5xx(pg_stack: FilesStack) -> None:
    rng = random.Random(20260815)
    valid = (
        b'--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n'
        b'--B\r\nContent-Disposition: form-data; name="expires_after[anchor]"\r\n\r\n'
        b"created_at\r\n"
        b'--B\r\nContent-Disposition: form-data; name="expires_after[seconds]"\r\n\r\n'
        b"3600\r\n"
        b'--B\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\nhello world\r\n--B--\r\n"
    )
    noise = [b"\x00", b"\r\n", b"--B", b'"', b";", b"\xff", b"--B--", b":", b"\\"]
    statuses: dict[int, int] = {}
    for _ in range(300):
        body = bytearray(valid)
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(body))
            action = rng.choice(["flip", "cut", "insert", "delete"])
            if action == "flip":
                body[position] = rng.randrange(256)
            elif action == "cut":
                del body[position:]
            elif action == "insert":
                body[position:position] = rng.choice(noise)
            elif body:
                del body[position : position + rng.randint(1, 8)]
            if not body:
                break
        reply = await pg_stack.http.post(
            "/v1/files",
            content=bytes(body),
            headers={"Content-Type": "multipart/form-data; boundary=B"},
        )
        statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
        assert reply.status_code in (200, 400), reply.text
        if reply.status_code == 200:
            validate("OpenAIFile", reply.json())
        else:
            validate("ErrorResponse", reply.json())
    assert statuses.get(400, 0) > 100
    # Only accepted uploads left objects behind, each with its record.
    listed = await pg_stack.client.files.list()
    assert sorted(f.id for f in listed.data) == pg_stack.stored_keys()
    assert len(listed.data) == statuses.get(200, 0)
