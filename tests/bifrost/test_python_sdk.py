"""The OpenAI Python SDK through recorded Bifrost v1.4.19, on both of its routes.

The gateway is ``tests/bifrost/recorded_bifrost.py``: a proxy that applies
the rewrites recorded from a real Bifrost v1.4.19 in front of the demo API
(``../shared/bifrost/transcripts``; each rule there names its files), in front
of the real demo API. Each test shows one line of the Bifrost table in
``docs/how-to/proxies.md``; the expected answers come from
``tests/clients/matrix.py``, as LGOS gives them directly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import openai
import pytest
from openai import OpenAI

import tests.clients.matrix as m
from tests.bifrost.conftest import Bifrost

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def v1(bifrost: Bifrost) -> Iterator[OpenAI]:
    """The SDK on Bifrost's ``/v1`` (models ``openai/<graph>``)."""
    with OpenAI(base_url=bifrost.v1, api_key=m.API_KEY, max_retries=0) as client:
        yield client


@pytest.fixture(scope="module")
def passthrough(bifrost: Bifrost) -> Iterator[OpenAI]:
    """The SDK on Bifrost's passthrough route (bare graph names)."""
    with OpenAI(
        base_url=bifrost.passthrough, api_key=m.API_KEY, max_retries=0
    ) as client:
        yield client


def graph_ids(demo_api_url: str) -> list[str]:
    """The graphs LGOS itself lists."""
    return [entry["id"] for entry in httpx.get(f"{demo_api_url}/models").json()["data"]]


# -- models ------------------------------------------------------------------


def test_v1_lists_prefixed_models_without_the_extension(
    v1: OpenAI, demo_api_url: str
) -> None:
    listed = list(v1.models.list())

    expected = sorted(f"openai/{graph}" for graph in graph_ids(demo_api_url))
    assert [model.id for model in listed] == expected
    assert all("lgos" not in (model.model_extra or {}) for model in listed)
    # GET /v1/models/{id} is not routed: an HTML page with status 200, which
    # the SDK hands back as a string instead of a Model.
    page = v1.models.retrieve("openai/chat")
    assert isinstance(page, str) and page.startswith("<html>")


def test_passthrough_keeps_the_extension_but_says_text_plain(
    passthrough: OpenAI, bifrost: Bifrost, demo_api_url: str
) -> None:
    direct = httpx.get(f"{demo_api_url}/models/deep-research").json()
    raw = httpx.get(f"{bifrost.passthrough}/models/deep-research")

    assert raw.headers["content-type"] == "text/plain; charset=utf-8"
    assert raw.json() == direct
    # The Python SDK parses the JSON whatever the content type says.
    detail = passthrough.models.retrieve("deep-research")
    assert (detail.model_extra or {})["lgos"] == direct["lgos"]
    listed = [model.id for model in passthrough.models.list()]
    assert listed == graph_ids(demo_api_url)


# -- Chat Completions --------------------------------------------------------


def test_chat_function_round_trip_through_v1(v1: OpenAI) -> None:
    """Bifrost adds ``index`` to replayed ``tool_calls``; LGOS accepts it."""
    messages: list = [{"role": "user", "content": m.TIME_PROMPT}]
    first = v1.chat.completions.create(
        model="openai/functions",
        messages=messages,
        tools=[m.TIME_CHAT_TOOL],  # type: ignore[list-item]
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    [call] = choice.message.tool_calls or []
    assert (call.model_extra or {})["index"] == 0  # added by the gateway
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (  # type: ignore[union-attr]
        m.TIME_CALL_ID,
        m.TIME_FUNCTION,
        m.TIME_ARGS,
    )
    # Replayed as the SDK returned it, and hand-written without an index:
    # Bifrost sends LGOS `tool_calls[0].index` either way.
    replays = [
        choice.message.model_dump(exclude_none=True),
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": m.TIME_FUNCTION,
                        "arguments": json.dumps(m.TIME_ARGS),
                    },
                }
            ],
        },
    ]
    for replay in replays:
        second = v1.chat.completions.create(
            model="openai/functions",
            messages=[
                *messages,
                replay,
                {"role": "tool", "tool_call_id": call.id, "content": m.TIME_RESULT},
            ],
            tools=[m.TIME_CHAT_TOOL],  # type: ignore[list-item]
        )
        assert second.choices[0].message.content == m.TIME_ANSWER


