"""The interrupt lifecycle on in-memory storage (PostgreSQL runs in integration)."""

from __future__ import annotations

import asyncio
import gc
import json
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx
import openai
import pytest
from fastapi import FastAPI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Command
from openai import AsyncOpenAI

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    LanggraphOpenaiServe,
    status_event,
)
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator, Lease
from langgraph_openai_serve.graph.interrupt import (
    REQUEST_METADATA_KEY,
    checkpoint_key,
    delete_expired_interrupt_runs,
)
from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate
from tests.lgos.asgi import call_asgi, leaving_receive, post_scope
from tests.lgos.interrupt_graphs import Counter, approval_graph, interrupt_registry
from tests.lgos.interrupts import LosableCoordinator, answers, calls_of
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

RESPONSE_ID = re.compile(r"^resp_lg_[0-9a-f]{32}_[0-9a-f]{32}$")
CALL_ID = re.compile(r"^call_lg_[0-9a-f]{64}_[0-9a-f]{32}_[0-9a-f]+$")


class Env:
    def __init__(self, coordinator: InMemoryRunCoordinator | None = None) -> None:
        self.saver = InMemorySaver()
        self.coordinator = coordinator or InMemoryRunCoordinator()
        self.counter = Counter()
        self.app = FastAPI()
        registry = interrupt_registry(self.saver, self.coordinator, self.counter)
        # Tests only: the scope comes from a header standing in for an
        # authenticated tenant.
        LanggraphOpenaiServe(
            registry,
            self.app,
            checkpoint_scope=lambda r: r.headers.get("x-tenant", "t1"),
        ).bind_openai_api()

    async def threads(self) -> set[str]:
        return {
            c.config["configurable"]["thread_id"] async for c in self.saver.alist(None)
        }


@asynccontextmanager
async def clients(state: Env) -> AsyncIterator[tuple[httpx.AsyncClient, AsyncOpenAI]]:
    """Plain HTTP and the OpenAI SDK, both talking to ``state.app`` in process."""
    transport = httpx.ASGITransport(app=state.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        yield (
            http,
            AsyncOpenAI(
                base_url="http://lgos/v1", api_key="x", http_client=http, max_retries=0
            ),
        )


@pytest.fixture
async def env() -> AsyncIterator[tuple[Env, AsyncOpenAI]]:
    state = Env()
    async with clients(state) as (_, client):
        yield state, client


async def test_pause_then_resume(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    paused = await client.responses.create(model="approval", input="Refund order 42")
    assert RESPONSE_ID.match(paused.id)
    [call] = calls_of(paused)
    assert CALL_ID.match(call.call_id)
    assert json.loads(call.arguments) == {
        "question": "How should the refund be handled?",
        "choices": ["approve", "reject"],
        "allow_other": True,
    }
    assert len(await state.threads()) == 1
    done = await client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=answers([call], "Verify the address first."),
    )
    assert done.output_text == "Decision: Verify the address first."
    assert done.id.split("_")[2] == paused.id.split("_")[2]  # same run UUID
    # Terminal completion deletes the run's checkpoints; no tombstone is kept.
    assert await state.threads() == set()
    assert state.coordinator.held == frozenset()
    with pytest.raises(openai.ConflictError) as replay:
        await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers([call], "again"),
        )
    assert replay.value.code == "interrupt_state_conflict"


