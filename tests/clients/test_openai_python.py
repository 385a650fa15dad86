"""The OpenAI Python SDK, unmodified, against the running demo API over HTTP.

The compact matrix row: one test per feature a client meets (the in-process
SDK tests in ``tests/lgos`` cover the protocol in depth).
"""

from __future__ import annotations

import json

import openai
import pytest
from openai import AsyncOpenAI, OpenAI
from openai.types.responses import Response

import tests.clients.matrix as m
from tests.waiting import wait_until

pytestmark = pytest.mark.usefixtures("offline_only")


def test_responses_create_and_stream_helper(openai_client: OpenAI) -> None:
    response = openai_client.responses.create(model="chat", input=m.CHAT_PROMPT)
    assert m.RESPONSE_ID.fullmatch(response.id)
    assert (response.status, response.model) == ("completed", "chat")
    assert [(item.type, item.phase) for item in response.output] == [  # type: ignore[union-attr]
        ("message", "final_answer")
    ]
    assert response.output_text == m.chat_answer()

    with openai_client.responses.stream(model="chat", input=m.CHAT_PROMPT) as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [event.type for event in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 1
    assert "".join(deltas) == final.output_text == m.chat_answer()
    assert [e.sequence_number for e in events] == list(range(len(events)))


@pytest.mark.anyio
async def test_chat_create_and_stream_helper(async_openai_client: AsyncOpenAI) -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": m.CHAT_PROMPT},
    ]
    completion = await async_openai_client.chat.completions.create(
        model="chat",
        messages=messages,  # type: ignore[arg-type]
    )
    assert m.CHAT_COMPLETION_ID.fullmatch(completion.id)
    choice = completion.choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.content == m.chat_answer(m.CHAT_PROMPT, "Be brief.")

    async with async_openai_client.chat.completions.stream(
        model="chat",
        messages=messages,  # type: ignore[arg-type]
    ) as stream:
        deltas = [e.delta async for e in stream if e.type == "content.delta"]
        final = await stream.get_final_completion()
    assert len(deltas) > 1
    assert "".join(deltas) == m.chat_answer(m.CHAT_PROMPT, "Be brief.")
    assert final.choices[0].message.content == "".join(deltas)
    assert final.choices[0].finish_reason == "stop"


def test_models_list_and_retrieve_carry_the_lgos_extension(
    openai_client: OpenAI,
) -> None:
    models = {model.id: model for model in openai_client.models.list()}
    assert set(models) == set(m.DEMO_MODELS)
    assert {model.object for model in models.values()} == {"model"}
    listed = models["approval"].model_extra["lgos"]  # type: ignore[index]
    assert (listed["schema_version"], listed["features"]) == (1, ["interrupts"])
    assert "client_settings" not in listed  # the list carries the small part

    research = openai_client.models.retrieve("deep-research").model_extra["lgos"]  # type: ignore[index]
    assert set(research["features"]) == {"background", "file_inputs", "interrupts"}
    assert research["client_settings"]["defaults"]["review_plan"] is True
    functions = openai_client.models.retrieve("functions").model_extra["lgos"]  # type: ignore[index]
    assert sorted(functions["client_tools"]) == [m.TIME_FUNCTION, m.DICE_FUNCTION]
    assert functions["client_settings"] is None


def test_background_create_retrieve_cancel(openai_client: OpenAI) -> None:
    queued = openai_client.responses.create(
        model="deep-research",
        input=m.RESEARCH_PROMPT,
        tools=m.RESEARCH_TOOLS,  # type: ignore[arg-type]
        metadata=m.RESEARCH_SETTINGS,
        background=True,
    )
    assert m.RUN_RESPONSE_ID.fullmatch(queued.id)
    assert (queued.status, queued.background, queued.output) == ("queued", True, [])

    def finished() -> Response | None:
        done = openai_client.responses.retrieve(queued.id)
        return done if done.status not in {"queued", "in_progress"} else None

    done = wait_until(finished, timeout=30, message="the background run to finish")
    assert (done.id, done.status) == (queued.id, "completed")
    assert done.output_text.startswith(m.RESEARCH_REPORT_START)
    kinds = [item.type for item in done.output]
    assert kinds[-1] == "message"
    assert set(kinds[:-1]) == {"web_search_call"}

    assert openai_client.responses.cancel(queued.id).status == "completed"
    assert openai_client.responses.retrieve(queued.id).output_text == done.output_text


