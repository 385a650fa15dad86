"""lgos_client.stream: stream events in, typed updates out."""

from typing import Any

from openai.types.responses import (
    ResponseOutputItemAddedEvent,
    ResponseTextDeltaEvent,
)

from lgos_client.stream import (
    AnswerDelta,
    CommentaryDelta,
    ItemAdded,
    ItemDone,
    StreamDecoder,
    StreamEnd,
    StreamError,
)


def added(item_id: str, phase: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "message", "id": item_id, "content": []}
    if phase is not None:
        item["phase"] = phase
    return {"type": "response.output_item.added", "item": item}


def delta(item_id: str, text: str, kind: str = "output_text") -> dict[str, Any]:
    return {"type": f"response.{kind}.delta", "item_id": item_id, "delta": text}


def test_commentary_grows_apart_from_the_answer() -> None:
    decoder = StreamDecoder()
    updates = [
        decoder.feed(event)
        for event in [
            {"type": "response.created", "response": {"id": "r"}},
            added("c", "commentary"),
            delta("c", "Think"),
            delta("c", "ing"),
            delta("c", "no", kind="refusal"),
            added("a", "final_answer"),
            delta("a", "Hi"),
            delta("a", "No.", kind="refusal"),
            added("p", None),
            delta("p", "!"),
        ]
    ]

    assert updates == [
        None,
        ItemAdded({"type": "message", "id": "c", "content": [], "phase": "commentary"}),
        CommentaryDelta("c", "Think"),
        CommentaryDelta("c", "Thinking"),
        None,
        ItemAdded(
            {"type": "message", "id": "a", "content": [], "phase": "final_answer"}
        ),
        AnswerDelta("Hi"),
        AnswerDelta("No.", refusal=True),
        ItemAdded({"type": "message", "id": "p", "content": []}),
        AnswerDelta("!"),
    ]


def test_done_items_carry_the_phase_their_added_event_announced() -> None:
    decoder = StreamDecoder()
    decoder.feed(added("c", "commentary"))
    done = {"type": "message", "id": "c", "content": []}
    search = {"type": "web_search_call", "id": "ws", "status": "completed"}

    assert decoder.feed({"type": "response.output_item.done", "item": done}) == (
        ItemDone(done, "commentary")
    )
    assert decoder.feed({"type": "response.output_item.done", "item": search}) == (
        ItemDone(search, None)
    )


def test_terminal_and_error_events() -> None:
    decoder = StreamDecoder()
    response = {"id": "r", "status": "failed", "output": []}

    assert decoder.feed({"type": "response.failed", "response": response}) == (
        StreamEnd("failed", response)
    )
    assert decoder.feed({"type": "response.incomplete", "response": response}) == (
        StreamEnd("incomplete", response)
    )
    assert decoder.feed(
        {"type": "error", "message": "busy", "code": "run_busy"}
    ) == StreamError("busy", "run_busy")
    assert decoder.feed({"type": "error", "code": 3}) == StreamError(None, None)


def test_sdk_event_models_decode_like_dicts() -> None:
    decoder = StreamDecoder()
    added_event = ResponseOutputItemAddedEvent.model_validate(
        {
            **added("c", "commentary"),
            "output_index": 0,
            "sequence_number": 1,
        }
        | {
            "item": {
                "type": "message",
                "id": "c",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
                "phase": "commentary",
            }
        }
    )
    delta_event = ResponseTextDeltaEvent.model_validate(
        {
            **delta("c", "Hm"),
            "output_index": 0,
            "content_index": 0,
            "sequence_number": 2,
            "logprobs": [],
        }
    )

    update = decoder.feed(added_event)
    assert isinstance(update, ItemAdded)
    assert update.item["phase"] == "commentary"
    assert decoder.feed(delta_event) == CommentaryDelta("c", "Hm")