async def test_streamed_pause_and_resume(env: tuple[Env, AsyncOpenAI]) -> None:
    _, client = env
    http = client._client  # the SDK's httpx client, for raw SSE
    reply = await http.post(
        "http://lgos/v1/responses",
        json={"model": "approval", "input": "x", "stream": True},
    )
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    assert [e["type"] for e in events][-4:] == [
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    final = events[-1]["response"]
    call = final["output"][-1]
    assert call["name"] == "lgos_interrupt"
    stream = await client.responses.create(
        model="approval",
        previous_response_id=final["id"],
        input=[
            {
                "type": "function_call_output",
                "call_id": call["call_id"],
                "output": "approve",
            }
        ],
        stream=True,
    )
    text = "".join(
        [e.delta async for e in stream if e.type == "response.output_text.delta"]
    )
    assert text == "Decision: approve"


async def test_parallel_interrupts_are_one_batch(env: tuple[Env, AsyncOpenAI]) -> None:
    _, client = env
    paused = await client.responses.create(model="parallel", input="plan")
    calls = calls_of(paused)
    assert sorted(json.loads(c.arguments)["question"] for c in calls) == [
        "Approve the budget?",
        "Approve the timeline?",
    ]
    with pytest.raises(openai.BadRequestError) as partial:
        await client.responses.create(
            model="parallel",
            previous_response_id=paused.id,
            input=answers(calls[:1], "yes"),
        )
    assert partial.value.param == "input"
    by_topic = {json.loads(c.arguments)["question"].split()[2]: c for c in calls}
    done = await client.responses.create(
        model="parallel",
        previous_response_id=paused.id,
        input=answers([by_topic["budget?"], by_topic["timeline?"]], "yes", "no"),
    )
    assert done.output_text == "budget=yes, timeline=no"


async def test_mixed_forged_and_malformed_ids(env: tuple[Env, AsyncOpenAI]) -> None:
    _, client = env
    first = await client.responses.create(model="approval", input="a")
    second = await client.responses.create(model="approval", input="b")
    [call_b] = calls_of(second)
    with pytest.raises(openai.BadRequestError) as mixed:
        await client.responses.create(
            model="approval",
            previous_response_id=first.id,
            input=answers([call_b], "x"),
        )
    assert mixed.value.param == "previous_response_id"
    [call_a] = calls_of(first)
    forged = call_a.call_id.replace(call_a.call_id[8:20], "0" * 12)
    with pytest.raises(openai.ConflictError) as stale:
        await client.responses.create(
            model="approval",
            previous_response_id=first.id,
            input=[{"type": "function_call_output", "call_id": forged, "output": "x"}],
        )
    assert stale.value.code == "interrupt_state_conflict"
    bad_inputs = [
        ({"previous_response_id": "resp_123"}, "previous_response_id"),
        ({"previous_response_id": first.id, "input": "text"}, "input"),
        ({"previous_response_id": first.id, "instructions": "new"}, "instructions"),
        (
            {
                "previous_response_id": first.id,
                "input": [{"role": "user", "content": "x"}],
            },
            "input[0]",
        ),
        (
            {
                "previous_response_id": first.id,
                "input": [
                    {"type": "function_call_output", "call_id": "call_x", "output": "x"}
                ],
            },
            "input[0].call_id",
        ),
        (
            {
                "previous_response_id": first.id,
                "input": answers([call_a], "x") * 2,
            },
            "input[1].call_id",
        ),
        (
            {
                "previous_response_id": first.id,
                "input": answers([call_a], "x"),
                "metadata": {"lgos_run_id": str(uuid.uuid4())},
            },
            "metadata.lgos_run_id",
        ),
    ]
    for extra, param in bad_inputs:
        body: dict[str, Any] = {
            "model": "approval",
            "input": answers([call_a], "x"),
            **extra,
        }
        with pytest.raises(openai.BadRequestError) as raised:
            await client.responses.create(**body)
        assert raised.value.param == param, extra
    # Nothing above touched the pending run: it still resumes.
    done = await client.responses.create(
        model="approval", previous_response_id=first.id, input=answers([call_a], "ok")
    )
    assert done.output_text == "Decision: ok"


async def test_a_resume_may_repeat_the_instructions_not_change_them(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    # The OpenAI Agents SDK resends an agent's instructions with every request.
    _, client = env
    first = await client.responses.create(
        model="approval", input="a", instructions="Be brief."
    )
    [call] = calls_of(first)
    for changed in ("Be verbose.", ""):
        with pytest.raises(openai.BadRequestError) as raised:
            await client.responses.create(
                model="approval",
                previous_response_id=first.id,
                input=answers([call], "x"),
                instructions=changed,
            )
        assert raised.value.param == "instructions"
    async with client.responses.stream(
        model="approval",
        previous_response_id=first.id,
        input=answers([call], "ok"),
        instructions="Be brief.",
    ) as stream:
        done = await stream.get_final_response()
    assert done.output_text == "Decision: ok"


async def test_answers_replayed_as_history_say_to_resume(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    # Without previous_response_id the answer would start the operation again
    # and ask again: a client loop (the Agents SDK's default mode) never ends.
    _, client = env
    paused = await client.responses.create(model="approval", input="refund")
    [call] = calls_of(paused)
    ledger = [
        {"role": "user", "content": "refund"},
        call.model_dump(exclude_none=True),
        *answers([call], "approve"),
    ]
    with pytest.raises(openai.BadRequestError) as raised:
        await client.responses.create(model="approval", input=ledger)
    assert raised.value.param == "previous_response_id"
    assert "input[2] answers an interrupt" in raised.value.message
    # As history before a new message, the same items are fine.
    followed = await client.responses.create(
        model="approval", input=[*ledger, {"role": "user", "content": "another"}]
    )
    assert calls_of(followed)  # a new operation, paused at its own question
    done = await client.responses.create(
        model="approval", previous_response_id=paused.id, input=answers([call], "ok")
    )
    assert done.output_text == "Decision: ok"


async def test_caller_run_id_retry_reemits_the_batch(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    state, client = env
    run_id = str(uuid.uuid4())
    first = await client.responses.create(
        model="approval", input="x", metadata={"lgos_run_id": run_id}
    )
    assert first.id.split("_")[2] == uuid.UUID(run_id).hex
    retry = await client.responses.create(
        model="approval", input="x", metadata={"lgos_run_id": run_id}
    )
    assert retry.id != first.id
    assert calls_of(retry)[0].call_id != calls_of(first)[0].call_id
    assert (state.counter.prepare, state.counter.review) == (1, 1)
    # Either exchange resumes while the checkpoint is current.
    done = await client.responses.create(
        model="approval",
        previous_response_id=first.id,
        input=answers(calls_of(first), "approve"),
        metadata={"lgos_run_id": run_id},
    )
    assert done.output_text == "Decision: approve"
    for bad in ("not-a-uuid", str(uuid.UUID(int=0))):
        with pytest.raises(openai.BadRequestError) as raised:
            await client.responses.create(
                model="approval", input="x", metadata={"lgos_run_id": bad}
            )
        assert raised.value.param == "metadata.lgos_run_id"


async def checkpoints(state: Env) -> list[tuple[str, str, str]]:
    """Every stored checkpoint: (thread, checkpoint ID, metadata as JSON)."""
    found = [
        (
            c.config["configurable"]["thread_id"],
            c.config["configurable"]["checkpoint_id"],
            json.dumps(c.metadata, sort_keys=True, default=str),
        )
        async for c in state.saver.alist(None)
    ]
    return sorted(found)


def forget_fingerprints(saver: InMemorySaver) -> int:
    """Strip the request fingerprint from every checkpoint, as pauses kept before
    LGOS recorded it look; return how many checkpoints had one."""
    had = 0
    for namespaces in saver.storage.values():
        for stored in namespaces.values():
            for checkpoint_id, (checkpoint, metadata, parent) in list(stored.items()):
                fields = saver.serde.loads_typed(metadata)
                had += fields.pop(REQUEST_METADATA_KEY, None) is not None
                stored[checkpoint_id] = (
                    checkpoint,
                    saver.serde.dumps_typed(fields),
                    parent,
                )
    return had


async def test_a_retry_of_the_same_request_reemits_however_it_is_delivered(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    state, client = env
    run_id = str(uuid.uuid4())
    body: dict[str, Any] = {
        "model": "approval",
        "input": [{"role": "user", "content": "Refund order 7"}],
        "instructions": "Be brief.",
        "metadata": {"lgos_run_id": run_id, "conversation_id": "chat-1"},
    }
    first = await client.responses.create(**body)
    # The same request, with its defaults spelled out, other bookkeeping
    # metadata and streamed: the same pending question, new IDs.
    retried = {
        **body,
        "input": [{"type": "message", "role": "user", "content": "Refund order 7"}],
        "metadata": {"lgos_run_id": run_id, "conversation_id": "chat-2"},
        "stream": True,
    }
    reply = await client._client.post("http://lgos/v1/responses", json=retried)
    assert reply.status_code == 200
    final = parse_sse(reply.text)[-1]["response"]
    [call] = [i for i in final["output"] if i["type"] == "function_call"]
    assert call["arguments"] == calls_of(first)[0].arguments
    assert call["call_id"] != calls_of(first)[0].call_id
    assert (state.counter.prepare, state.counter.review) == (1, 1)
    done = await client.responses.create(
        model="approval",
        previous_response_id=final["id"],
        input=[
            {"type": "function_call_output", "call_id": call["call_id"], "output": "ok"}
        ],
    )
    assert done.output_text == "Decision: ok"


async def test_another_request_with_a_pending_run_id_is_refused(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    # Before the fingerprint, any request naming the UUID got the pending
    # question and fresh call IDs able to answer it; the owner then got 409.
    state, client = env
    run_id = str(uuid.uuid4())
    first = await client.responses.create(
        model="approval", input="Refund order 8", metadata={"lgos_run_id": run_id}
    )
    kept = await checkpoints(state)
    http = client._client
    others: list[dict[str, Any]] = [
        {"input": "Refund order 9"},
        {"input": [{"role": "user", "content": "Refund order 9"}]},
        {"input": "Refund order 8", "instructions": "Approve everything."},
        {"input": "Refund order 9", "stream": True},
    ]
    for other in others:
        reply = await http.post(
            "http://lgos/v1/responses",
            json={"model": "approval", "metadata": {"lgos_run_id": run_id}, **other},
        )
        assert reply.status_code == 422, (other, reply.text)
        error = reply.json()["error"]
        assert error["type"] == "invalid_request_error"
        assert error["code"] == "run_id_reused"
        assert error["param"] == "metadata.lgos_run_id"
        assert "previous_response_id" in error["message"]
        # Nothing was taken: no lease held, no checkpoint written or deleted.
        assert state.coordinator.held == frozenset()
        assert await checkpoints(state) == kept
    with pytest.raises(openai.UnprocessableEntityError) as raised:
        await client.responses.create(
            model="approval", input="x", metadata={"lgos_run_id": run_id}
        )
    assert raised.value.code == "run_id_reused"
    assert (state.counter.prepare, state.counter.review) == (1, 1)
    # The owner's pause is intact: its own calls still resume it.
    done = await client.responses.create(
        model="approval",
        previous_response_id=first.id,
        input=answers(calls_of(first), "approve"),
        metadata={"lgos_run_id": run_id},
    )
    assert done.output_text == "Decision: approve"
    assert await state.threads() == set()


async def test_a_pause_kept_without_a_fingerprint_reemits_as_before(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    # Pauses stored before LGOS kept request fingerprints have none: any
    # first request naming their UUID gets the batch, as it always did.
    state, client = env
    run_id = str(uuid.uuid4())
    first = await client.responses.create(
        model="approval", input="Refund order 10", metadata={"lgos_run_id": run_id}
    )
    assert forget_fingerprints(state.saver) > 0
    other = await client.responses.create(
        model="approval", input="Something else", metadata={"lgos_run_id": run_id}
    )
    [call] = calls_of(other)
    assert call.arguments == calls_of(first)[0].arguments
    assert (state.counter.prepare, state.counter.review) == (1, 1)
    done = await client.responses.create(
        model="approval", previous_response_id=other.id, input=answers([call], "ok")
    )
    assert done.output_text == "Decision: ok"


async def test_other_scope_cannot_address_the_run(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    paused = await client.responses.create(model="approval", input="x")
    with pytest.raises(openai.ConflictError):
        await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers(calls_of(paused), "approve"),
            extra_headers={"x-tenant": "t2"},
        )
    assert len(await state.threads()) == 1


async def _stream_watching_terminal(
    state: Env, body: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[tuple[frozenset[str], set[str]]]]:
    """POST a streamed request straight to the ASGI app.

    Returns the events, and the leases held and checkpoint threads kept at
    the moment each terminal event was handed to the server to send.
    """
    at_terminal: list[tuple[frozenset[str], set[str]]] = []

    async def on_body(chunk: bytes) -> None:
        if re.search(rb"^event: response\.(completed|incomplete|failed)$", chunk, re.M):
            at_terminal.append((state.coordinator.held, await state.threads()))

    chunks = await call_asgi(state.app, "/v1/responses", body, on_body)
    return parse_sse(b"".join(chunks).decode()), at_terminal


async def test_terminal_event_follows_the_release(env: tuple[Env, AsyncOpenAI]) -> None:
    """A client acting on a terminal event at once finds the run released.

    Pausing keeps the checkpoint and frees the lease; finishing also deletes
    the checkpoint, both before the terminal event is sent, so a resume on
    another server the instant the pause arrives is not refused ``run_busy``.
    """
    state, _ = env
    events, at_terminal = await _stream_watching_terminal(
        state, {"model": "approval", "input": "x", "stream": True}
    )
    assert events[-1]["type"] == "response.completed"
    [(held, threads)] = at_terminal
    assert held == frozenset()
    assert len(threads) == 1  # the paused run's checkpoint
    paused = events[-1]["response"]
    call = paused["output"][-1]
    events, at_terminal = await _stream_watching_terminal(
        state,
        {
            "model": "approval",
            "previous_response_id": paused["id"],
            "input": [
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": "approve",
                }
            ],
            "stream": True,
        },
    )
    assert events[-1]["type"] == "response.completed"
    assert events[-1]["response"]["output"][-1]["content"][0]["text"] == (
        "Decision: approve"
    )
    assert at_terminal == [(frozenset(), set())]


async def test_busy_lease_is_409(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    paused = await client.responses.create(model="approval", input="x")
    run_id = uuid.UUID(paused.id.split("_")[2])
    async with state.coordinator.lease(checkpoint_key("t1", "approval", run_id)):
        for stream in (False, True):
            with pytest.raises(openai.ConflictError) as busy:
                await client.responses.create(
                    model="approval",
                    previous_response_id=paused.id,
                    input=answers(calls_of(paused), "approve"),
                    stream=stream,
                )
            assert busy.value.code == "run_busy"


async def test_chat_and_plain_models(env: tuple[Env, AsyncOpenAI]) -> None:
    _, client = env
    with pytest.raises(openai.BadRequestError) as chat:
        await client.chat.completions.create(
            model="approval", messages=[{"role": "user", "content": "x"}]
        )
    assert chat.value.param == "model"


async def test_invalid_resume_leaves_the_run_paused(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    state, client = env
    paused = await client.responses.create(model="approval", input="x")
    # An answer that is not a string reaches no graph: the request is invalid.
    with pytest.raises(openai.BadRequestError):
        await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=[
                {
                    "type": "function_call_output",
                    "call_id": calls_of(paused)[0].call_id,
                    "output": [{"type": "input_text", "text": "x"}],
                }
            ],
        )
    assert len(await state.threads()) == 1


@pytest.mark.parametrize("stream", [False, True])
async def test_a_failed_resume_keeps_its_pause(
    env: tuple[Env, AsyncOpenAI], stream: bool
) -> None:
    # Like a crash: the resume exposed neither a batch nor a result, so the
    # pause it answered stays resumable with the same Response and call IDs.
    state, client = env
    paused = await client.responses.create(model="approval", input="x")
    request = {
        "model": "approval",
        "previous_response_id": paused.id,
        "input": answers(calls_of(paused), "explode"),
    }
    for _attempt in range(2):  # the identical retry fails the same way, no 409
        if stream:
            events = [
                e async for e in await client.responses.create(**request, stream=True)
            ]
            assert events[-1].type == "response.failed"
        else:
            with pytest.raises(openai.InternalServerError):
                await client.responses.create(**request)
        assert len(await state.threads()) == 1
        assert state.coordinator.held == frozenset()
    done = await client.responses.create(
        **{**request, "input": answers(calls_of(paused), "ok")}
    )
    assert done.output_text == "Decision: ok"
    assert await state.threads() == set()  # a finished run leaves nothing
    with pytest.raises(openai.ConflictError) as replayed:
        await client.responses.create(**request)
    assert replayed.value.code == "interrupt_state_conflict"


async def test_a_failed_first_request_leaves_nothing(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    # Work that never exposed a batch is cleaned up.
    state, client = env
    with pytest.raises(openai.InternalServerError):
        await client.responses.create(model="approval", input="explode")
    assert await state.threads() == set()


async def test_sweep_deletes_only_expired_unleased_lgos_runs(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    state, client = env
    kept = await client.responses.create(model="approval", input="keep")
    await client.responses.create(model="approval", input="expire")
    # A thread LGOS did not create stays.
    foreign = {"configurable": {"thread_id": "foreign", "checkpoint_ns": ""}}
    from langgraph.checkpoint.base import empty_checkpoint

    await state.saver.aput(foreign, empty_checkpoint(), {}, {})
    assert len(await state.threads()) == 3
    assert (
        await delete_expired_interrupt_runs(
            state.saver, state.coordinator, older_than=timedelta(hours=1)
        )
        == 0
    )
    kept_key = checkpoint_key("t1", "approval", uuid.UUID(kept.id.split("_")[2]))
    async with state.coordinator.lease(kept_key):
        deleted = await delete_expired_interrupt_runs(
            state.saver, state.coordinator, older_than=timedelta(0)
        )
    assert deleted == 1
    assert await state.threads() == {kept_key, "foreign"}


@pytest.mark.parametrize("stream", [False, True])
async def test_a_lost_lease_stops_the_run_and_writes_nothing(stream: bool) -> None:
    state = Env(LosableCoordinator())
    async with clients(state) as (http, client):
        paused = await client.responses.create(model="approval", input="x")
        before = [c.config async for c in state.saver.alist(None)]
        body = {
            "model": "approval",
            "previous_response_id": paused.id,
            "input": answers(calls_of(paused), "slow"),
            "stream": stream,
        }
        request = asyncio.create_task(http.post("/v1/responses", json=body))
        await asyncio.wait_for(state.counter.slow.wait(), 10)  # in the last node
        state.coordinator.leases[-1].lost.set()  # its session ended
        reply = await asyncio.wait_for(request, 10)
        if stream:
            failed = parse_sse(reply.text)[-1]
            assert failed["type"] == "response.failed"
            assert "lost its lease" in failed["response"]["error"]["message"]
        else:
            assert reply.status_code == 503
            error = reply.json()["error"]
            assert (error["code"], error["type"]) == ("run_lease_lost", "server_error")
        # Nothing was written under the run: no exit checkpoint, no deletion.
        assert [c.config async for c in state.saver.alist(None)] == before
        assert state.coordinator.held == frozenset()
        done = await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers(calls_of(paused), "ok"),
        )
        assert done.output_text == "Decision: ok"


async def test_a_finished_run_left_behind_is_never_resumed_again(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    # A resume cut off after its graph finished, before LGOS deleted the
    # thread, leaves a finished checkpoint behind the pause. A retry must not
    # walk back to the pause and run the work again: it gets the safe 409.
    state, client = env
    paused = await client.responses.create(model="approval", input="x")
    [call] = calls_of(paused)
    run_id = uuid.UUID(paused.id.split("_")[2])
    config = {"configurable": {"thread_id": checkpoint_key("t1", "approval", run_id)}}
    graph = approval_graph(state.saver, Counter())
    snapshot = await graph.aget_state(config)
    [pending] = snapshot.interrupts
    await graph.ainvoke(
        Command(resume={pending.id: "done"}), config, durability="exit"
    )  # the run finished; its thread is still there
    assert len(await state.threads()) == 1
    with pytest.raises(openai.ConflictError) as replayed:
        await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers([call], "again"),
        )
    assert replayed.value.code == "interrupt_state_conflict"
    assert await state.threads() == set()  # and the leftover is cleaned up


class ConfirmingCoordinator(LosableCoordinator):
    """Leases whose holder can be told, at the next write, that they are gone."""

    def __init__(self) -> None:
        super().__init__()
        self.gone = False

    @asynccontextmanager
    async def lease(self, key: str) -> AsyncIterator[Lease]:
        async with super().lease(key) as held:

            async def confirm() -> bool:
                if self.gone:
                    held.lost.set()
                return not self.gone

            held.confirm = confirm
            yield held


async def test_a_lease_lost_between_checks_is_caught_before_the_write() -> None:
    state = Env(ConfirmingCoordinator())
    async with clients(state) as (_, client):
        paused = await client.responses.create(model="approval", input="x")
        before = [c.config async for c in state.saver.alist(None)]
        state.coordinator.gone = True  # lost; no periodic check has seen it yet
        with pytest.raises(openai.APIStatusError) as lost:
            await client.responses.create(
                model="approval",
                previous_response_id=paused.id,
                input=answers(calls_of(paused), "ok"),
            )
        assert (lost.value.status_code, lost.value.code) == (503, "run_lease_lost")
        assert [c.config async for c in state.saver.alist(None)] == before
        state.coordinator.gone = False
        done = await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers(calls_of(paused), "ok"),
        )
        assert done.output_text == "Decision: ok"


async def test_a_client_gone_before_the_stream_starts_frees_the_run(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    """The run is released even when its event stream never started.

    The client leaves while the response head is still being sent, so the
    stream's body is never iterated; the lease must not wait for garbage
    collection (a retry would get ``run_busy`` until then).
    """
    state, client = env
    paused = await client.responses.create(model="approval", input="x")
    body = {
        "model": "approval",
        "previous_response_id": paused.id,
        "stream": True,
        "input": answers(calls_of(paused), "approve"),
    }

    async def slow_send(message: dict[str, Any]) -> None:
        await asyncio.sleep(0.05)  # the head is slow to go out: the client leaves

    gc.disable()  # no finalizer may do the release for the server
    try:
        await state.app(post_scope("/v1/responses"), leaving_receive(body), slow_send)
        assert state.coordinator.held == frozenset()
    finally:
        gc.enable()
    resumed = await client.responses.create(**{**body, "stream": False})
    assert resumed.status == "completed"


async def test_a_client_gone_mid_stream_stops_the_graph_before_the_release() -> None:
    """The graph is cancelled while the run still holds its lease.

    Released first, the run's thread could be deleted (or its lease taken by
    a retry) while the graph was still running and writing.
    """
    coordinator = InMemoryRunCoordinator()
    started = asyncio.Event()
    held_when_cancelled: list[bool] = []

    async def wait(state: dict[str, Any]) -> dict[str, Any]:
        writer = get_stream_writer()
        writer(status_event("waiting"))
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            held_when_cancelled.append(bool(coordinator.held))
            raise
        return {}

    builder = StateGraph(MessagesState)
    builder.add_node("wait", wait)
    builder.add_edge(START, "wait")
    registry = GraphRegistry(
        graphs={
            "waits": GraphConfig(
                graph=builder.compile(checkpointer=InMemorySaver()),
                description="Waits.",
                features=frozenset({GraphFeature.INTERRUPTS}),
            )
        },
        run_coordinator=coordinator,
    )
    app = FastAPI()
    LanggraphOpenaiServe(registry, app).bind_openai_api()
    body = {"model": "waits", "input": "x", "stream": True}
    receive = leaving_receive(body, leave=started.wait)

    async def send(message: dict[str, Any]) -> None:
        pass

    await app(post_scope("/v1/responses"), receive, send)
    await eventually(lambda: held_when_cancelled, message="the graph to be cancelled")
    assert held_when_cancelled == [True]
    assert coordinator.held == frozenset()