def test_function_round_trip_responses(openai_client: OpenAI) -> None:
    ledger: list = [{"role": "user", "content": m.TIME_PROMPT}]
    first = openai_client.responses.create(
        model="functions",
        input=ledger,
        tools=[m.TIME_TOOL],  # type: ignore[list-item]
    )
    [call] = first.output
    assert call.type == "function_call"
    assert (call.name, json.loads(call.arguments), call.call_id) == (
        m.TIME_FUNCTION,
        m.TIME_ARGS,
        m.TIME_CALL_ID,
    )
    # No conversation state: resend the whole ledger with the result.
    ledger += [item.model_dump(exclude_none=True) for item in first.output]
    ledger.append(
        {
            "type": "function_call_output",
            "call_id": call.call_id,
            "output": m.TIME_RESULT,
        }
    )
    second = openai_client.responses.create(
        model="functions",
        input=ledger,
        tools=[m.TIME_TOOL],  # type: ignore[list-item]
    )
    assert second.output_text == m.TIME_ANSWER


def test_function_round_trip_chat(openai_client: OpenAI) -> None:
    messages: list = [{"role": "user", "content": m.DICE_PROMPT}]
    first = openai_client.chat.completions.create(
        model="functions",
        messages=messages,
        tools=[m.DICE_CHAT_TOOL],  # type: ignore[list-item]
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    [call] = choice.message.tool_calls or []
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (  # type: ignore[union-attr]
        m.DICE_CALL_ID,
        m.DICE_FUNCTION,
        m.DICE_ARGS,
    )
    messages.append(choice.message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": m.DICE_RESULT})
    second = openai_client.chat.completions.create(
        model="functions",
        messages=messages,
        tools=[m.DICE_CHAT_TOOL],  # type: ignore[list-item]
    )
    assert second.choices[0].message.content == m.DICE_ANSWER


def test_interrupt_answered_and_resumed(openai_client: OpenAI) -> None:
    paused = openai_client.responses.create(model="approval", input=m.REFUND_PROMPT)
    assert m.RUN_RESPONSE_ID.fullmatch(paused.id)
    [call] = paused.output
    assert (call.type, call.name) == ("function_call", m.INTERRUPT_FUNCTION)  # type: ignore[union-attr]
    assert m.INTERRUPT_CALL_ID.fullmatch(call.call_id)  # type: ignore[union-attr]
    assert json.loads(call.arguments) == m.REFUND_INTERRUPT  # type: ignore[union-attr]

    answer = [
        {"type": "function_call_output", "call_id": call.call_id, "output": "approve"}  # type: ignore[union-attr]
    ]
    done = openai_client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=answer,  # type: ignore[arg-type]
    )
    assert done.output_text == m.APPROVED
    assert m.RUN_RESPONSE_ID.fullmatch(done.id)
    assert done.id.split("_")[2] == paused.id.split("_")[2]  # the same run

    with pytest.raises(openai.ConflictError) as replayed:
        openai_client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answer,  # type: ignore[arg-type]
        )
    assert replayed.value.code == "interrupt_state_conflict"


