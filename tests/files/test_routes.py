"""Every /v1/files route through the unmodified OpenAI SDK, on PostgreSQL and SQLite.

Each object, list and error the service sends is validated against OpenAI's
published OpenAPI document.
"""

from __future__ import annotations

import openai
import pytest

from lgos_demo_files.service import BATCH_DEFAULT_EXPIRY_SECONDS
from tests.contract.openapi import validate
from tests.files.conftest import FilesStack, StackFactory

pytestmark = pytest.mark.anyio


def assert_error(
    exc: openai.APIStatusError, status: int, param: str | None = None
) -> dict:
    assert exc.status_code == status
    body = exc.response.json()
    validate("ErrorResponse", body)
    if param is not None:
        assert body["error"]["param"] == param
    return body["error"]


async def test_upload_retrieve_content_delete_round_trip(stack: FilesStack) -> None:
    client = stack.client
    raw = await client.files.with_raw_response.create(
        file=("notes.txt", b"hello files", "text/plain"), purpose="user_data"
    )
    assert raw.http_response.status_code == 200
    body = raw.http_response.json()
    validate("OpenAIFile", body)
    assert body["id"].startswith("file-")
    assert body == {
        "id": body["id"],
        "object": "file",
        "bytes": 11,
        "created_at": int(stack.clock.now),
        "filename": "notes.txt",
        "purpose": "user_data",
        "status": "processed",
    }
    created = raw.parse()
    assert created.id == body["id"] and created.bytes == 11

    # The bytes live under the file ID, nothing else.
    assert stack.stored_keys() == [created.id]

    raw_get = await client.files.with_raw_response.retrieve(created.id)
    validate("OpenAIFile", raw_get.http_response.json())
    assert raw_get.http_response.json() == body
    retrieved = raw_get.parse()
    assert retrieved.filename == "notes.txt" and retrieved.status == "processed"

    content = await client.files.content(created.id)
    assert content.content == b"hello files"
    assert content.response.headers["content-type"] == "text/plain"
    assert content.response.headers["content-length"] == "11"
    assert content.response.headers["content-disposition"] == (
        "attachment; filename=\"notes.txt\"; filename*=UTF-8''notes.txt"
    )
    assert content.response.headers["x-content-type-options"] == "nosniff"

    raw_delete = await client.files.with_raw_response.delete(created.id)
    deleted_body = raw_delete.http_response.json()
    validate("DeleteFileResponse", deleted_body)
    assert deleted_body == {"id": created.id, "object": "file", "deleted": True}
    assert raw_delete.parse().deleted is True
    assert stack.stored_keys() == []

    for call in (
        client.files.retrieve(created.id),
        client.files.content(created.id),
        client.files.delete(created.id),
    ):
        with pytest.raises(openai.NotFoundError) as caught:
            await call
        error = assert_error(caught.value, 404, "file_id")
        assert created.id in error["message"]
    listed = await client.files.list()
    assert listed.data == []


async def test_list_orders_pages_and_filters(stack: FilesStack) -> None:
    client = stack.client
    ids: list[str] = []
    for index in range(5):
        purpose = "assistants" if index % 2 == 0 else "vision"
        created = await client.files.create(
            file=(f"f{index}.txt", f"file {index}".encode()), purpose=purpose
        )
        ids.append(created.id)
        if index == 2:
            stack.clock.advance(1)  # two different created_at values, ties inside

    raw = await client.files.with_raw_response.list()
    body = raw.http_response.json()
    validate("ListFilesResponse", body)
    assert [item["id"] for item in body["data"]] == ids[::-1]  # newest first
    assert body["object"] == "list"
    assert body["first_id"] == ids[-1] and body["last_id"] == ids[0]
    assert body["has_more"] is False

    # Pages of two, ascending, following `after` by hand.
    seen: list[str] = []
    after: str | None = None
    pages = 0
    while True:
        raw_page = await client.files.with_raw_response.list(
            limit=2, order="asc", after=after or openai.omit
        )
        page_body = raw_page.http_response.json()
        validate("ListFilesResponse", page_body)
        pages += 1
        seen.extend(item["id"] for item in page_body["data"])
        assert page_body["has_more"] is (len(seen) < 5)
        if not page_body["has_more"]:
            break
        after = page_body["last_id"]
    assert seen == ids and pages == 3

    # The SDK's own auto-pagination (descending, pages of two) sees all five.
    collected = [f.id async for f in client.files.list(limit=2)]
    assert collected == ids[::-1]

    page = await client.files.list(limit=2, order="desc", after=ids[3])
    assert [f.id for f in page.data] == [ids[2], ids[1]]
    assert page.has_more is True

    vision = await client.files.with_raw_response.list(purpose="vision", order="asc")
    vision_body = vision.http_response.json()
    validate("ListFilesResponse", vision_body)
    assert [item["id"] for item in vision_body["data"]] == [ids[1], ids[3]]
    assert {item["purpose"] for item in vision_body["data"]} == {"vision"}

    none = await client.files.with_raw_response.list(purpose="batch")
    none_body = none.http_response.json()
    validate("ListFilesResponse", none_body)
    assert none_body["data"] == [] and none_body["has_more"] is False


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 10001}, "limit"),
        ({"limit": "many"}, "limit"),
        ({"order": "sideways"}, "order"),
        ({"after": "file-doesnotexist"}, "after"),
        ({"after": "../etc"}, "after"),
    ],
)
async def test_list_rejects_bad_parameters(
    stack: FilesStack, params: dict, param: str
) -> None:
    reply = await stack.http.get("/v1/files", params=params)
    assert reply.status_code == 400
    body = reply.json()
    validate("ErrorResponse", body)
    assert body["error"]["param"] == param
    assert body["error"]["type"] == "invalid_request_error"


