"""File inputs: Responses input_file and Chat file parts become one LangChain block."""

from __future__ import annotations

import json

import httpx
import pytest
from openai import AsyncOpenAI

pytestmark = pytest.mark.anyio

EXPECTED = [{"file_id": "file-abc", "type": "file"}]


async def test_both_routes_give_the_same_file_block(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(
        model="files",
        input=[
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Summarize"},
                    {"type": "input_file", "file_id": "file-abc"},
                ],
            }
        ],
    )
    assert json.loads(response.output_text.removeprefix("files: ")) == EXPECTED
    chat = await openai_client.chat.completions.create(
        model="files",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Summarize"},
                    {"type": "file", "file": {"file_id": "file-abc"}},
                ],
            }
        ],
    )
    assert (
        json.loads(chat.choices[0].message.content.removeprefix("files: ")) == EXPECTED
    )


@pytest.mark.parametrize(
    ("part", "param"),
    [
        (
            {"type": "input_file", "file_url": "https://x.test/a.pdf"},
            "input[0].content[0].file_url",
        ),
        (
            {"type": "input_file", "file_id": "f", "file_data": "AAAA"},
            "input[0].content[0].file_data",
        ),
        (
            {"type": "input_file", "file_id": "f", "filename": "a.pdf"},
            "input[0].content[0].filename",
        ),
        (
            {"type": "input_image", "image_url": "https://x.test/a.png"},
            "input[0].content[0]",
        ),
    ],
)
async def test_responses_rejects_inline_and_url_files(
    http: httpx.AsyncClient, part, param
) -> None:
    reply = await http.post(
        "/v1/responses",
        json={"model": "files", "input": [{"role": "user", "content": [part]}]},
    )
    assert reply.status_code == 400
    assert reply.json()["error"]["param"] == param


@pytest.mark.parametrize(
    ("file", "param"),
    [
        ({"file_data": "AAAA"}, "messages[0].content[0].file.file_data"),
        ({"file_id": "f", "filename": "a.pdf"}, "messages[0].content[0].file.filename"),
    ],
)
async def test_chat_rejects_inline_files(http: httpx.AsyncClient, file, param) -> None:
    reply = await http.post(
        "/v1/chat/completions",
        json={
            "model": "files",
            "messages": [{"role": "user", "content": [{"type": "file", "file": file}]}],
        },
    )
    assert reply.status_code == 400
    assert reply.json()["error"]["param"] == param


async def test_models_without_file_inputs_reject_files(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/responses",
        json={
            "model": "echo",
            "input": [
                {
                    "role": "user",
                    "content": [{"type": "input_file", "file_id": "file-1"}],
                }
            ],
        },
    )
    assert (reply.status_code, reply.json()["error"]["param"]) == (400, "input")
    reply = await http.post(
        "/v1/responses",
        json={
            "model": "files",
            "input": [
                {
                    "role": "system",
                    "content": [{"type": "input_file", "file_id": "file-1"}],
                }
            ],
        },
    )
    assert (reply.status_code, reply.json()["error"]["param"]) == (
        400,
        "input[0].content[0]",
    )
