"""The LiteLLM SDK, unmodified, against the running demo API over HTTP.

A graph is ``model="openai/<graph>"`` with ``api_base`` set to the demo's
OpenAI base URL. What LiteLLM does on the way (each shown by a test below):

- It rewrites Response IDs: ``response.id`` is LiteLLM's own
  ``resp_<base64 of "litellm:custom_llm_provider:openai;model_id:None;
  response_id:<LGOS id>">``; it decodes that again when the ID comes back as
  ``previous_response_id``, so interrupt resumes work. Call IDs pass unchanged.
- It fakes Responses streaming for models missing from its model map (every
  graph): it sends a non-streaming request and replays the finished Response
  as 5-character deltas, so commentary never arrives. Registering the graph
  with ``supports_native_streaming`` makes it stream for real.
- Its exceptions subclass the OpenAI SDK's, but lose the error ``code``.

``tests/clients/conftest.py`` keeps LiteLLM from downloading its price map.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import litellm
import openai
import pytest

import tests.clients.matrix as m
from tests.clients.guards import Wire

pytestmark = [
    pytest.mark.usefixtures("offline_only"),
    # LiteLLM's own models: noise about its TypedDicts, and its streaming
    # iterators storing a Chat Completions usage dict in a Responses field.
    pytest.mark.filterwarnings("ignore:Items? .* the `ReadOnly` qualifier:UserWarning"),
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]

# Graphs registered for native Responses streaming (see `native_streaming`);
# `chat` stays unregistered, as every graph is by default.
NATIVE = ("openai/writer", "openai/citations")


@pytest.fixture
def kw(demo_api_url: str) -> dict[str, str]:
    return {"api_base": demo_api_url, "api_key": m.API_KEY}


@pytest.fixture(scope="module")
def native_streaming() -> Iterator[None]:
    litellm.register_model(
        {
            name: {
                "litellm_provider": "openai",
                # Not "responses": that would route completion() through
                # /v1/responses too, gluing commentary into the content.
                "mode": "chat",
                "supports_native_streaming": True,
            }
            for name in NATIVE
        },
        persist_across_reloads=False,
        add_to_provider_model_sets=False,
    )
    yield


def lgos_id(litellm_id: str) -> str:
    """The LGOS Response ID inside one of LiteLLM's rewritten IDs."""
    decoded = base64.b64decode(litellm_id.removeprefix("resp_")).decode()
    prefix = "litellm:custom_llm_provider:openai;model_id:None;response_id:"
    assert decoded.startswith(prefix), decoded
    return decoded.removeprefix(prefix)


def text_of(item: Any) -> str:
    return "".join(
        part["text"] if isinstance(part, dict) else part.text for part in item.content
    )


def test_responses_text(kw: dict[str, str], wire: Wire) -> None:
    response = litellm.responses(model="openai/chat", input=m.CHAT_PROMPT, **kw)
    assert response.output_text == m.chat_answer()
    assert [item.phase for item in response.output] == ["final_answer"]
    # LiteLLM wraps LGOS's ID in its own.
    assert response.id != lgos_id(response.id)
    assert m.RESPONSE_ID.fullmatch(lgos_id(response.id))
    assert wire.bodies("/responses") == [{"model": "chat", "input": m.CHAT_PROMPT}]


def test_completion_text(kw: dict[str, str]) -> None:
    completion = litellm.completion(
        model="openai/chat",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": m.CHAT_PROMPT},
        ],
        **kw,
    )
    assert m.CHAT_COMPLETION_ID.fullmatch(completion.id)
    assert completion.choices[0].message.content == m.chat_answer(
        m.CHAT_PROMPT, "Be brief."
    )
    assert completion.choices[0].finish_reason == "stop"


def test_responses_stream_is_faked_for_unregistered_graphs(
    kw: dict[str, str], wire: Wire
) -> None:
    events = list(
        litellm.responses(model="openai/chat", input=m.CHAT_PROMPT, stream=True, **kw)
    )
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert "".join(deltas) == m.chat_answer()
    assert {len(delta) for delta in deltas[:-1]} == {5}  # LiteLLM's own chunks
    assert events[-1].type == "response.completed"
    # LiteLLM asked for the whole Response, not a stream.
    assert wire.bodies("/responses") == [{"model": "chat", "input": m.CHAT_PROMPT}]


