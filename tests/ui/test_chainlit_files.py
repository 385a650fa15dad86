"""Attachments and ``display_file`` against the real Files app, in process."""

from __future__ import annotations

import json

import chainlit as cl
import httpx
import openai
import pytest
from chainlit.context import init_http_context

from lgos_chainlit.attachments import Attachment, upload_attachment, user_content
from lgos_chainlit.file_messages import (
    DISPLAY_CALL_KEY,
    display_messages,
    file_element,
)
from lgos_chainlit.ledger import Conversation
from lgos_chainlit.session import ChatSession
from lgos_chainlit.settings import ChainlitSettings
from lgos_chainlit.turn_listener import FunctionRunner, TurnListener
from lgos_client.display_file import (
    DISPLAY_FILE_FUNCTION,
    DISPLAY_FILE_OK,
    NO_LONGER_AVAILABLE,
    DisplayedFile,
    display_file_calls,
    display_file_failure,
    fetch_display_file,
    reshow_files,
    shown_display_calls,
)
from lgos_client.functions import FunctionCall
from lgos_demo_api.display_file import DISPLAY_FILE_TOOL
from tests.ui.fake_api import Server, response_events, streamed, text_message
from tests.ui.files_app import PNG, display_call

pytestmark = pytest.mark.anyio


def test_the_tool_matches_the_demo_definition() -> None:
    assert DISPLAY_FILE_FUNCTION.tool() == DISPLAY_FILE_TOOL


def test_settings_default_to_the_demo_files_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("DEMO_CHAINLIT_FILES_BASE_URL", "DEMO_CHAINLIT_FILES_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings = ChainlitSettings()
    assert settings.files_base_url == "http://127.0.0.1:8003/v1"
    assert settings.files_api_key.get_secret_value() == "lgos-demo"
    monkeypatch.setenv("DEMO_CHAINLIT_FILES_BASE_URL", "http://files:9/v1")
    assert ChainlitSettings().files_base_url == "http://files:9/v1"


def test_user_content_keeps_only_ids() -> None:
    assert user_content("hi") == "hi"
    assert user_content("sum it", [Attachment("file-a", "a.csv")]) == [
        {"type": "input_text", "text": "sum it"},
        {"type": "input_file", "file_id": "file-a"},
    ]


async def test_upload_then_ask_sends_input_file_parts(
    files: openai.AsyncOpenAI,
) -> None:
    attachment = await upload_attachment(files, "sales.csv", b"a,b\n1,2\n", "text/csv")
    assert attachment.file_id.startswith("file-")
    assert attachment.filename == "sales.csv"
    stored = await files.files.content(attachment.file_id)
    assert stored.read() == b"a,b\n1,2\n"

    server = Server(streamed(*response_events([text_message("m", "Two columns.")])))
    conversation = Conversation(model="files")
    result = await conversation.ask(
        server.client(), "What is in it?", attachments=[attachment]
    )
    assert result.status == "completed"
    sent = server.requests[0]["input"][0]
    assert sent == {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "What is in it?"},
            {"type": "input_file", "file_id": attachment.file_id},
        ],
    }
    assert "1,2" not in json.dumps(conversation.to_json())


async def test_display_file_downloads_the_bytes(files: openai.AsyncOpenAI) -> None:
    uploaded = await files.files.create(
        file=("chart.png", PNG, "image/png"), purpose="user_data"
    )
    file, output = await fetch_display_file(files, display_call(uploaded.id))
    assert output == DISPLAY_FILE_OK
    assert json.loads(output) == {"displayed": True}
    assert file is not None
    assert (file.filename, file.mime_type, file.content) == (
        "chart.png",
        "image/png",
        PNG,
    )
    assert file.is_image


async def test_display_file_failures_are_reported(files: openai.AsyncOpenAI) -> None:
    file, output = await fetch_display_file(files, display_call("file-missing"))
    assert file is None
    assert json.loads(output) == {
        "displayed": False,
        "error": "The Files API has no such file",
    }
    bad = FunctionCall(call_id="c", name="display_file", arguments="[]")
    assert json.loads((await fetch_display_file(files, bad))[1])["displayed"] is False


async def test_display_file_unreachable_service() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as http:
        client = openai.AsyncOpenAI(
            base_url="http://files/v1", api_key="k", http_client=http, max_retries=0
        )
        file, output = await fetch_display_file(client, display_call("file-x"))
    assert file is None
    assert json.loads(output) == {
        "displayed": False,
        "error": "The Files API could not be reached",
    }


def _model(features: list[str], client_tools: list[str]) -> dict[str, object]:
    return {
        "id": "files",
        "object": "model",
        "created": 0,
        "owned_by": "lgos",
        "lgos": {
            "schema_version": 1,
            "description": "Files.",
            "features": features,
            "client_tools": client_tools,
        },
    }


def test_session_offers_uploads_and_display_file() -> None:
    session = ChatSession.from_model(_model(["file_inputs"], ["display_file"]))
    assert session.accepts_files
    assert not session.offers_background
    assert [f.tool() for f in session.functions] == [DISPLAY_FILE_TOOL]
    plain = ChatSession.from_model(_model([], []))
    assert not plain.accepts_files
    assert plain.functions == ()