async def test_list_limit_bounds_are_accepted(stack: FilesStack) -> None:
    await stack.client.files.create(file=("a.txt", b"a"), purpose="user_data")
    one = await stack.client.files.list(limit=1)
    assert len(one.data) == 1
    most = await stack.client.files.list(limit=10000)
    assert len(most.data) == 1


async def test_content_type_is_recorded_or_guessed(stack: FilesStack) -> None:
    client = stack.client
    declared = await client.files.create(
        file=("data.bin", b"{}", "application/json; charset=utf-8"), purpose="user_data"
    )
    reply = await client.files.content(declared.id)
    assert reply.response.headers["content-type"] == "application/json; charset=utf-8"

    # httpx guesses from the name when the SDK is given none.
    guessed = await client.files.create(
        file=("page.html", b"<p>x</p>"), purpose="user_data"
    )
    reply = await client.files.content(guessed.id)
    assert reply.response.headers["content-type"] == "text/html"
    assert (
        reply.response.headers["content-security-policy"]
        == "default-src 'none'; sandbox"
    )

    # No Content-Type header on the part, or a malformed one: guess from the name.
    for part_type in (None, "not a type\x7f", 'text/plain; x="unterminated'):
        reply = await stack.http.post(
            "/v1/files",
            content=csv_upload(part_type),
            headers={"Content-Type": "multipart/form-data; boundary=B"},
        )
        assert reply.status_code == 200, reply.text
        validate("OpenAIFile", reply.json())
        content = await client.files.content(reply.json()["id"])
        assert content.response.headers["content-type"] == "text/csv"
        assert content.content == b"a,b"

    # A header value broken by CR LF is a malformed body, not a 500.
    reply = await stack.http.post(
        "/v1/files",
        content=csv_upload('text/plain; evil="a\r\nb"'),
        headers={"Content-Type": "multipart/form-data; boundary=B"},
    )
    assert reply.status_code == 400
    validate("ErrorResponse", reply.json())
    assert "malformed" in reply.json()["error"]["message"]


def csv_upload(part_type: str | None) -> bytes:
    headers = f"Content-Type: {part_type}\r\n" if part_type else ""
    return (
        b'--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n'
        b'--B\r\nContent-Disposition: form-data; name="file"; filename="table.csv"\r\n'
        + headers.encode("latin-1")
        + b"\r\na,b\r\n--B--\r\n"
    )


async def test_unicode_filename_is_kept_and_served_safely(stack: FilesStack) -> None:
    created = await stack.client.files.create(
        file=('rapport "final" é 東京.pdf', b"%PDF"), purpose="assistants"
    )
    # httpx percent-encodes the quotes in the part header; they stay as sent.
    assert created.filename == "rapport %22final%22 é 東京.pdf"
    reply = await stack.client.files.content(created.id)
    disposition = reply.response.headers["content-disposition"]
    assert disposition == (
        'attachment; filename="rapport %22final%22 _ __.pdf"; '
        "filename*=UTF-8''rapport%20%2522final%2522%20%C3%A9%20%E6%9D%B1%E4%BA%AC.pdf"
    )
    assert reply.response.headers["content-type"] == "application/pdf"