@pytest.mark.usefixtures("native_streaming")
def test_responses_stream_native_when_registered(
    kw: dict[str, str], wire: Wire
) -> None:
    events = list(
        litellm.responses(
            model="openai/citations", input=m.CITATIONS_PROMPT, stream=True, **kw
        )
    )
    assert wire.bodies("/responses") == [
        {"model": "citations", "input": m.CITATIONS_PROMPT, "stream": True}
    ]
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    done = [e.item for e in events if e.type == "response.output_item.done"]
    assert [(i.phase, text_of(i)) for i in done] == [
        *(("commentary", text) for text in m.CITATIONS_COMMENTARY),
        ("final_answer", m.CITATIONS_ANSWER),
    ]
    answer_id = done[-1].id
    deltas = [
        e.delta
        for e in events
        if e.type == "response.output_text.delta" and e.item_id == answer_id
    ]
    assert len(deltas) > 1
    assert "".join(deltas) == m.CITATIONS_ANSWER
    added = [e for e in events if e.type == "response.output_text.annotation.added"]
    assert m.cited(m.CITATIONS_ANSWER, [e.annotation for e in added]) == m.CITATIONS


def test_completion_stream(kw: dict[str, str], wire: Wire) -> None:
    chunks = list(
        litellm.completion(
            model="openai/chat",
            messages=[{"role": "user", "content": m.CHAT_PROMPT}],
            stream=True,
            **kw,
        )
    )
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert len(pieces) > 1
    assert "".join(pieces) == m.chat_answer()
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert wire.bodies("/chat/completions")[0]["stream"] is True


def test_responses_function_round_trip(kw: dict[str, str]) -> None:
    ledger: list[Any] = [{"role": "user", "content": m.TIME_PROMPT}]
    first = litellm.responses(
        model="openai/functions", input=ledger, tools=[m.TIME_TOOL], **kw
    )
    [call] = first.output
    assert (call.type, call.name, call.call_id) == (
        "function_call",
        m.TIME_FUNCTION,
        m.TIME_CALL_ID,
    )
    assert json.loads(call.arguments) == m.TIME_ARGS
    ledger += [item.model_dump(exclude_none=True) for item in first.output]
    ledger.append(
        {
            "type": "function_call_output",
            "call_id": call.call_id,
            "output": m.TIME_RESULT,
        }
    )
    second = litellm.responses(
        model="openai/functions", input=ledger, tools=[m.TIME_TOOL], **kw
    )
    assert second.output_text == m.TIME_ANSWER


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_completion_function_round_trip(kw: dict[str, str], stream: bool) -> None:
    messages: list[Any] = [{"role": "user", "content": m.DICE_PROMPT}]
    first = litellm.completion(
        model="openai/functions",
        messages=messages,
        tools=[m.DICE_CHAT_TOOL],
        stream=stream,
        **kw,
    )
    if stream:  # LiteLLM's helper folds the chunks into one response
        first = litellm.stream_chunk_builder(list(first), messages=messages)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    [call] = choice.message.tool_calls
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
        m.DICE_CALL_ID,
        m.DICE_FUNCTION,
        m.DICE_ARGS,
    )
    messages.append(choice.message)  # LiteLLM's documented way
    messages.append({"role": "tool", "tool_call_id": call.id, "content": m.DICE_RESULT})
    second = litellm.completion(
        model="openai/functions", messages=messages, tools=[m.DICE_CHAT_TOOL], **kw
    )
    assert second.choices[0].message.content == m.DICE_ANSWER


def test_responses_interrupt_resume(kw: dict[str, str], wire: Wire) -> None:
    paused = litellm.responses(model="openai/approval", input=m.REFUND_PROMPT, **kw)
    assert m.RUN_RESPONSE_ID.fullmatch(lgos_id(paused.id))
    [call] = paused.output
    assert (call.type, call.name) == ("function_call", m.INTERRUPT_FUNCTION)
    assert m.INTERRUPT_CALL_ID.fullmatch(call.call_id)  # not rewritten
    assert json.loads(call.arguments) == m.REFUND_INTERRUPT

    done = litellm.responses(
        model="openai/approval",
        previous_response_id=paused.id,
        input=[
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": "approve",
            }
        ],
        **kw,
    )
    assert done.output_text == m.APPROVED
    # On the wire, LiteLLM sent LGOS's own Response ID back.
    assert wire.bodies("/responses")[-1] == {
        "model": "approval",
        "input": [
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": "approve",
            }
        ],
        "previous_response_id": lgos_id(paused.id),
    }


def test_completion_interrupt_is_refused(kw: dict[str, str]) -> None:
    with pytest.raises(litellm.BadRequestError) as refused:
        litellm.completion(
            model="openai/approval",
            messages=[{"role": "user", "content": m.REFUND_PROMPT}],
            **kw,
        )
    assert isinstance(refused.value, openai.BadRequestError)
    assert refused.value.status_code == 400
    assert refused.value.body == {
        "message": m.CHAT_INTERRUPTS_REFUSED,
        "type": "invalid_request_error",
        "param": "model",
        "code": None,
    }


