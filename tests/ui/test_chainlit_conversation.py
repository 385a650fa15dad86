"""Streaming turns against a scripted OpenAI-compatible transport."""

from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import openai
import pytest
from openai import AsyncOpenAI

from lgos_chainlit.ledger import Conversation
from lgos_chainlit.turn import run_turn
from lgos_client.api_errors import format_api_error
from tests.ui.fake_api import Server, error_response, streamed

Handler = Callable[[httpx2.Request], httpx2.Response]


def message_item(
    item_id: str, text: str, phase: str | None = "final_answer", status="completed"
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    if phase:
        item["phase"] = phase
    return item


def response_obj(status: str, output: list[dict[str, Any]], **extra) -> dict:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1720000000,
        "model": "chat",
        "status": status,
        "output": output,
        **extra,
    }


def answer_stream(
    deltas: list[str],
    *,
    commentary: str | None = None,
    terminal: str = "response.completed",
    status: str = "completed",
    **extra: Any,
) -> Iterator[dict[str, Any]]:
    seq = iter(range(1000))
    output = []
    yield {
        "type": "response.created",
        "sequence_number": next(seq),
        "response": response_obj("in_progress", []),
    }
    if commentary is not None:
        note = message_item("msg_c", commentary, phase="commentary")
        output.append(note)
        yield {
            "type": "response.output_item.added",
            "sequence_number": next(seq),
            "output_index": 0,
            "item": {**note, "status": "in_progress", "content": []},
        }
        yield {
            "type": "response.output_text.delta",
            "sequence_number": next(seq),
            "item_id": "msg_c",
            "output_index": 0,
            "content_index": 0,
            "delta": commentary,
            "logprobs": [],
        }
    final = message_item("msg_a", "".join(deltas))
    yield {
        "type": "response.output_item.added",
        "sequence_number": next(seq),
        "output_index": len(output),
        "item": {**final, "status": "in_progress", "content": []},
    }
    for delta in deltas:
        yield {
            "type": "response.output_text.delta",
            "sequence_number": next(seq),
            "item_id": "msg_a",
            "output_index": len(output),
            "content_index": 0,
            "delta": delta,
            "logprobs": [],
        }
    output.append(final)
    yield {
        "type": terminal,
        "sequence_number": next(seq),
        "response": response_obj(status, output, **extra),
    }


class Sink:
    def __init__(self) -> None:
        self.chunks: list[str] = []

    async def __call__(self, text: str) -> None:
        self.chunks.append(text)


@pytest.mark.anyio
async def test_turn_streams_deltas_and_sends_the_request_shape() -> None:
    server = Server(streamed(*answer_stream(["Hello", ", ", "world"])))
    sink = Sink()
    ledger = [{"role": "user", "content": "hi"}]

    result = await run_turn(
        server.client(),
        model="chat",
        ledger=ledger,
        metadata={"lgos_settings": '{"audience":"expert"}'},
        on_text=sink,
    )

    assert sink.chunks == ["Hello", ", ", "world"]
    assert result.status == "completed"
    assert result.streamed
    assert result.answer == "Hello, world"
    assert result.output_items == [message_item("msg_a", "Hello, world")]
    (request,) = server.requests
    assert request["model"] == "chat"
    assert request["input"] == ledger
    assert request["stream"] is True
    assert request["store"] is False
    assert request["metadata"] == {"lgos_settings": '{"audience":"expert"}'}


@pytest.mark.anyio
async def test_turn_without_metadata_omits_the_field() -> None:
    server = Server(streamed(*answer_stream(["ok"])))

    await run_turn(server.client(), model="chat", ledger=[], metadata={})

    assert "metadata" not in server.requests[0]


@pytest.mark.anyio
async def test_commentary_is_collected_but_not_streamed_as_answer() -> None:
    server = Server(streamed(*answer_stream(["Answer"], commentary="Thinking…")))
    sink = Sink()

    result = await run_turn(server.client(), model="chat", ledger=[], on_text=sink)

    assert sink.chunks == ["Answer"]
    assert result.answer == "Answer"
    assert result.commentary == ["Thinking…"]
    assert [i["phase"] for i in result.output_items] == ["commentary", "final_answer"]


@pytest.mark.anyio
async def test_final_text_is_shown_when_no_delta_arrived() -> None:
    events = [
        e
        for e in answer_stream(["Buffered answer"])
        if e["type"] != "response.output_text.delta"
    ]
    sink = Sink()

    result = await run_turn(
        Server(streamed(*events)).client(), model="chat", ledger=[], on_text=sink
    )

    assert sink.chunks == ["Buffered answer"]
    assert result.streamed


@pytest.mark.anyio
async def test_api_error_becomes_a_readable_result() -> None:
    server = Server(
        error_response(
            400,
            "audience: Input should be 'general', 'beginner' or 'expert'",
            param="metadata.lgos_settings",
        )
    )

    result = await run_turn(server.client(), model="chat", ledger=[])

    assert result.status == "error"
    assert result.error == (
        "HTTP 400: audience: Input should be 'general', 'beginner' or 'expert' "
        "(param: metadata.lgos_settings)"
    )


