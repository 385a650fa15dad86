"""Background Responses on the in-memory engine."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import openai
import pytest
from dirty_equals import IsNow, IsStr
from fastapi import FastAPI
from inline_snapshot import Is, snapshot
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from openai import AsyncOpenAI

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    LanggraphOpenaiServe,
    RequestContextFilter,
)
from langgraph_openai_serve.background import (
    BackgroundJob,
    InMemoryBackgroundBackend,
    execute_background_job,
    new_job,
)
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from tests.contract.openapi import validate
from tests.lgos.graphs import METADATA_LOGGER, metadata_graph
from tests.lgos.interrupt_graphs import Counter, approval_graph
from tests.matchers import an_id
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

BACKGROUND = frozenset({GraphFeature.BACKGROUND})


class Gate:
    """Lets a test hold the slow graph until it decides to release it."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.runs = 0
        self.cancelled = 0


def slow_graph(gate: Gate) -> Any:
    async def work(state: MessagesState) -> dict[str, Any]:
        gate.runs += 1
        gate.entered.set()
        try:
            await gate.release.wait()
        except asyncio.CancelledError:
            gate.cancelled += 1
            raise
        if state["messages"][-1].text == "boom":
            raise RuntimeError("secret")
        return {"messages": [AIMessage(f"Done: {state['messages'][-1].text}")]}

    builder = StateGraph(MessagesState)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder.compile()


class Env:
    def __init__(self) -> None:
        self.gate = Gate()
        self.counter = Counter()
        self.seen: list[dict[str, Any]] = []
        saver = InMemorySaver()
        self.registry = GraphRegistry(
            graphs={
                "slow": GraphConfig(
                    graph=slow_graph(self.gate),
                    description="Slow.",
                    features=BACKGROUND,
                ),
                "meta": GraphConfig(
                    graph=metadata_graph(self.seen),
                    description="Metadata.",
                    features=BACKGROUND,
                ),
                "foreground-only": GraphConfig(
                    graph=slow_graph(Gate()), description="FG."
                ),
                "approval": GraphConfig(
                    graph=approval_graph(saver, self.counter),
                    description="Approval.",
                    features=BACKGROUND | {GraphFeature.INTERRUPTS},
                ),
            },
            run_coordinator=InMemoryRunCoordinator(),
        )
        self.backend = InMemoryBackgroundBackend(self.registry)
        self.app = FastAPI()
        LanggraphOpenaiServe(
            self.registry,
            self.app,
            background=self.backend,
            checkpoint_scope=lambda r: r.headers.get("x-tenant", "t1"),
        ).bind_openai_api()


@pytest.fixture
async def env() -> AsyncIterator[tuple[Env, AsyncOpenAI]]:
    state = Env()
    async with (
        state.backend.lifespan(),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=state.app)) as http,
    ):
        yield (
            state,
            AsyncOpenAI(
                base_url="http://lgos/v1", api_key="x", http_client=http, max_retries=0
            ),
        )


async def poll(client: AsyncOpenAI, response_id: str, **kwargs: Any) -> Any:
    async def finished() -> Any:
        response = await client.responses.retrieve(response_id, **kwargs)
        return response if response.status not in {"queued", "in_progress"} else None

    return await eventually(finished, message="the background response to finish")


async def test_submit_poll_complete(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    submitted = await client.responses.with_raw_response.create(
        model="slow", input="hello", background=True
    )
    queued = submitted.parse()
    assert queued.id == IsStr(regex=r"resp_lg_[0-9a-f]{32}_[0-9a-f]{32}")
    assert submitted.http_response.json() == snapshot(
        {
            "id": Is(queued.id),
            "object": "response",
            "created_at": IsNow(unix_number=True),
            "status": "queued",
            "access_programs": None,
            "background": True,
            "completed_at": None,
            "conversation": None,
            "error": None,
            "image": None,
            "incomplete_details": None,
            "input_transformations": None,
            "instructions": None,
            "max_output_tokens": None,
            "max_tool_calls": None,
            "metadata": {},
            "model": "slow",
            "moderation": None,
            "output": [],
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "prompt": None,
            "prompt_cache_diagnostics": None,
            "prompt_cache_key": None,
            "prompt_cache_options": None,
            "prompt_cache_retention": None,
            "reasoning": None,
            "safety_identifier": None,
            "service_tier": None,
            "store": False,
            "temperature": None,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tool_usage": None,
            "tools": [],
            "top_logprobs": None,
            "top_p": None,
            "truncation": "disabled",
            "usage": None,
            "user": None,
        }
    )
    await state.gate.entered.wait()
    running = await client._client.get(f"http://lgos/v1/responses/{queued.id}")
    assert running.json()["status"] == "in_progress"
    validate("Response", running.json())
    state.gate.release.set()
    done = await poll(client, queued.id)
    assert done.output_text == "Done: hello"
    raw = await client._client.get(f"http://lgos/v1/responses/{queued.id}")
    validate("Response", raw.json())
    assert raw.json() == snapshot(
        {
            "id": Is(queued.id),
            "object": "response",
            "created_at": IsNow(unix_number=True),
            "status": "completed",
            "access_programs": None,
            "background": True,
            "error": None,
            "conversation": None,
            "incomplete_details": None,
            "image": None,
            "instructions": None,
            "input_transformations": None,
            "metadata": {},
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": "slow",
            "output": [
                {
                    "id": an_id("msg"),
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {
                            "type": "output_text",
                            "text": "Done: hello",
                            "annotations": [],
                            "logprobs": [],
                        }
                    ],
                    "phase": "final_answer",
                }
            ],
            "moderation": None,
            "parallel_tool_calls": True,
            "store": False,
            "previous_response_id": None,
            "prompt": None,
            "prompt_cache_diagnostics": None,
            "prompt_cache_key": None,
            "prompt_cache_options": None,
            "prompt_cache_retention": None,
            "reasoning": None,
            "safety_identifier": None,
            "service_tier": None,
            "temperature": None,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [],
            "tool_usage": None,
            "top_p": None,
            "top_logprobs": None,
            "truncation": "disabled",
            "completed_at": IsNow(unix_number=True),
            "usage": None,
            "user": None,
        }
    )


