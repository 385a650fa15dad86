"""The turn listener and the client function loop, against a scripted server."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx2
import pytest

from lgos_chainlit.ledger import Conversation
from lgos_chainlit.turn_listener import FunctionRunner, TurnListener
from lgos_chainlit.turn_result import TurnResult
from lgos_client.functions import LOCAL_FUNCTIONS, FunctionCall, LocalFunction
from tests.ui.fake_api import (
    Server,
    error_response,
    response_events,
    streamed,
    text_message,
)

pytestmark = pytest.mark.anyio

QUESTION = "Roll two dice"


def call_item(
    call_id: str, name: str, args: dict[str, Any] | str, status: str = "completed"
) -> dict[str, Any]:
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {
        "id": f"fc_{call_id}",
        "type": "function_call",
        "status": status,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
    }


def respond(*output: dict[str, Any], **kwargs: Any) -> httpx2.Response:
    return streamed(*response_events(output, **kwargs))


class Recorder(TurnListener):
    """Records every hook call, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def on_commentary(self, item_id: str, text: str) -> None:
        self.events.append(("commentary", text))

    async def on_commentary_done(self, item_id: str, text: str) -> None:
        self.events.append(("commentary_done", text))

    async def on_text(self, text: str) -> None:
        self.events.append(("text", text))

    async def on_response(self, result: TurnResult) -> None:
        self.events.append(("response", result.status))

    async def run_function(
        self, call: FunctionCall, run: FunctionRunner
    ) -> tuple[str, bool]:
        output, ok = await run()
        self.events.append(("function", (call.name, json.loads(output), ok)))
        return output, ok

    async def on_calls_not_run(
        self, calls: Sequence[FunctionCall], reason: str
    ) -> None:
        self.events.append(("not_run", ([c.call_id for c in calls], reason)))

    def kinds(self) -> list[str]:
        kinds: list[str] = []
        for kind, _ in self.events:
            if not kinds or kinds[-1] != kind:
                kinds.append(kind)
        return kinds

    def text(self) -> str:
        return "".join(value for kind, value in self.events if kind == "text")


FIXED_DICE = LocalFunction(
    name="roll_dice",
    description="Roll dice.",
    parameters=LOCAL_FUNCTIONS["roll_dice"].parameters,
    run=lambda sides=6, count=1: {"rolls": [sides] * count, "total": sides * count},
)


async def test_commentary_goes_to_steps_and_never_into_the_answer() -> None:
    server = Server(
        respond(
            text_message("msg_c1", "Searching the archive", phase="commentary"),
            text_message("msg_c2", "Found two passages", phase="commentary"),
            text_message("msg_a", "The answer."),
        )
    )
    recorder = Recorder()
    chat = Conversation(model="m")

    result = await chat.ask(server.client(), "hi", listener=recorder)

    assert recorder.kinds() == [
        "commentary",
        "commentary_done",
        "commentary",
        "commentary_done",
        "text",
        "response",
    ]
    assert recorder.text() == "The answer."
    assert result.answer == "The answer."
    assert result.commentary == ["Searching the archive", "Found two passages"]
    # The ledger still replays every output item unchanged, commentary too.
    assert [i.get("phase") for i in chat.items[1:]] == [
        "commentary",
        "commentary",
        "final_answer",
    ]
    assert "tools" not in server.requests[0]


async def test_function_calls_run_locally_and_the_loop_continues() -> None:
    calls = [
        call_item("c1", "roll_dice", {"sides": 6, "count": 2}),
        call_item("c2", "roll_dice", {"sides": 20, "count": 1}),
    ]
    server = Server(
        respond(*calls),
        respond(text_message("msg_a", "You rolled 6, 6 and 20.")),
    )
    recorder = Recorder()
    chat = Conversation(model="functions")

    result = await chat.ask(
        server.client(), QUESTION, listener=recorder, functions=[FIXED_DICE]
    )

    assert result.status == "completed"
    assert result.answer == "You rolled 6, 6 and 20."
    assert [e for e in recorder.events if e[0] == "function"] == [
        ("function", ("roll_dice", {"rolls": [6, 6], "total": 12}, True)),
        ("function", ("roll_dice", {"rolls": [20], "total": 20}, True)),
    ]
    assert recorder.kinds() == ["response", "function", "text", "response"]
    first, second = server.requests
    assert first["tools"] == [FIXED_DICE.tool()]
    assert second["tools"] == [FIXED_DICE.tool()]
    outputs = [
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": '{"rolls":[6,6],"total":12}',
        },
        {
            "type": "function_call_output",
            "call_id": "c2",
            "output": '{"rolls":[20],"total":20}',
        },
    ]
    assert second["input"] == [{"role": "user", "content": QUESTION}, *calls, *outputs]
    assert chat.items == [
        *second["input"],
        text_message("msg_a", "You rolled 6, 6 and 20."),
    ]