def test_citations(kw: dict[str, str]) -> None:
    response = litellm.responses(
        model="openai/citations", input=m.CITATIONS_PROMPT, **kw
    )
    [message] = response.output
    [part] = message.content
    assert part.text == m.CITATIONS_ANSWER
    assert m.cited(part.text, part.annotations) == m.CITATIONS

    messages = [{"role": "user", "content": m.CITATIONS_PROMPT}]
    completion = litellm.completion(model="openai/citations", messages=messages, **kw)
    message = completion.choices[0].message
    assert message.content == m.CITATIONS_ANSWER
    assert m.cited(message.content, message.annotations) == m.CITATIONS

    chunks = list(
        litellm.completion(
            model="openai/citations", messages=messages, stream=True, **kw
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    annotated = [
        c.choices[0].delta
        for c in chunks
        if getattr(c.choices[0].delta, "annotations", None)
    ]
    assert text == m.CITATIONS_ANSWER
    [final_delta] = annotated  # the LGOS extension: on the final delta
    assert m.cited(text, final_delta.annotations) == m.CITATIONS


@pytest.mark.usefixtures("native_streaming")
def test_commentary(kw: dict[str, str], wire: Wire) -> None:
    # (LiteLLM adds its `hidden_params` to the metadata dict it is given, hence
    # the copies; it does not send them.)
    plain = litellm.responses(
        model="openai/writer",
        input=m.WRITER_PROMPT,
        metadata=dict(m.WRITER_SETTINGS),
        **kw,
    )
    assert [item.phase for item in plain.output] == ["final_answer"]
    assert plain.output_text == m.WRITER_ANSWER

    events = list(
        litellm.responses(
            model="openai/writer",
            input=m.WRITER_PROMPT,
            metadata=dict(m.WRITER_SETTINGS),
            stream=True,
            **kw,
        )
    )
    done = [e.item for e in events if e.type == "response.output_item.done"]
    assert [(i.phase, text_of(i)) for i in done] == [
        *(("commentary", text) for text in m.WRITER_COMMENTARY),
        ("final_answer", m.WRITER_ANSWER),
    ]
    final = events[-1].response
    # output_text joins every message: select the final answer by phase.
    assert final.output_text == m.WRITER_GLUED
    assert [text_of(i) for i in final.output if i.phase == "final_answer"] == [
        m.WRITER_ANSWER
    ]
    assert [body["metadata"] for body in wire.bodies("/responses")] == 2 * [
        m.WRITER_SETTINGS
    ]


def test_unknown_model(kw: dict[str, str]) -> None:
    with pytest.raises(litellm.NotFoundError) as responses:
        litellm.responses(model="openai/missing", input=m.CHAT_PROMPT, **kw)
    with pytest.raises(litellm.NotFoundError) as completion:
        litellm.completion(
            model="openai/missing", messages=[{"role": "user", "content": "Hi"}], **kw
        )
    for error in (responses.value, completion.value):
        assert isinstance(error, openai.NotFoundError)
        assert error.status_code == 404
        # LiteLLM drops the body, and with it `code` and `param`.
        assert (error.body, error.code, error.param) == (None, None, None)
    # The Responses route keeps LGOS's envelope as text in the message ...
    envelope = json.dumps({"error": m.NOT_FOUND}, separators=(",", ":"))
    prefix = "litellm.NotFoundError: "
    assert responses.value.message == f"{prefix}OpenAIException - {envelope}"
    # ... Chat Completions keeps only the message.
    assert completion.value.message == (
        f"{prefix}NotFoundError: OpenAIException - {m.NOT_FOUND['message']}"
    )


def test_wire_fields(kw: dict[str, str], wire: Wire) -> None:
    """Every field LiteLLM sends, both APIs, with and without streaming."""
    ledger = [{"role": "user", "content": m.TIME_PROMPT}]
    litellm.responses(model="openai/functions", input=ledger, tools=[m.TIME_TOOL], **kw)
    list(
        litellm.responses(
            model="openai/functions",
            input=ledger,
            tools=[m.TIME_TOOL],
            stream=True,
            **kw,
        )
    )
    messages = [{"role": "user", "content": m.DICE_PROMPT}]
    for stream in (False, True):
        litellm.completion(
            model="openai/functions",
            messages=messages,
            tools=[m.DICE_CHAT_TOOL],
            stream=stream,
            **kw,
        )
    assert [sorted(b) for b in wire.bodies("/responses")] == 2 * [
        ["input", "model", "tools"]  # no "stream": LiteLLM fakes it
    ]
    assert [sorted(b) for b in wire.bodies("/chat/completions")] == [
        ["messages", "model", "tools"],
        ["messages", "model", "stream", "tools"],
    ]
    assert wire.bodies("/responses")[0]["tools"] == [m.TIME_TOOL]
    assert wire.bodies("/chat/completions")[0]["tools"] == [m.DICE_CHAT_TOOL]