async def test_store_true_is_accepted(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    state.gate.release.set()
    queued = await client.responses.create(
        model="slow", input="x", background=True, store=True
    )
    assert (await poll(client, queued.id)).store is True


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"model": "slow", "stream": True}, "stream"),
        ({"model": "foreground-only"}, "background"),
        ({"model": "slow", "conversation": "c1"}, "conversation"),
    ],
)
async def test_rejected_background_requests(env, kwargs, param) -> None:
    _, client = env
    with pytest.raises(openai.BadRequestError) as raised:
        await client.responses.create(input="x", background=True, **kwargs)
    assert raised.value.param == param


async def test_idempotency_key(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    headers = {"Idempotency-Key": "order-42"}
    first = await client.responses.create(
        model="slow", input="a", background=True, extra_headers=headers
    )
    again = await client.responses.create(
        model="slow", input="a", background=True, extra_headers=headers
    )
    assert again.id == first.id
    with pytest.raises(openai.UnprocessableEntityError) as reused:
        await client.responses.create(
            model="slow", input="b", background=True, extra_headers=headers
        )
    assert reused.value.code == "idempotency_key_reused"
    # Another scope's identical key is another key.
    other = await client.responses.create(
        model="slow",
        input="a",
        background=True,
        extra_headers={**headers, "x-tenant": "t2"},
    )
    assert other.id != first.id
    with pytest.raises(openai.BadRequestError):
        await client.responses.create(
            model="slow",
            input="a",
            background=True,
            extra_headers={"Idempotency-Key": "k" * 256},
        )
    state.gate.release.set()
    await poll(client, first.id)
    assert state.gate.runs == 2  # the retry started no second run


async def test_cancel_running_and_finished(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    queued = await client.responses.create(model="slow", input="x", background=True)
    await state.gate.entered.wait()
    cancelled = await client.responses.cancel(queued.id)
    assert cancelled.status == "cancelled"
    await eventually(lambda: state.gate.cancelled, message="the node's cancellation")
    assert state.gate.cancelled == 1
    assert (await client.responses.retrieve(queued.id)).status == "cancelled"

    state.gate.release.set()
    finished = await client.responses.create(model="slow", input="y", background=True)
    done = await poll(client, finished.id)
    after = await client.responses.cancel(finished.id)
    assert (done.status, after.status, after.output_text) == (
        "completed",
        "completed",
        "Done: y",
    )


async def test_cancel_while_queued(env: tuple[Env, AsyncOpenAI]) -> None:
    state, _ = env
    job = new_job(
        {"model": "slow", "input": "q", "background": True},
        owner_scope="t1",
        run_id=uuid.uuid4(),
        idempotency_key=None,
    )
    run = await state.backend.submit(job)
    await state.backend.cancel(run.id)  # before its task first runs
    # A fixed window on purpose: it proves the cancelled job never starts.
    await asyncio.sleep(0.05)
    assert run.status == "cancelled"
    assert state.gate.runs == 0


async def test_failures_and_lookups(env: tuple[Env, AsyncOpenAI]) -> None:
    state, client = env
    state.gate.release.set()
    failed = await poll(
        client,
        (await client.responses.create(model="slow", input="boom", background=True)).id,
    )
    assert failed.status == "failed"
    assert failed.error is not None and "secret" not in failed.error.message
    for bad in ("resp_123", "resp_lg_" + "0" * 32 + "_" + "1" * 32):
        with pytest.raises(openai.NotFoundError):
            await client.responses.retrieve(bad)
    foreground = await client.responses.create(model="slow", input="fg")
    with pytest.raises(openai.NotFoundError):
        await client.responses.retrieve(foreground.id)
    with pytest.raises(openai.NotFoundError):
        await client.responses.retrieve(failed.id, extra_headers={"x-tenant": "t2"})
    with pytest.raises(openai.NotFoundError):
        await client.responses.cancel(failed.id, extra_headers={"x-tenant": "t2"})


async def test_background_interrupts(env: tuple[Env, AsyncOpenAI]) -> None:
    _, client = env
    paused = await poll(
        client,
        (
            await client.responses.create(
                model="approval", input="refund?", background=True
            )
        ).id,
    )
    assert paused.status == "completed"
    calls = [i for i in paused.output if i.type == "function_call"]
    assert [c.name for c in calls] == ["lgos_interrupt"]
    assert json.loads(calls[0].arguments)["choices"] == ["approve", "reject"]
    answer = [
        {
            "type": "function_call_output",
            "call_id": calls[0].call_id,
            "output": "approve",
        }
    ]
    # The answer may itself run in the background...
    done = await poll(
        client,
        (
            await client.responses.create(
                model="approval",
                previous_response_id=paused.id,
                input=answer,
                background=True,
            )
        ).id,
    )
    assert done.output_text == "Decision: approve"
    # ...and a stale answer fails inside the worker, where the lease is held.
    stale = await poll(
        client,
        (
            await client.responses.create(
                model="approval",
                previous_response_id=paused.id,
                input=answer,
                background=True,
            )
        ).id,
    )
    assert stale.status == "failed"
    # A foreground pause can be answered in the background and vice versa.
    fg_paused = await client.responses.create(model="approval", input="again")
    fg_calls = [i for i in fg_paused.output if i.type == "function_call"]
    bg_done = await poll(
        client,
        (
            await client.responses.create(
                model="approval",
                previous_response_id=fg_paused.id,
                background=True,
                input=[
                    {
                        "type": "function_call_output",
                        "call_id": fg_calls[0].call_id,
                        "output": "reject",
                    }
                ],
            )
        ).id,
    )
    assert bg_done.output_text == "Decision: reject"


async def test_a_pending_run_id_in_the_background(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    # The same first request, sent again in the background, gets its pause back;
    # another request naming the UUID fails in the worker and takes nothing.
    state, client = env
    body: dict[str, Any] = {
        "model": "approval",
        "input": "refund?",
        "metadata": {"lgos_run_id": str(uuid.uuid4())},
    }
    paused = await client.responses.create(**body)
    [call] = [i for i in paused.output if i.type == "function_call"]
    again = await poll(
        client, (await client.responses.create(**body, background=True)).id
    )
    assert again.status == "completed"
    [repeated] = [i for i in again.output if i.type == "function_call"]
    assert repeated.arguments == call.arguments
    assert repeated.call_id != call.call_id
    other = await poll(
        client,
        (
            await client.responses.create(
                **{**body, "input": "something else"}, background=True
            )
        ).id,
    )
    assert other.status == "failed"
    assert other.error is not None
    assert "metadata.lgos_run_id names a paused run" in other.error.message
    assert state.counter.prepare == 1
    done = await client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=[
            {"type": "function_call_output", "call_id": call.call_id, "output": "ok"}
        ],
    )
    assert done.output_text == "Decision: ok"


@pytest.mark.parametrize("outcome", ["failed", "cancelled"])
async def test_a_background_resume_cut_off_keeps_its_pause(
    env: tuple[Env, AsyncOpenAI], outcome: str
) -> None:
    state, client = env
    paused = await client.responses.create(model="approval", input="refund?")
    [call] = [i for i in paused.output if i.type == "function_call"]

    def answer(output: str) -> list[dict[str, str]]:
        return [
            {"type": "function_call_output", "call_id": call.call_id, "output": output}
        ]

    queued = await client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=answer("explode" if outcome == "failed" else "slow"),
        background=True,
    )
    if outcome == "cancelled":
        await asyncio.wait_for(state.counter.slow.wait(), 10)  # in the last node
        await client.responses.cancel(queued.id)
    assert (await poll(client, queued.id)).status == outcome
    # The pause it answered is still there, with the same call IDs.
    done = await client.responses.create(
        model="approval", previous_response_id=paused.id, input=answer("ok")
    )
    assert done.output_text == "Decision: ok"


async def test_the_run_records_the_submitting_request_id(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    state, client = env
    raw = await client.responses.with_raw_response.create(
        model="meta", input="x", background=True
    )
    request_id = raw.headers["x-request-id"]
    queued = raw.parse()
    assert (await poll(client, queued.id)).status == "completed"
    [metadata] = state.seen
    assert metadata["lgos.request_id"] == request_id
    # The job itself carries it, so any engine can hand it to the run.
    run = await state.backend.get(str(uuid.UUID(queued.id.rsplit("_", 1)[1])))
    assert run is not None and run.job.request_id == request_id
    # An idempotent retry is answered with the first request's run.
    headers = {"Idempotency-Key": "once"}
    first = await client.responses.with_raw_response.create(
        model="meta", input="y", background=True, extra_headers=headers
    )
    retry = await client.responses.with_raw_response.create(
        model="meta", input="y", background=True, extra_headers=headers
    )
    assert retry.parse().id == first.parse().id
    assert retry.headers["x-request-id"] != first.headers["x-request-id"]
    await poll(client, first.parse().id)
    assert [m["lgos.request_id"] for m in state.seen[1:]] == [
        first.headers["x-request-id"]
    ]


async def test_a_job_run_outside_the_request_keeps_its_request_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # What a worker process does: run the job with no request context at all.
    seen: list[dict[str, Any]] = []
    registry = GraphRegistry(
        graphs={
            "meta": GraphConfig(
                graph=metadata_graph(seen), description="M.", features=BACKGROUND
            )
        }
    )
    job = new_job(
        {"model": "meta", "input": "x", "background": True},
        owner_scope="t1",
        run_id=uuid.uuid4(),
        idempotency_key=None,
        request_id="req_" + "a" * 32,
    )
    caplog.handler.addFilter(RequestContextFilter())
    caplog.set_level(logging.INFO, logger=METADATA_LOGGER)
    work = execute_background_job(job, str(uuid.uuid4()), registry)
    response = await asyncio.create_task(work, context=contextvars.Context())
    assert response["status"] == "completed"
    assert seen[0]["lgos.request_id"] == "req_" + "a" * 32
    [record] = [r for r in caplog.records if r.name == METADATA_LOGGER]
    assert record.request_id == "req_" + "a" * 32  # type: ignore[attr-defined]
    assert record.response_id == response["id"]  # type: ignore[attr-defined]


def test_job_json_round_trip_and_older_payloads() -> None:
    job = new_job(
        {"model": "meta", "input": "x", "background": True},
        owner_scope="t1",
        run_id=uuid.uuid4(),
        idempotency_key="k",
        request_id="req_" + "b" * 32,
    )
    payload = json.loads(json.dumps(job.to_json()))
    assert payload["request_id"] == "req_" + "b" * 32
    assert BackgroundJob.from_json(payload) == job
    # A payload written before the field existed is still read...
    older = {k: v for k, v in payload.items() if k != "request_id"}
    assert BackgroundJob.from_json(older).request_id is None
    # ...and one written by a later version with fields unknown here too.
    assert BackgroundJob.from_json({**payload, "later": 1}) == job
    with pytest.raises(TypeError):
        BackgroundJob.from_json({k: v for k, v in payload.items() if k != "run_id"})


async def test_a_route_served_without_the_middleware_still_names_the_request() -> None:
    from langgraph_openai_serve.api.responses.routes import router

    seen: list[dict[str, Any]] = []
    registry = GraphRegistry(
        graphs={
            "meta": GraphConfig(
                graph=metadata_graph(seen), description="M.", features=BACKGROUND
            )
        }
    )
    backend = InMemoryBackgroundBackend(registry)
    app = FastAPI()
    app.include_router(router)  # the bare route, without RequestContextMiddleware
    app.state.graph_registry = registry
    app.state.checkpoint_scope = lambda _request: "t1"
    app.state.background_backend = backend
    transport = httpx.ASGITransport(app=app)
    async with (
        backend.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://app") as http,
    ):
        reply = await http.post(
            "/responses", json={"model": "meta", "input": "x", "background": True}
        )
        request_id = reply.headers["x-request-id"]
        assert request_id.startswith("req_") and len(request_id) == 36
        await eventually(lambda: seen, message="the background run's graph")
    assert [m["lgos.request_id"] for m in seen] == [request_id]


async def test_a_background_resume_of_a_model_without_pauses_is_refused_at_once(
    env: tuple[Env, AsyncOpenAI],
) -> None:
    """As in the foreground: 400 ``previous_response_id``, not a failed run later."""
    _, client = env
    paused = await client.responses.create(model="approval", input="x")
    [call] = [item for item in paused.output if item.type == "function_call"]
    with pytest.raises(openai.BadRequestError) as raised:
        await client.responses.create(
            model="slow",
            background=True,
            previous_response_id=paused.id,
            input=[
                {
                    "type": "function_call_output",
                    "call_id": call.call_id,
                    "output": "ok",
                }
            ],
        )
    assert raised.value.param == "previous_response_id"
    assert "only resumes a paused interrupt run" in raised.value.message