@pytest.mark.anyio
async def test_unknown_model_error() -> None:
    server = Server(
        error_response(404, "The model 'nope' does not exist.", code="model_not_found")
    )

    result = await run_turn(server.client(), model="nope", ledger=[])

    assert result.error == (
        "HTTP 404: The model 'nope' does not exist. (code: model_not_found)"
    )


@pytest.mark.anyio
async def test_connection_error_becomes_a_readable_result() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    client = AsyncOpenAI(
        base_url="http://lgos.test/v1",
        api_key="x",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(refuse)),
    )

    result = await run_turn(client, model="chat", ledger=[])

    assert result.status == "error"
    assert result.error is not None
    assert result.error.startswith("Cannot reach LGOS at http://lgos.test/v1/responses")


@pytest.mark.anyio
async def test_failed_response_reports_its_error() -> None:
    events = answer_stream(
        ["partial"],
        terminal="response.failed",
        status="failed",
        error={"code": "server_error", "message": "The graph raised."},
    )

    result = await run_turn(Server(streamed(*events)).client(), model="m", ledger=[])

    assert result.status == "failed"
    assert not result.replayable
    assert result.error == "The graph raised. (server_error)"


@pytest.mark.anyio
async def test_error_event_ends_the_turn() -> None:
    events = [
        {"type": "error", "sequence_number": 0, "message": "boom", "code": "x_err"}
    ]

    result = await run_turn(Server(streamed(*events)).client(), model="m", ledger=[])

    assert result.status == "error"
    assert result.error == "boom (x_err)"


@pytest.mark.anyio
async def test_stream_without_terminal_event_is_an_error() -> None:
    events = [e for e in answer_stream(["cut"]) if e["type"] != "response.completed"]
    sink = Sink()

    result = await run_turn(
        Server(streamed(*events)).client(), model="m", ledger=[], on_text=sink
    )

    assert result.status == "error"
    assert result.streamed
    assert "ended" in (result.error or "")


@pytest.mark.anyio
async def test_conversation_resends_the_whole_ledger() -> None:
    server = Server(
        streamed(*answer_stream(["One"])),
        streamed(*answer_stream(["Two"])),
    )
    client = server.client()
    chat = Conversation(model="chat")

    await chat.ask(client, "first")
    await chat.ask(client, "second")

    assert server.requests[0]["input"] == [{"role": "user", "content": "first"}]
    assert server.requests[1]["input"] == [
        {"role": "user", "content": "first"},
        message_item("msg_a", "One"),
        {"role": "user", "content": "second"},
    ]
    assert chat.items == [*server.requests[1]["input"], message_item("msg_a", "Two")]


@pytest.mark.anyio
async def test_incomplete_answer_stays_in_the_ledger() -> None:
    events = answer_stream(
        ["Trunc"],
        terminal="response.incomplete",
        status="incomplete",
        incomplete_details={"reason": "max_output_tokens"},
    )
    chat = Conversation(model="chat")

    result = await chat.ask(Server(streamed(*events)).client(), "long please")

    assert result.status == "incomplete"
    assert result.incomplete_reason == "max_output_tokens"
    assert len(chat.items) == 2


@pytest.mark.anyio
async def test_rejected_turn_is_removed_from_the_ledger() -> None:
    server = Server(
        streamed(*answer_stream(["One"])),
        error_response(400, "too long"),
        streamed(*answer_stream(["Three"])),
    )
    client = server.client()
    chat = Conversation(model="chat")

    await chat.ask(client, "first")
    rejected = await chat.ask(client, "x" * 10)
    await chat.ask(client, "third")

    assert rejected.status == "error"
    assert server.requests[2]["input"] == [
        {"role": "user", "content": "first"},
        message_item("msg_a", "One"),
        {"role": "user", "content": "third"},
    ]


def test_format_api_error_falls_back_to_the_status_line() -> None:
    request = httpx2.Request("GET", "http://lgos.test/v1/models")
    response = httpx2.Response(502, request=request, text="bad gateway")
    exc = openai.APIStatusError("Error code: 502", response=response, body=None)

    assert format_api_error(exc) == "HTTP 502: Bad Gateway"


@pytest.mark.anyio
async def test_interrupted_turn_is_removed_from_the_ledger() -> None:
    class Stopped(Exception):
        pass

    async def stop(text: str) -> None:
        raise Stopped

    server = Server(
        streamed(*answer_stream(["One"])), streamed(*answer_stream(["Two"]))
    )
    client = server.client()
    chat = Conversation(model="chat")
    await chat.ask(client, "first")

    with pytest.raises(Stopped):
        await chat.ask(client, "second", on_text=stop)

    assert chat.items == [
        {"role": "user", "content": "first"},
        message_item("msg_a", "One"),
    ]