def test_chat_stream_through_v1_merges_the_last_chunks(v1: OpenAI) -> None:
    chunks = list(
        v1.chat.completions.create(
            model="openai/chat",
            messages=[{"role": "user", "content": m.CHAT_PROMPT}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == m.chat_answer()
    assert chunks[0].choices[0].delta.role is None  # the role chunk is gone
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.usage is not None and last.usage.completion_tokens > 0
    assert (last.created, last.model) == (0, "")


# -- Responses ---------------------------------------------------------------


def streamed_messages(client: OpenAI, model: str) -> list[tuple[str | None, str]]:
    """``(phase, text)`` of each message the writer streams."""
    events = client.responses.create(
        model=model, input=m.WRITER_PROMPT, metadata=m.WRITER_SETTINGS, stream=True
    )
    done = [event.item for event in events if event.type == "response.output_item.done"]
    return [
        (getattr(item, "phase", None), "".join(part.text for part in item.content))  # type: ignore[union-attr]
        for item in done
    ]


def test_commentary_loses_its_phase_on_v1_only(v1: OpenAI, passthrough: OpenAI) -> None:
    texts = [*m.WRITER_COMMENTARY, m.WRITER_ANSWER]

    assert streamed_messages(v1, "openai/writer") == [(None, text) for text in texts]
    assert streamed_messages(passthrough, "writer") == [
        *(("commentary", text) for text in m.WRITER_COMMENTARY),
        ("final_answer", m.WRITER_ANSWER),
    ]


@pytest.mark.parametrize("route", ["v1", "passthrough"])
def test_interrupt_pause_and_resume(
    route: str, v1: OpenAI, passthrough: OpenAI
) -> None:
    client, model = (
        (v1, "openai/approval") if route == "v1" else (passthrough, "approval")
    )
    paused = client.responses.create(model=model, input=m.REFUND_PROMPT)
    [call] = paused.output
    assert call.type == "function_call"
    assert json.loads(call.arguments) == m.REFUND_INTERRUPT

    answer = {
        "type": "function_call_output",
        "call_id": call.call_id,
        "output": "approve",
    }
    done = client.responses.create(
        model=model,
        previous_response_id=paused.id,
        input=[answer],  # type: ignore[list-item]
    )
    assert done.output_text == m.APPROVED


# -- errors ------------------------------------------------------------------


@pytest.mark.parametrize("route", ["v1", "passthrough"])
def test_errors_keep_status_code_and_param(
    route: str, bifrost: Bifrost, v1: OpenAI, passthrough: OpenAI
) -> None:
    # The writer honours no generation controls: LGOS refuses a temperature.
    client, model = (v1, "openai/writer") if route == "v1" else (passthrough, "writer")
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(model=model, input="hi", temperature=1.5)
    assert (refused.value.code, refused.value.param) == (
        "unsupported_parameter",
        "temperature",
    )
    assert refused.value.message.startswith("Error code: 400 - Unsupported parameter")
    raw = refused.value.response
    if route == "v1":
        body = raw.json()
        assert body["is_bifrost_error"] is False and body["status_code"] == 400
        assert raw.headers["content-type"] == "application/json"
    else:
        assert raw.headers["content-type"] == "text/plain; charset=utf-8"
        assert raw.json()["error"]["code"] == "unsupported_parameter"
    # An LGOS error without a code: Bifrost's wrapper leaves `code` out.
    with pytest.raises(openai.BadRequestError) as chat_refused:
        client.chat.completions.create(
            model=model.replace("writer", "approval"),
            messages=[{"role": "user", "content": m.REFUND_PROMPT}],
        )
    assert chat_refused.value.code is None
    assert chat_refused.value.param == "model"
    assert m.CHAT_INTERRUPTS_REFUSED in chat_refused.value.message


def test_v1_wants_provider_prefixed_models(v1: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        v1.responses.create(model="chat", input="hi")
    assert "provider/model format" in refused.value.message


# -- background --------------------------------------------------------------

RESEARCH = {
    "input": "Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
    "metadata": {"lgos_settings": '{"review_plan":false}'},
    "background": True,
}


def test_background_on_v1_creates_but_cannot_retrieve_or_cancel(
    v1: OpenAI, passthrough: OpenAI
) -> None:
    created = v1.responses.create(model="openai/deep-research", **RESEARCH)
    assert created.status in ("queued", "in_progress")
    assert isinstance(v1.responses.retrieve(created.id), str)  # the HTML page
    with pytest.raises(openai.APIStatusError) as refused:
        v1.responses.cancel(created.id)
    assert refused.value.status_code == 405
    # The same run is reachable on the passthrough route.
    cancelled = passthrough.responses.cancel(created.id)
    assert cancelled.id == created.id
    assert cancelled.status in ("cancelled", "completed")


def test_idempotency_key_needs_x_bf_eh_on_v1(v1: OpenAI, passthrough: OpenAI) -> None:
    def twice(client: OpenAI, model: str, header: str, key: str) -> set[str]:
        ids = {
            client.responses.create(
                model=model, extra_headers={header: key}, **RESEARCH
            ).id
            for _ in range(2)
        }
        for response_id in ids:
            passthrough.responses.cancel(response_id)
        return ids

    dropped = twice(v1, "openai/deep-research", "Idempotency-Key", "bf-test-1")
    forwarded = twice(
        v1, "openai/deep-research", "x-bf-eh-idempotency-key", "bf-test-2"
    )
    kept = twice(passthrough, "deep-research", "Idempotency-Key", "bf-test-3")

    assert len(dropped) == 2
    assert len(forwarded) == 1
    assert len(kept) == 1
