"""`resolve_file_inputs` and the Files client, against in-process Files APIs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from openai import AsyncOpenAI

from lgos_demo_api.attachments import (
    FileCache,
    file_ids,
    own_text,
    parse_attachments,
    render_attachment,
    resolve_file_inputs,
)
from lgos_demo_api.files_client import FilesClient, StoredFile, guess_mime_type
from lgos_demo_api.settings import DemoApiSettings
from tests.demo.fake_files import FakeFiles, files_client, make_pdf

pytestmark = pytest.mark.anyio

NOTES = b"# Launch notes\n\nShip on Friday.\nOwner: Dana.\n"
CSV = b"month,revenue\nJan,100\nFeb,250\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


@pytest.fixture
def fake() -> FakeFiles:
    return FakeFiles()


@pytest.fixture
async def files(fake: FakeFiles) -> AsyncIterator[FilesClient]:
    async with files_client(fake) as client:
        yield client


def ask(text: str, *ids: str) -> HumanMessage:
    return HumanMessage(
        content=[
            {"type": "text", "text": text},
            *({"type": "file", "file_id": i} for i in ids),
        ]
    )


def texts(message: HumanMessage) -> list[str]:
    assert isinstance(message.content, list)
    return [b["text"] for b in message.content if isinstance(b, dict)]


async def test_text_markdown_and_csv_become_headed_text(
    fake: FakeFiles, files: FilesClient
) -> None:
    notes = fake.add("notes.md", NOTES, "text/markdown")
    table = fake.add("sales.csv", CSV, "application/vnd.ms-excel")
    original = [SystemMessage("Be brief."), ask("Summarise these", notes, table)]
    resolved = await resolve_file_inputs(original, files)

    assert resolved[0] is original[0]  # messages without files are kept
    assert file_ids(original) == [notes, table]  # the input is not modified
    assert file_ids(resolved) == []
    question, md, csv = texts(resolved[1])  # type: ignore[arg-type]
    assert question == "Summarise these"
    assert md == (
        "## Attachment: notes.md\n\nType text/markdown, 45 bytes.\n\n"
        "```markdown\n# Launch notes\n\nShip on Friday.\nOwner: Dana.\n```"
    )
    assert csv.startswith("## Attachment: sales.csv\n\nType text/csv, 30 bytes.")
    assert "```csv\nmonth,revenue\nJan,100\nFeb,250\n```" in csv
    assert own_text(resolved[1]) == "Summarise these"
    found = parse_attachments(resolved)
    assert [(a.name, a.mime_type, a.readable) for a in found] == [
        ("notes.md", "text/markdown", True),
        ("sales.csv", "text/csv", True),
    ]
    assert found[1].text == CSV.decode().rstrip()


async def test_a_real_pdf_is_read_as_text(fake: FakeFiles, files: FilesClient) -> None:
    pdf = make_pdf(
        ["Quarterly report", "Revenue grew 12% to 4.2 million."],
        ["Outlook", "Hiring two engineers."],
    )
    file_id = fake.add("report.pdf", pdf, "application/pdf")
    (resolved,) = await resolve_file_inputs([ask("What grew?", file_id)], files)
    block = texts(resolved)[1]  # type: ignore[arg-type]
    assert block.startswith(
        f"## Attachment: report.pdf\n\nType application/pdf, {len(pdf)} bytes, 2 pages."
    )
    assert "Revenue grew 12% to 4.2 million." in block
    assert "Hiring two engineers." in block
    (attachment,) = parse_attachments([resolved])
    assert attachment.pages == 2
    assert attachment.text.splitlines()[0] == "Quarterly report"


async def test_other_types_become_a_short_note(
    fake: FakeFiles, files: FilesClient
) -> None:
    image = fake.add("photo.png", PNG, "image/png")
    broken = fake.add("broken.pdf", b"%PDF-1.4 not really", "application/pdf")
    (resolved,) = await resolve_file_inputs([ask("Look", image, broken)], files)
    assert texts(resolved)[1:] == [  # type: ignore[arg-type]
        "[attachment photo.png: image/png, 40 bytes — not readable]",
        "[attachment broken.pdf: application/pdf, 19 bytes — not readable: no "
        "text could be extracted from this PDF]",
    ]
    assert own_text(resolved) == "Look"


async def test_unknown_and_malformed_ids_become_notes(
    fake: FakeFiles, files: FilesClient
) -> None:
    (resolved,) = await resolve_file_inputs(
        [ask("Read", "file-gone", "../admin")], files
    )
    assert texts(resolved)[1:] == [  # type: ignore[arg-type]
        "[attachment file-gone: not available — file not found: the Files API "
        "has no such file for you; it may have expired or been deleted]",
        "[attachment ../admin: not available — this is not a Files API file ID]",
    ]
    assert "../admin" not in fake.retrievals  # never sent to the service
    found = parse_attachments([resolved])
    assert [(a.name, a.readable) for a in found] == [
        ("file-gone", False),
        ("../admin", False),
    ]


async def test_a_failing_or_missing_service_becomes_a_note(
    fake: FakeFiles, files: FilesClient
) -> None:
    file_id = fake.add("notes.md", NOTES)
    fake.fail_with = 503
    (resolved,) = await resolve_file_inputs([ask("Read", file_id)], files)
    assert texts(resolved)[1] == (  # type: ignore[arg-type]
        f"[attachment {file_id}: not available — the Files API answered HTTP 503]"
    )

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as http:
        offline = FilesClient(
            AsyncOpenAI(
                base_url="http://x/v1", api_key="k", http_client=http, max_retries=0
            )
        )
        (resolved,) = await resolve_file_inputs([ask("Read", file_id)], offline)
    assert texts(resolved)[1].endswith(  # type: ignore[arg-type]
        "not available — the Files API could not be reached]"
    )
    (resolved,) = await resolve_file_inputs([ask("Read", file_id)], None)
    assert texts(resolved)[1].endswith(  # type: ignore[arg-type]
        "not available — no Files API is configured]"
    )


async def test_a_run_downloads_each_file_once(
    fake: FakeFiles, files: FilesClient
) -> None:
    notes = fake.add("notes.md", NOTES)
    table = fake.add("sales.csv", CSV)
    history = [ask("First", notes), AIMessage("Read it."), ask("Both", notes, table)]
    cache = FileCache()
    first, second = await asyncio.gather(
        resolve_file_inputs(history, files, cache=cache),
        resolve_file_inputs(history[-1:], files, cache=cache),
    )
    again = await resolve_file_inputs(history, files, cache=cache)
    assert fake.downloads == {notes: 1, table: 1}
    assert again == first
    assert texts(second[0])[1] == texts(first[2])[1]  # type: ignore[arg-type]
    # Without a shared cache, every call downloads again.
    await resolve_file_inputs(history, files)
    assert fake.downloads == {notes: 2, table: 2}
    # A file appearing twice in one call's messages is fetched once.
    assert sum(1 for _ in file_ids(history)) == 2


async def test_long_text_is_cut(fake: FakeFiles, files: FilesClient) -> None:
    body = "".join(f"line {n}\n" for n in range(2000)).encode()
    file_id = fake.add("log.txt", body)
    (resolved,) = await resolve_file_inputs(
        [ask("Read", file_id)], files, max_chars=1000
    )
    block = texts(resolved)[1]  # type: ignore[arg-type]
    assert f"Showing the first 996 of {len(body)} characters." in block
    (attachment,) = parse_attachments([resolved])
    assert len(attachment.text) < 1000
    assert attachment.text.endswith("line 122")


async def test_fences_survive_backticks_in_the_file() -> None:
    text = render_attachment(
        StoredFile("file-1", "README.md", "text/markdown", b"```py\nx = 1\n```\n")
    )
    assert "````markdown\n```py\nx = 1\n```\n````" in text
    (attachment,) = parse_attachments(
        [HumanMessage(content=[{"type": "text", "text": text}])]
    )
    assert attachment.text == "```py\nx = 1\n```"


@pytest.mark.parametrize(
    ("filename", "data", "declared", "expected"),
    [
        ("report", b"%PDF-1.7 ...", None, "application/pdf"),
        ("x.bin", PNG, None, "image/png"),
        ("sales.csv", b"a,b\n", "application/vnd.ms-excel", "text/csv"),
        ("notes.md", b"# hi", None, "text/markdown"),
        ("data", b"{}", "application/json; charset=utf-8", "application/json"),
        ("upload", "héllo".encode(), "application/octet-stream", "text/plain"),
        ("upload", b"\x00\x01\x02", None, "application/octet-stream"),
    ],
)
def test_guess_mime_type(
    filename: str, data: bytes, declared: str | None, expected: str
) -> None:
    assert guess_mime_type(filename, data, declared) == expected


async def test_against_the_demo_files_service(tmp_path: Path) -> None:
    """The real `lgos_demo_files` app, in process, through the same client."""
    files_app = pytest.importorskip("lgos_demo_files")
    settings = files_app.FilesSettings(
        _env_file=None,
        api_key="service-key",
        storage_url=str(tmp_path / "objects"),
        database_url=str(tmp_path / "files.sqlite3"),
        sweep_interval_seconds=0,
    )
    app = files_app.create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http,
    ):
        sdk = AsyncOpenAI(
            base_url="http://files.test/v1",
            api_key="service-key",
            http_client=http,
            max_retries=0,
        )
        client = FilesClient(sdk)
        uploaded = await client.upload(CSV, filename="sales.csv", mime_type="text/csv")
        assert uploaded.purpose == "user_data"
        pdf = await sdk.files.create(
            file=("report.pdf", make_pdf(["Hello from a PDF"]), "application/pdf"),
            purpose="assistants",
        )
        (resolved,) = await resolve_file_inputs(
            [ask("Read", uploaded.id, pdf.id, "file-missing")], client
        )
    _, table, report, missing = texts(resolved)  # type: ignore[arg-type]
    assert table.startswith("## Attachment: sales.csv\n\nType text/csv, 30 bytes.")
    assert "Hello from a PDF" in report
    assert "no such file" in missing


def test_the_client_uses_the_settings() -> None:
    settings = DemoApiSettings(
        _env_file=None,  # type: ignore[call-arg]
        files_base_url="http://files.example:9000/v1",
        files_api_key="secret",  # type: ignore[arg-type]
    )
    client = FilesClient.from_settings(settings)
    assert str(client.client.base_url) == "http://files.example:9000/v1/"
    assert client.client.api_key == "secret"
    defaults = DemoApiSettings(_env_file=None)  # type: ignore[call-arg]
    assert defaults.files_base_url == "http://127.0.0.1:8003/v1"
    assert defaults.files_api_key.get_secret_value() == "lgos-demo"