async def test_the_loop_sends_the_display_result_back() -> None:
    call = {
        "id": "fc_1",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_1",
        "name": "display_file",
        "arguments": json.dumps(
            {"file_id": "file-1", "filename": "c.png", "mime_type": "image/png"}
        ),
    }
    server = Server(
        streamed(*response_events([call])),
        streamed(*response_events([text_message("m", "Shown.")])),
    )

    class Listener(TurnListener):
        async def run_function(
            self, call: FunctionCall, run: FunctionRunner
        ) -> tuple[str, bool]:
            assert call.name == "display_file"
            return DISPLAY_FILE_OK, True

    conversation = Conversation(model="files")
    result = await conversation.ask(
        server.client(),
        "chart please",
        listener=Listener(),
        functions=[DISPLAY_FILE_FUNCTION],
    )
    assert result.answer == "Shown."
    assert server.requests[0]["tools"] == [DISPLAY_FILE_TOOL]
    assert {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": DISPLAY_FILE_OK,
    } in conversation.items
    assert [c.call_id for c in display_file_calls(conversation.items)] == ["call_1"]


def _call_item(call_id: str, file_id: str, **extra: str) -> dict[str, str]:
    arguments = {"file_id": file_id, "filename": f"{call_id}.png"}
    arguments["mime_type"] = "image/png"
    item = {
        "type": "function_call",
        "call_id": call_id,
        "name": "display_file",
        "arguments": json.dumps(arguments),
        "status": "completed",
    }
    item.update(extra)
    return item


def _output_item(call_id: str, output: str) -> dict[str, str]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def test_only_displayed_calls_are_shown_again() -> None:
    items = [
        {"role": "user", "content": "charts please"},
        _call_item("ok", "file-1"),
        _output_item("ok", DISPLAY_FILE_OK),
        _call_item("failed", "file-2"),
        _output_item("failed", display_file_failure("The Files API has no such file")),
        _call_item("unanswered", "file-3"),
        _call_item("cut", "file-4", status="incomplete"),
        _output_item("cut", DISPLAY_FILE_OK),
        {
            "type": "function_call",
            "call_id": "time",
            "name": "get_current_time",
            "arguments": "{}",
        },
        _output_item("time", DISPLAY_FILE_OK),
        _call_item("second", "file-5"),
        _output_item("second", '{"displayed": true}'),
        _output_item("garbled", "not json"),
    ]
    assert [call.call_id for call in shown_display_calls(items)] == ["ok", "second"]
    assert shown_display_calls([]) == []


async def test_reshow_downloads_again_and_notes_missing_files(
    files: openai.AsyncOpenAI,
) -> None:
    uploaded = await files.files.create(
        file=("chart.png", PNG, "image/png"), purpose="user_data"
    )
    deleted = await files.files.create(
        file=("old.png", PNG, "image/png"), purpose="user_data"
    )
    await files.files.delete(deleted.id)
    items = [
        _call_item("kept", uploaded.id),
        _output_item("kept", DISPLAY_FILE_OK),
        _call_item("gone", deleted.id),
        _output_item("gone", DISPLAY_FILE_OK),
        _call_item("never", "file-doesnotexist"),
        _output_item("never", DISPLAY_FILE_OK),
    ]
    reshown = await reshow_files(files, items)
    assert [item.call_id for item in reshown] == ["kept", "gone", "never"]
    kept, gone, never = reshown
    assert kept.file is not None
    assert kept.file.content == PNG
    assert kept.file.is_image
    assert kept.filename == "kept.png"
    for missing in (gone, never):
        assert missing.file is None
        assert missing.note == NO_LONGER_AVAILABLE
    assert gone.filename == "gone.png"


async def test_reshow_survives_an_unreachable_files_api() -> None:
    unreachable = openai.AsyncOpenAI(
        base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0, timeout=2
    )
    items = [_call_item("a", "file-1"), _output_item("a", DISPLAY_FILE_OK)]
    async with unreachable:
        (item,) = await reshow_files(unreachable, items)
    assert item.file is None
    assert item.note.startswith("could not be loaded again")


def test_history_messages_are_matched_by_call_id() -> None:
    steps = [
        {"id": "s1", "metadata": {DISPLAY_CALL_KEY: "call_a"}},
        {"id": "s2", "metadata": json.dumps({DISPLAY_CALL_KEY: "call_b"})},
        {"id": "s3", "metadata": {}},
        {"id": "s4", "metadata": "not json"},
        {"id": "s5"},
        {"id": "s6", "metadata": {DISPLAY_CALL_KEY: "call_a"}},
    ]
    assert display_messages(steps) == {"call_a": "s1", "call_b": "s2"}


async def test_a_shown_image_is_large_and_other_files_are_downloads() -> None:
    init_http_context(thread_id="thread-1")  # elements belong to a thread
    chart = file_element(DisplayedFile("file-1", "chart.png", "image/png", PNG))
    assert isinstance(chart, cl.Image)
    # Chainlit draws a lone inline image up to 150/300/600 px wide for
    # small/medium/large: "medium", its default, is too small to read a chart.
    assert (chart.display, chart.size) == ("inline", "large")
    table = file_element(DisplayedFile("file-2", "t.csv", "text/csv", b"a,b\n"))
    assert isinstance(table, cl.File) and table.display == "inline"