def test_interrupt_is_refused_on_chat_completions(openai_client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        openai_client.chat.completions.create(
            model="approval", messages=[{"role": "user", "content": m.REFUND_PROMPT}]
        )
    assert (refused.value.status_code, refused.value.param) == (400, "model")
    assert refused.value.message == f"Error code: 400 - {m.CHAT_INTERRUPTS_REFUSED}"


def test_writer_commentary_phase(openai_client: OpenAI) -> None:
    with openai_client.responses.stream(
        model="writer", input=m.WRITER_PROMPT, metadata=m.WRITER_SETTINGS
    ) as stream:
        done_items = [
            event.item for event in stream if event.type == "response.output_item.done"
        ]
        final = stream.get_final_response()
    messages = [(item.phase, item.content[0].text) for item in done_items]  # type: ignore[union-attr]
    assert messages == [
        *(("commentary", text) for text in m.WRITER_COMMENTARY),
        ("final_answer", m.WRITER_ANSWER),
    ]
    assert all(m.MESSAGE_ID.fullmatch(item.id) for item in done_items)  # type: ignore[union-attr]
    assert [item.phase for item in final.output] == [p for p, _ in messages]  # type: ignore[union-attr]
    # The SDK's output_text joins every message: select the final answer.
    assert final.output_text == m.WRITER_GLUED
    answer = "".join(
        part.text
        for item in final.output
        if item.type == "message" and item.phase == "final_answer"
        for part in item.content
        if part.type == "output_text"
    )
    assert answer == m.WRITER_ANSWER

    plain = openai_client.responses.create(
        model="writer", input=m.WRITER_PROMPT, metadata=m.WRITER_SETTINGS
    )
    assert [item.phase for item in plain.output] == ["final_answer"]  # type: ignore[union-attr]
    assert plain.output_text == m.WRITER_ANSWER


def test_citations(openai_client: OpenAI) -> None:
    response = openai_client.responses.create(
        model="citations", input=m.CITATIONS_PROMPT
    )
    [message] = response.output
    [part] = message.content  # type: ignore[union-attr]
    assert part.text == m.CITATIONS_ANSWER  # type: ignore[union-attr]
    assert m.cited(part.text, part.annotations) == m.CITATIONS  # type: ignore[union-attr]

    with openai_client.responses.stream(
        model="citations", input=m.CITATIONS_PROMPT
    ) as stream:
        events = list(stream)
    added = [e for e in events if e.type == "response.output_text.annotation.added"]
    assert [e.annotation_index for e in added] == [0, 1]
    assert m.cited(m.CITATIONS_ANSWER, [e.annotation for e in added]) == m.CITATIONS
    done = [e.item for e in events if e.type == "response.output_item.done"]
    assert [(i.phase, i.content[0].text) for i in done] == [  # type: ignore[union-attr]
        *(("commentary", text) for text in m.CITATIONS_COMMENTARY),
        ("final_answer", m.CITATIONS_ANSWER),
    ]

    messages = [{"role": "user", "content": m.CITATIONS_PROMPT}]
    chat = openai_client.chat.completions.create(model="citations", messages=messages)  # type: ignore[arg-type]
    message = chat.choices[0].message
    assert message.content == m.CITATIONS_ANSWER
    assert m.cited(message.content, message.annotations or []) == m.CITATIONS

    # Streamed, the annotations ride on the final delta (an LGOS extension);
    # the SDK's stream helper folds them into the final completion.
    with openai_client.chat.completions.stream(
        model="citations",
        messages=messages,  # type: ignore[arg-type]
    ) as chunks:
        final = chunks.get_final_completion()
    message = final.choices[0].message
    assert message.content == m.CITATIONS_ANSWER
    assert m.cited(message.content, message.annotations or []) == m.CITATIONS


def test_unknown_model_is_not_found(openai_client: OpenAI) -> None:
    calls = [
        lambda: openai_client.responses.create(model="missing", input="Hi"),
        lambda: openai_client.chat.completions.create(
            model="missing", messages=[{"role": "user", "content": "Hi"}]
        ),
        lambda: openai_client.models.retrieve("missing"),
    ]
    for call in calls:
        with pytest.raises(openai.NotFoundError) as missing:
            call()
        assert (missing.value.code, missing.value.param) == ("model_not_found", "model")
        assert missing.value.body == m.NOT_FOUND