async def test_unknown_functions_get_an_error_output() -> None:
    server = Server(
        respond(call_item("c1", "send_email", {"to": "x"})),
        respond(text_message("msg_a", "I could not send it.")),
    )
    recorder = Recorder()

    await Conversation(model="m").ask(
        server.client(), "mail", listener=recorder, functions=[FIXED_DICE]
    )

    output = json.loads(server.requests[1]["input"][-1]["output"])
    assert output == {"error": "unknown function 'send_email'"}
    assert ("function", ("send_email", output, False)) in recorder.events


async def test_the_loop_stops_after_the_round_limit() -> None:
    server = Server(
        *[
            respond(call_item(f"c{i}", "roll_dice", {"sides": 6, "count": 1}))
            for i in range(3)
        ]
    )
    recorder = Recorder()
    chat = Conversation(model="m")

    result = await chat.ask(
        server.client(),
        QUESTION,
        listener=recorder,
        functions=[FIXED_DICE],
        max_function_rounds=2,
    )

    assert len(server.requests) == 3
    assert result.function_calls[0].call_id == "c2"
    assert [e for e in recorder.events if e[0] == "not_run"] == [
        ("not_run", (["c2"], "the UI stops after 2 rounds of function calls"))
    ]
    # The call that was not run still gets an output, so the ledger replays.
    assert chat.items[-1] == {
        "type": "function_call_output",
        "call_id": "c2",
        "output": '{"error":"not run: the UI stops after 2 rounds of function calls"}',
    }


async def test_calls_of_an_incomplete_response_are_not_run() -> None:
    server = Server(
        respond(
            text_message("msg_a", "Rolling"),
            call_item("c1", "roll_dice", {"sides": 6, "count": 1}),
            call_item("c2", "roll_dice", '{"sides": 6, "co', status="incomplete"),
            status="incomplete",
            incomplete_details={"reason": "max_output_tokens"},
        ),
        respond(text_message("msg_b", "Next")),
    )
    recorder = Recorder()
    chat = Conversation(model="m")

    result = await chat.ask(
        server.client(), QUESTION, listener=recorder, functions=[FIXED_DICE]
    )

    assert result.status == "incomplete"
    assert result.incomplete_reason == "max_output_tokens"
    assert not [e for e in recorder.events if e[0] == "function"]
    assert ("not_run", (["c1", "c2"], "the response was incomplete")) in recorder.events
    # The truncated call is dropped; the complete one gets a "not run" output.
    assert [
        i.get("call_id") for i in chat.items if i.get("type") == "function_call"
    ] == ["c1"]
    assert chat.items[-1]["call_id"] == "c1"
    assert "not run" in chat.items[-1]["output"]

    # The next turn replays a valid ledger.
    await chat.ask(server.client(), "again", functions=[FIXED_DICE])
    assert server.requests[1]["input"][: len(chat.items) - 2] == chat.items[:-2]


async def test_a_failed_follow_up_removes_the_whole_turn() -> None:
    server = Server(
        respond(text_message("msg_0", "Earlier answer")),
        respond(call_item("c1", "roll_dice", {"sides": 6, "count": 1})),
        error_response(500, "The graph failed."),
    )
    recorder = Recorder()
    chat = Conversation(model="m")
    await chat.ask(server.client(), "first")
    before = list(chat.items)

    result = await chat.ask(
        server.client(), QUESTION, listener=recorder, functions=[FIXED_DICE]
    )

    assert result.status == "error"
    assert chat.items == before
    assert recorder.kinds() == ["response", "function", "response"]


async def test_citations_and_refusals_reach_the_result() -> None:
    annotation = {
        "type": "url_citation",
        "url": "https://example.com/",
        "title": "Example",
        "start_index": 5,
        "end_index": 7,
    }
    refusal = {
        "id": "msg_r",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "phase": "final_answer",
        "content": [{"type": "refusal", "refusal": "Not that."}],
    }
    server = Server(
        respond(text_message("msg_a", "Fact [1]", annotations=[annotation])),
        respond(refusal),
    )
    chat = Conversation(model="m")

    cited = await chat.ask(server.client(), "fact?")
    refused = await chat.ask(server.client(), "bad?")

    assert cited.answer_parts[0].citations[0].url == "https://example.com/"
    assert refused.refusal == "Not that."
    assert refused.answer == ""
    assert not refused.streamed
