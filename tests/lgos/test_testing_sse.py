"""``langgraph_openai_serve.testing.parse_sse``: a streamed answer's events.

On LGOS's own Responses and Chat Completions streams (the in-process app of
``tests/lgos/conftest.py``), then on hand-written bodies for the framing
rules and each error.
"""

from __future__ import annotations

import httpx
import pytest

from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio


async def test_a_responses_stream_is_its_event_objects(
    http: httpx.AsyncClient,
) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "echo", "input": "a b", "stream": True}
    )
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] == "response.completed"
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    assert "".join(deltas) == "Echo: a b"


async def test_a_chat_stream_leaves_out_done(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/chat/completions",
        json={
            "model": "echo",
            "messages": [{"role": "user", "content": "a b"}],
            "stream": True,
        },
    )
    assert reply.text.endswith("data: [DONE]\n\n")
    chunks = parse_sse(reply.text)
    for chunk in chunks:
        validate("CreateChatCompletionStreamResponse", chunk)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "Echo: a b"


def test_empty_bodies_and_events_without_data_give_nothing() -> None:
    assert parse_sse("") == []
    assert parse_sse(": keep-alive\n\nid: 7\nretry: 100\n\nevent: ping\n\n") == []


def test_lines_end_at_crlf_lf_or_cr_only() -> None:
    body = (
        'data: {"n": 1}\r\n\r\n'
        'data: {"n": 2}\r\r'
        'data: {"text": "a\u2028b\u2029c\x85d"}\n\n'
    )
    assert parse_sse(body) == [{"n": 1}, {"n": 2}, {"text": "a\u2028b\u2029c\x85d"}]


def test_data_lines_join_and_fields_follow_the_sse_format() -> None:
    body = (
        "\ufeff: a comment\n"
        "id: 1\n"
        "event: response.created\n"
        'data:{"type": "response.created",\n'
        'data:  "n": [1,\n'
        "data: 2]}\n"
        "\n"
        'data: {"type": "unnamed"}\n'
        "\n"
    )
    assert parse_sse(body) == [
        {"type": "response.created", "n": [1, 2]},
        {"type": "unnamed"},
    ]


def test_a_name_without_a_type_is_not_checked() -> None:
    assert parse_sse('event: error\ndata: {"error": {"message": "m"}}\n\n') == [
        {"error": {"message": "m"}}
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("data: {}\n\ndata: not json\n\n", r"^line 3: the event's data is not JSON"),
        ('data: ["a"]\n\n', r"^line 1: the event's data is JSON but not an object"),
        (
            "data: {}\n\ndata: [DONE]\n\ndata: {}\n\n",
            r"^line 5: an event follows data: \[DONE\] \(line 3\)",
        ),
        (
            'event: response.completed\ndata: {"type": "response.failed"}\n\n',
            r"^line 1: the event is named 'response.completed' but its data's type "
            r"is 'response.failed'",
        ),
        ("data: {}\n\ndata: {}\n", r"^line 3: the body ends inside an event"),
        ("data: {}\n\ndata: {}", r"^line 3: the body ends inside an event"),
    ],
    ids=["not-json", "not-an-object", "after-done", "name-and-type", "no-blank", "cut"],
)
def test_a_body_that_is_not_a_stream_of_objects_raises(body: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_sse(body)


def test_the_json_error_is_the_cause() -> None:
    with pytest.raises(ValueError) as raised:
        parse_sse("data: {'single': 'quotes'}\n\n")
    assert isinstance(raised.value.__cause__, ValueError)
    assert "{'single': 'quotes'}" in str(raised.value)
