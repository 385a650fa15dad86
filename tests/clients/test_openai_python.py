"""The OpenAI Python SDK, unmodified, against the running demo API over HTTP.

The compact matrix row: one test per feature a client meets (the in-process
SDK tests in ``tests/lgos`` cover the protocol in depth).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import openai
import pytest
from openai import AsyncOpenAI, OpenAI

from tests.clients.matrix import (
    API_KEY,
    APPROVED,
    CHAT_COMPLETION_ID,
    CHAT_INTERRUPTS_REFUSED,
    CHAT_PROMPT,
    CITATIONS,
    CITATIONS_ANSWER,
    CITATIONS_COMMENTARY,
    CITATIONS_PROMPT,
    DEMO_MODELS,
    DICE_ANSWER,
    DICE_ARGS,
    DICE_CALL_ID,
    DICE_CHAT_TOOL,
    DICE_FUNCTION,
    DICE_PROMPT,
    DICE_RESULT,
    INTERRUPT_CALL_ID,
    INTERRUPT_FUNCTION,
    INTERRUPT_RESPONSE_ID,
    MESSAGE_ID,
    REFUND_INTERRUPT,
    REFUND_PROMPT,
    RESEARCH_PROMPT,
    RESEARCH_REPORT_START,
    RESEARCH_SETTINGS,
    RESEARCH_TOOLS,
    RESPONSE_ID,
    TIME_ANSWER,
    TIME_ARGS,
    TIME_CALL_ID,
    TIME_FUNCTION,
    TIME_PROMPT,
    TIME_RESULT,
    TIME_TOOL,
    WRITER_ANSWER,
    WRITER_COMMENTARY,
    WRITER_GLUED,
    WRITER_PROMPT,
    WRITER_SETTINGS,
    chat_answer,
    cited,
    offline_only_fixture,  # noqa: F401 - fixture
)

pytestmark = pytest.mark.usefixtures("offline_only")


@pytest.fixture
def client(demo_api_url: str) -> Iterator[OpenAI]:
    with OpenAI(base_url=demo_api_url, api_key=API_KEY, max_retries=0) as sdk:
        yield sdk


def test_responses_create_and_stream_helper(client: OpenAI) -> None:
    response = client.responses.create(model="chat", input=CHAT_PROMPT)
    assert RESPONSE_ID.fullmatch(response.id)
    assert (response.status, response.model) == ("completed", "chat")
    assert [(item.type, item.phase) for item in response.output] == [  # type: ignore[union-attr]
        ("message", "final_answer")
    ]
    assert response.output_text == chat_answer()

    with client.responses.stream(model="chat", input=CHAT_PROMPT) as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [event.type for event in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 1
    assert "".join(deltas) == final.output_text == chat_answer()
    assert [e.sequence_number for e in events] == list(range(len(events)))


@pytest.mark.anyio
async def test_chat_create_and_stream_helper(demo_api_url: str) -> None:
    async with AsyncOpenAI(
        base_url=demo_api_url, api_key=API_KEY, max_retries=0
    ) as client:
        messages = [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": CHAT_PROMPT},
        ]
        completion = await client.chat.completions.create(
            model="chat",
            messages=messages,  # type: ignore[arg-type]
        )
        assert CHAT_COMPLETION_ID.fullmatch(completion.id)
        choice = completion.choices[0]
        assert choice.finish_reason == "stop"
        assert choice.message.content == chat_answer(CHAT_PROMPT, "Be brief.")

        async with client.chat.completions.stream(
            model="chat",
            messages=messages,  # type: ignore[arg-type]
        ) as stream:
            deltas = [e.delta async for e in stream if e.type == "content.delta"]
            final = await stream.get_final_completion()
    assert len(deltas) > 1
    assert "".join(deltas) == chat_answer(CHAT_PROMPT, "Be brief.")
    assert final.choices[0].message.content == "".join(deltas)
    assert final.choices[0].finish_reason == "stop"


def test_models_list_and_retrieve_carry_the_lgos_extension(client: OpenAI) -> None:
    models = {model.id: model for model in client.models.list()}
    assert set(models) == DEMO_MODELS
    assert {m.object for m in models.values()} == {"model"}
    listed = models["approval"].model_extra["lgos"]  # type: ignore[index]
    assert (listed["schema_version"], listed["features"]) == (1, ["interrupts"])
    assert "client_settings" not in listed  # the list carries the small part

    research = client.models.retrieve("deep-research").model_extra["lgos"]  # type: ignore[index]
    assert set(research["features"]) == {"background", "file_inputs", "interrupts"}
    assert research["client_settings"]["defaults"]["review_plan"] is True
    functions = client.models.retrieve("functions").model_extra["lgos"]  # type: ignore[index]
    assert sorted(functions["client_tools"]) == [TIME_FUNCTION, DICE_FUNCTION]
    assert functions["client_settings"] is None


def test_background_create_retrieve_cancel(client: OpenAI) -> None:
    queued = client.responses.create(
        model="deep-research",
        input=RESEARCH_PROMPT,
        tools=RESEARCH_TOOLS,  # type: ignore[arg-type]
        metadata=RESEARCH_SETTINGS,
        background=True,
    )
    assert INTERRUPT_RESPONSE_ID.fullmatch(queued.id)
    assert (queued.status, queued.background, queued.output) == ("queued", True, [])
    deadline = time.monotonic() + 30
    while (done := client.responses.retrieve(queued.id)).status in {
        "queued",
        "in_progress",
    }:
        assert time.monotonic() < deadline, "the background run did not finish"
        time.sleep(0.05)
    assert (done.id, done.status) == (queued.id, "completed")
    assert done.output_text.startswith(RESEARCH_REPORT_START)
    kinds = [item.type for item in done.output]
    assert kinds[-1] == "message"
    assert set(kinds[:-1]) == {"web_search_call"}

    assert client.responses.cancel(queued.id).status == "completed"
    assert client.responses.retrieve(queued.id).output_text == done.output_text


def test_function_round_trip_responses(client: OpenAI) -> None:
    ledger: list = [{"role": "user", "content": TIME_PROMPT}]
    first = client.responses.create(model="functions", input=ledger, tools=[TIME_TOOL])  # type: ignore[list-item]
    [call] = first.output
    assert call.type == "function_call"
    assert (call.name, json.loads(call.arguments), call.call_id) == (
        TIME_FUNCTION,
        TIME_ARGS,
        TIME_CALL_ID,
    )
    # No conversation state: resend the whole ledger with the result.
    ledger += [item.model_dump(exclude_none=True) for item in first.output]
    ledger.append(
        {"type": "function_call_output", "call_id": call.call_id, "output": TIME_RESULT}
    )
    second = client.responses.create(model="functions", input=ledger, tools=[TIME_TOOL])  # type: ignore[list-item]
    assert second.output_text == TIME_ANSWER


def test_function_round_trip_chat(client: OpenAI) -> None:
    messages: list = [{"role": "user", "content": DICE_PROMPT}]
    first = client.chat.completions.create(
        model="functions",
        messages=messages,
        tools=[DICE_CHAT_TOOL],  # type: ignore[list-item]
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    [call] = choice.message.tool_calls or []
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (  # type: ignore[union-attr]
        DICE_CALL_ID,
        DICE_FUNCTION,
        DICE_ARGS,
    )
    messages.append(choice.message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": DICE_RESULT})
    second = client.chat.completions.create(
        model="functions",
        messages=messages,
        tools=[DICE_CHAT_TOOL],  # type: ignore[list-item]
    )
    assert second.choices[0].message.content == DICE_ANSWER


def test_interrupt_answered_and_resumed(client: OpenAI) -> None:
    paused = client.responses.create(model="approval", input=REFUND_PROMPT)
    assert INTERRUPT_RESPONSE_ID.fullmatch(paused.id)
    [call] = paused.output
    assert (call.type, call.name) == ("function_call", INTERRUPT_FUNCTION)  # type: ignore[union-attr]
    assert INTERRUPT_CALL_ID.fullmatch(call.call_id)  # type: ignore[union-attr]
    assert json.loads(call.arguments) == REFUND_INTERRUPT  # type: ignore[union-attr]

    answer = [
        {"type": "function_call_output", "call_id": call.call_id, "output": "approve"}  # type: ignore[union-attr]
    ]
    done = client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=answer,  # type: ignore[arg-type]
    )
    assert done.output_text == APPROVED
    assert INTERRUPT_RESPONSE_ID.fullmatch(done.id)
    assert done.id.split("_")[2] == paused.id.split("_")[2]  # the same run

    with pytest.raises(openai.ConflictError) as replayed:
        client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answer,  # type: ignore[arg-type]
        )
    assert replayed.value.code == "interrupt_state_conflict"


def test_interrupt_is_refused_on_chat_completions(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(
            model="approval", messages=[{"role": "user", "content": REFUND_PROMPT}]
        )
    assert (refused.value.status_code, refused.value.param) == (400, "model")
    assert refused.value.message == f"Error code: 400 - {CHAT_INTERRUPTS_REFUSED}"


def test_writer_commentary_phase(client: OpenAI) -> None:
    with client.responses.stream(
        model="writer", input=WRITER_PROMPT, metadata=WRITER_SETTINGS
    ) as stream:
        done_items = [
            event.item for event in stream if event.type == "response.output_item.done"
        ]
        final = stream.get_final_response()
    messages = [(item.phase, item.content[0].text) for item in done_items]  # type: ignore[union-attr]
    assert messages == [
        *(("commentary", text) for text in WRITER_COMMENTARY),
        ("final_answer", WRITER_ANSWER),
    ]
    assert all(MESSAGE_ID.fullmatch(item.id) for item in done_items)  # type: ignore[union-attr]
    assert [item.phase for item in final.output] == [p for p, _ in messages]  # type: ignore[union-attr]
    # The SDK's output_text joins every message: select the final answer.
    assert final.output_text == WRITER_GLUED
    answer = "".join(
        part.text
        for item in final.output
        if item.type == "message" and item.phase == "final_answer"
        for part in item.content
        if part.type == "output_text"
    )
    assert answer == WRITER_ANSWER

    plain = client.responses.create(
        model="writer", input=WRITER_PROMPT, metadata=WRITER_SETTINGS
    )
    assert [item.phase for item in plain.output] == ["final_answer"]  # type: ignore[union-attr]
    assert plain.output_text == WRITER_ANSWER


def test_citations(client: OpenAI) -> None:
    response = client.responses.create(model="citations", input=CITATIONS_PROMPT)
    [message] = response.output
    [part] = message.content  # type: ignore[union-attr]
    assert part.text == CITATIONS_ANSWER  # type: ignore[union-attr]
    assert cited(part.text, part.annotations) == CITATIONS  # type: ignore[union-attr]

    with client.responses.stream(model="citations", input=CITATIONS_PROMPT) as stream:
        events = list(stream)
    added = [e for e in events if e.type == "response.output_text.annotation.added"]
    assert [e.annotation_index for e in added] == [0, 1]
    assert cited(CITATIONS_ANSWER, [e.annotation for e in added]) == CITATIONS
    done = [e.item for e in events if e.type == "response.output_item.done"]
    assert [(i.phase, i.content[0].text) for i in done] == [  # type: ignore[union-attr]
        *(("commentary", text) for text in CITATIONS_COMMENTARY),
        ("final_answer", CITATIONS_ANSWER),
    ]

    messages = [{"role": "user", "content": CITATIONS_PROMPT}]
    chat = client.chat.completions.create(model="citations", messages=messages)  # type: ignore[arg-type]
    message = chat.choices[0].message
    assert message.content == CITATIONS_ANSWER
    assert cited(message.content, message.annotations or []) == CITATIONS

    # Streamed, the annotations ride on the final delta (an LGOS extension);
    # the SDK's stream helper folds them into the final completion.
    with client.chat.completions.stream(model="citations", messages=messages) as chunks:  # type: ignore[arg-type]
        final = chunks.get_final_completion()
    message = final.choices[0].message
    assert message.content == CITATIONS_ANSWER
    assert cited(message.content, message.annotations or []) == CITATIONS


def test_unknown_model_is_not_found(client: OpenAI) -> None:
    calls = [
        lambda: client.responses.create(model="missing", input="Hi"),
        lambda: client.chat.completions.create(
            model="missing", messages=[{"role": "user", "content": "Hi"}]
        ),
        lambda: client.models.retrieve("missing"),
    ]
    for call in calls:
        with pytest.raises(openai.NotFoundError) as missing:
            call()
        assert (missing.value.code, missing.value.param) == ("model_not_found", "model")
        assert missing.value.body == {
            "message": "The model 'missing' does not exist.",
            "type": "invalid_request_error",
            "param": "model",
            "code": "model_not_found",
        }
