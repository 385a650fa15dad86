"""Attachments and ``display_file`` through the pipe, against real services.

The demo API and the Files service run as processes (``demo_url_map`` from
``tests/demo_services.py``); the pipe uploads Open WebUI's attachments to the
Files service and shows the ``files`` graph's charts as Open WebUI ``files``
events. The file items are shaped like Open WebUI 0.12.4's
(``metadata.user_message.files``: the upload's ``id``, ``name`` and ``file``
with its stored ``path``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI

from tests.demo_services import DEMO_FILES
from tests.open_webui.conftest import lgos_pipe
from tests.open_webui.pipe_events import Events

# The first test waits for the session's demo processes to start.
pytestmark = [pytest.mark.integration, pytest.mark.anyio, pytest.mark.timeout(300)]

CSV = "fruit,count\napples,3\npears,5\nplums,8\n"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
async def files_pipe(
    demo_url_map: dict[str, str], demo_api_url: str, tmp_path: Path
) -> AsyncIterator[Any]:
    """A ``Pipe`` on the demo API and Files service processes."""
    instance = lgos_pipe.Pipe()
    instance.valves.LGOS_BASE_URL = demo_api_url
    instance.valves.FILES_BASE_URL = f"{demo_url_map[DEMO_FILES]}/v1"
    instance.valves.STATE_PATH = str(tmp_path / "ledger.sqlite3")
    yield instance
    await instance.close()


def owui_file(tmp_path: Path, file_id: str, name: str, text: str) -> dict[str, Any]:
    """An Open WebUI file item, its bytes in an upload folder under tmp_path."""
    uploads = tmp_path / "uploads"
    uploads.mkdir(exist_ok=True)
    path = uploads / f"{file_id}_{name}"
    path.write_text(text)
    return {
        "type": "file",
        "id": file_id,
        "name": name,
        "url": f"/api/v1/files/{file_id}",
        "status": "uploaded",
        "file": {
            "id": file_id,
            "filename": name,
            "path": str(path),
            "meta": {"name": name, "content_type": "text/csv", "size": len(text)},
        },
    }


async def turn(
    pipe: Any,
    model: str,
    messages: list[dict[str, Any]],
    events: Events,
    files: list[dict[str, Any]] | None = None,
    chat_id: str = "chat-f",
) -> str:
    await pipe.discover()
    last = messages[-1]
    typed = {"id": "m", "role": "user", "content": last["content"]}
    if files:
        typed["files"] = files
        # What Open WebUI 0.12.4 sends the pipe for such a message: a file
        # preamble, and retrieved text, in front of the typed text.
        file_tags = "<attached_files>\n<file/>\n</attached_files>\n\n"
        messages = [
            *messages[:-1],
            {
                "role": "user",
                "content": f"{file_tags}<source>{CSV}</source>\n" + last["content"],
            },
        ]
    gen: AsyncIterator[str] = pipe.pipe(
        {"model": f"lgos.{model}", "messages": messages, "stream": True},
        __user__={"valves": pipe.UserValves()},
        __metadata__={"chat_id": chat_id, "user_message": typed},
        __event_emitter__=events.emit,
        __event_call__=events.call,
        __chat_id__=chat_id,
        __files__=files or [],
    )
    return "".join([part async for part in gen])


async def test_attachment_goes_to_the_files_service(
    files_pipe: Any, tmp_path: Path, demo_url_map: dict[str, str]
) -> None:
    events = Events()
    attached = owui_file(tmp_path, "owui-1", "fruit.csv", CSV)
    first = [{"role": "user", "content": "What is in this file?"}]
    answer = await turn(files_pipe, "files", first, events, [attached])
    assert "fruit.csv" in answer
    assert "16" in answer  # the sum of the count column
    file_id = files_pipe.store().upload("owui-1")
    assert file_id and file_id.startswith("file-")
    async with AsyncOpenAI(
        base_url=f"{demo_url_map[DEMO_FILES]}/v1", api_key="lgos-demo"
    ) as files:
        stored = await files.files.retrieve(file_id)
        content = (await files.files.content(file_id)).read()
    assert stored.filename == "fruit.csv"
    assert content.decode() == CSV
    assert "Attached fruit.csv" in [s["description"] for s in events.of("status")]
    # The turn is kept with its input_file part and replayed with it, and
    # the same Open WebUI file is not uploaded twice.
    record = files_pipe.store().answer("chat-f", answer)
    assert record["user"] == [
        {"type": "input_text", "text": "What is in this file?"},
        {"type": "input_file", "file_id": file_id},
    ]
    history = [
        {
            "role": "user",
            "content": "<attached_files>\n</attached_files>\n\nWhat is in this file?",
        },
        {"role": "assistant", "content": answer},
        {"role": "user", "content": "and again?"},
    ]
    ledger = lgos_pipe.ledger_input(
        history, lambda text: files_pipe.store().answer("chat-f", text)
    )
    assert ledger[0] == {"role": "user", "content": record["user"]}
    again = await turn(files_pipe, "files", history, Events())
    assert "fruit.csv" in again
    assert files_pipe.store().upload("owui-1") == file_id


async def test_chart_is_shown_as_an_open_webui_file(
    files_pipe: Any, tmp_path: Path
) -> None:
    events = Events()
    attached = owui_file(tmp_path, "owui-2", "fruit.csv", CSV)
    messages = [{"role": "user", "content": "Draw a chart of the counts"}]
    answer = await turn(files_pipe, "files", messages, events, [attached])
    (shown,) = events.of("files")
    (image,) = shown["files"]
    assert image["type"] == "image"
    assert image["name"].endswith(".png")
    prefix = "data:image/png;base64,"
    assert image["url"].startswith(prefix)
    assert base64.b64decode(image["url"][len(prefix) :]).startswith(PNG_SIGNATURE)
    statuses = [s["description"] for s in events.of("status")]
    assert f"Showed {image['name']}" in statuses
    assert image["name"] in answer
    # The ledger keeps the call and its small output, never the bytes.
    record = files_pipe.store().answer("chat-f", answer)
    kinds = [item.get("type") for item in record["items"]]
    assert "function_call" in kinds
    (output,) = [i for i in record["items"] if i.get("type") == "function_call_output"]
    assert json.loads(output["output"]) == {"displayed": True}
    assert "base64" not in json.dumps(record)


async def test_a_table_is_shown_as_a_file_with_its_text(
    files_pipe: Any, tmp_path: Path
) -> None:
    """A CSV from display_file is a ``file`` entry whose text Open WebUI's
    file view shows (``file.data.content``), not only a data URL."""
    events = Events()
    attached = owui_file(tmp_path, "owui-4", "fruit.csv", CSV)
    messages = [{"role": "user", "content": "Make a summary table of this file"}]
    answer = await turn(files_pipe, "files", messages, events, [attached])
    (shown,) = events.of("files")
    (table,) = shown["files"]
    assert table["type"] == "file"
    assert table["name"].endswith(".csv") and table["name"] in answer
    assert table["content_type"] == "text/csv"
    prefix = "data:text/csv;base64,"
    assert table["url"].startswith(prefix)
    data = base64.b64decode(table["url"][len(prefix) :])
    assert table["size"] == len(data)
    text = table["file"]["data"]["content"]
    assert text == data.decode("utf-8-sig")
    assert text.startswith("column,count,sum,min,max,mean\n")
    assert "count,3,16.0" in text


def test_only_text_files_carry_their_text() -> None:
    event = lgos_pipe.files_event("a.png", "image/png", PNG_SIGNATURE)
    (image,) = event["data"]["files"]
    assert image["type"] == "image" and "file" not in image
    shown = lgos_pipe.shown_text
    assert shown("text/csv", b"\xef\xbb\xbfa,b\n1,2\n") == "a,b\n1,2\n"
    assert shown("application/json; charset=utf-8", b'{"a": 1}') == '{"a": 1}'
    assert shown("application/pdf", b"%PDF-1.7") is None
    assert shown("text/plain", b"\xff\xfe\x00") is None
    assert shown("text/plain", b"x" * (lgos_pipe.SHOWN_TEXT_LIMIT + 1)) is None
    (pdf,) = lgos_pipe.files_event("r.pdf", "application/pdf", b"%PDF")["data"]["files"]
    assert pdf["type"] == "file" and "file" not in pdf and pdf["size"] == 4


async def test_attachment_to_a_model_without_file_inputs(
    files_pipe: Any, tmp_path: Path
) -> None:
    events = Events()
    attached = owui_file(tmp_path, "owui-3", "fruit.csv", CSV)
    messages = [{"role": "user", "content": "hi"}]
    answer = await turn(files_pipe, "chat", messages, events, [attached])
    assert answer
    statuses = [s["description"] for s in events.of("status")]
    assert "chat takes no attachments: fruit.csv" in statuses
    # The chat graph has no steps of its own: the attachment's line is the
    # turn's one step, closed when the answer ends.
    assert statuses[-1] == "Done after 1 step"
    assert events.of("status")[-1]["done"] is True
    assert files_pipe.store().upload("owui-3") is None


def test_attachments_from_open_webui_items(tmp_path: Path) -> None:
    stored = owui_file(tmp_path, "a", "x.csv", "1")
    no_path = {"type": "file", "id": "b", "name": "y.txt", "file": {"id": "b"}}
    (tmp_path / "uploads" / "b_y.txt").write_text("2")
    items = [
        stored,
        stored,
        no_path,
        {"type": "collection", "id": "k"},
        {"type": "web_search_results", "id": "w"},
        "junk",
    ]
    found = lgos_pipe.attachments_from(items, tmp_path / "uploads")
    assert [(a.id, a.name, a.mime_type) for a in found] == [
        ("a", "x.csv", "text/csv"),
        ("b", "y.txt", "text/plain"),
    ]
    assert [a.read() for a in found] == [b"1", b"2"]
    assert lgos_pipe.attachments_from(None) == []


def test_file_context_is_stripped() -> None:
    text = '<attached_files>\n<file type="file" id="x" name="a.csv"/>\n</attached_files>\n\nhi'
    assert lgos_pipe.strip_file_context(text) == "hi"
    assert lgos_pipe.strip_file_context("hi <attached_files>") == "hi <attached_files>"


def test_display_file_tool_is_the_demos() -> None:
    from lgos_demo_api.display_file import DISPLAY_FILE_TOOL

    assert lgos_pipe.DISPLAY_FILE_TOOL == DISPLAY_FILE_TOOL