async def test_expires_after_and_the_batch_default(stack: FilesStack) -> None:
    client = stack.client
    now = int(stack.clock.now)
    raw = await client.files.with_raw_response.create(
        file=("a.jsonl", b"{}\n"),
        purpose="user_data",
        expires_after={"anchor": "created_at", "seconds": 3600},
    )
    body = raw.http_response.json()
    validate("OpenAIFile", body)
    assert body["expires_at"] == now + 3600
    assert (await client.files.retrieve(body["id"])).expires_at == now + 3600

    batch = await client.files.with_raw_response.create(
        file=("b.jsonl", b"{}\n"), purpose="batch"
    )
    batch_body = batch.http_response.json()
    validate("OpenAIFile", batch_body)
    assert batch_body["expires_at"] == now + BATCH_DEFAULT_EXPIRY_SECONDS

    longest = await client.files.create(
        file=("c.jsonl", b"{}\n"),
        purpose="batch",
        expires_after={"anchor": "created_at", "seconds": 2592000},
    )
    assert longest.expires_at == now + 2592000

    listed = await client.files.with_raw_response.list(order="asc")
    listed_body = listed.http_response.json()
    validate("ListFilesResponse", listed_body)
    assert [item.get("expires_at") for item in listed_body["data"]] == [
        now + 3600,
        now + BATCH_DEFAULT_EXPIRY_SECONDS,
        now + 2592000,
    ]


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"purpose": "evals"}, "purpose"),
        ({"purpose": "fine-tune-results"}, "purpose"),
        ({"purpose": "x" * 5000}, "purpose"),
        (
            {
                "purpose": "batch",
                "expires_after": {"anchor": "created_at", "seconds": 3599},
            },
            "expires_after[seconds]",
        ),
        (
            {
                "purpose": "batch",
                "expires_after": {"anchor": "created_at", "seconds": 2592001},
            },
            "expires_after[seconds]",
        ),
        (
            {
                "purpose": "batch",
                "expires_after": {"anchor": "created_at", "seconds": "soon"},
            },
            "expires_after[seconds]",
        ),
        (
            {
                "purpose": "batch",
                "expires_after": {"anchor": "updated_at", "seconds": 3600},
            },
            "expires_after[anchor]",
        ),
        (
            {"purpose": "batch", "expires_after": {"anchor": "created_at"}},
            "expires_after[seconds]",
        ),
        (
            {"purpose": "batch", "expires_after": {"seconds": 3600}},
            "expires_after[anchor]",
        ),
    ],
)
async def test_upload_rejects_invalid_fields(
    stack: FilesStack, kwargs: dict, param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        await stack.client.files.create(file=("a.txt", b"abc"), **kwargs)
    assert_error(caught.value, 400, param)
    assert stack.stored_keys() == []
    assert (await stack.client.files.list()).data == []


async def test_upload_needs_a_file_and_a_purpose(stack: FilesStack) -> None:
    missing_purpose = await stack.http.post(
        "/v1/files", files={"file": ("a.txt", b"abc")}
    )
    assert missing_purpose.status_code == 400
    validate("ErrorResponse", missing_purpose.json())
    assert missing_purpose.json()["error"]["param"] == "purpose"

    missing_file = await stack.http.post(
        "/v1/files", files={"purpose": (None, "batch")}
    )
    assert missing_file.status_code == 400
    assert missing_file.json()["error"]["param"] == "file"

    # A `file` part without a filename is still the file, named "file".
    text_file = await stack.http.post(
        "/v1/files", files={"purpose": (None, "batch"), "file": (None, "plain text")}
    )
    assert text_file.status_code == 200
    validate("OpenAIFile", text_file.json())
    assert text_file.json()["filename"] == "file"
    assert text_file.json()["bytes"] == len("plain text")
    await stack.client.files.delete(text_file.json()["id"])

    two_files = await stack.http.post(
        "/v1/files",
        files=[
            ("purpose", (None, "batch")),
            ("file", ("a.txt", b"a")),
            ("file", ("b.txt", b"b")),
        ],
    )
    assert two_files.status_code == 400
    assert two_files.json()["error"]["param"] == "file"

    unknown = await stack.http.post(
        "/v1/files",
        files={
            "purpose": (None, "batch"),
            "mode": (None, "x"),
            "file": ("a.txt", b"a"),
        },
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"] == {
        "message": "Unrecognized request argument supplied: mode",
        "type": "invalid_request_error",
        "param": "mode",
        "code": "unknown_parameter",
    }

    as_json = await stack.http.post("/v1/files", json={"purpose": "batch"})
    assert as_json.status_code == 400
    validate("ErrorResponse", as_json.json())
    assert stack.stored_keys() == []


async def test_empty_file_is_stored(stack: FilesStack) -> None:
    created = await stack.client.files.create(
        file=("empty.txt", b""), purpose="user_data"
    )
    assert created.bytes == 0
    assert (await stack.client.files.content(created.id)).content == b""


async def test_data_survives_a_restart(make_stack: StackFactory) -> None:
    async with make_stack() as first:
        created = await first.client.files.create(
            file=("keep.txt", b"durable"), purpose="assistants"
        )
    async with make_stack() as second:
        assert (await second.client.files.retrieve(created.id)).filename == "keep.txt"
        assert (await second.client.files.content(created.id)).content == b"durable"
        assert [f.id for f in (await second.client.files.list()).data] == [created.id]


async def test_unknown_routes_and_methods_use_the_envelope(stack: FilesStack) -> None:
    for method, path, status in [
        ("GET", "/v1/nothing", 404),
        ("PUT", "/v1/files", 405),
        ("POST", "/v1/files/file-abc", 405),
    ]:
        reply = await stack.http.request(method, path)
        assert reply.status_code == status
        validate("ErrorResponse", reply.json())
