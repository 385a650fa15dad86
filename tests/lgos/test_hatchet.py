"""The Hatchet adapter at the SDK boundary.

Fast tests without an engine: the task is executed with the SDK's own
``aio_mock_run`` test hook, and the backend talks to a small in-process
stand-in for Hatchet's trigger and runs clients that behaves as the real
engine does. ``tests/integration/test_hatchet_engine.py`` runs the same
behaviour against a real Hatchet engine.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import json
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from hatchet_sdk import ClientConfig, Hatchet
from hatchet_sdk.clients.rest.models.v1_task_status import V1TaskStatus
from hatchet_sdk.exceptions import IdempotencyCollisionError
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
    execute_background_job,
    new_job,
)
from langgraph_openai_serve.integrations.hatchet import (
    BackgroundTaskInput,
    HatchetBackgroundBackend,
    WorkerLostError,
    create_hatchet_task,
)
from langgraph_openai_serve.testing import OfflineChatModel
from tests.lgos.graphs import (
    METADATA_LOGGER,
    echo_responder,
    metadata_graph,
    model_graph,
)
from tests.waiting import eventually

pytestmark = pytest.mark.anyio


def offline_hatchet() -> Hatchet:
    """A Hatchet client configured for a tenant; it never connects here."""

    def b64(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    tenant = "707d0855-80ab-4e1f-a156-f1c4546cbf52"
    claims = {
        "sub": tenant,
        "server_url": "http://127.0.0.1:9",
        "grpc_broadcast_address": "127.0.0.1:9",
    }
    token = f"{b64({'alg': 'HS256'})}.{b64(claims)}.sig"
    return Hatchet(config=ClientConfig(token=token, tenant_id=tenant))


def registry(seen: list[dict[str, Any]] | None = None) -> GraphRegistry:
    background = frozenset({GraphFeature.BACKGROUND})
    return GraphRegistry(
        graphs={
            "echo": GraphConfig(
                graph=model_graph(OfflineChatModel(responder=echo_responder)),
                description="Echo.",
                features=background,
            ),
            "meta": GraphConfig(
                graph=metadata_graph([] if seen is None else seen),
                description="Metadata.",
                features=background,
            ),
        }
    )


def test_task_declaration() -> None:
    task = create_hatchet_task(offline_hatchet())
    proto = task.to_proto()
    [step] = proto.tasks
    assert task.name == "lgos-background-response"
    assert step.retries == 0
    assert (step.timeout, step.schedule_timeout) == ("1h", "30m")
    assert proto.idempotency.expression == "input.idempotency_key"
    assert proto.idempotency.ttl_ms == 24 * 3600 * 1000


async def test_task_runs_the_job_with_the_lifespan_registry() -> None:
    task = create_hatchet_task(offline_hatchet())
    job = new_job(
        {"model": "echo", "input": "from hatchet", "background": True},
        owner_scope="default",
        run_id=uuid.uuid4(),
        idempotency_key="k",
    )
    task_input = BackgroundTaskInput(
        job=job.to_json(), idempotency_key=job.idempotency_key
    )
    response = await task.aio_mock_run(task_input, lifespan=registry())
    assert response["status"] == "completed"
    assert response["output"][-1]["content"][0]["text"] == "Echo: from hatchet"
    with pytest.raises(TypeError, match="lifespan must yield"):
        await task.aio_mock_run(task_input, lifespan=None)
    # A second attempt means Hatchet took the task from a worker that died.
    with pytest.raises(WorkerLostError, match="stopped before it finished"):
        await task.aio_mock_run(task_input, lifespan=registry(), retry_count=1)


async def test_the_worker_task_binds_the_submitting_request_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[dict[str, Any]] = []
    task = create_hatchet_task(offline_hatchet())
    job = new_job(
        {"model": "meta", "input": "x", "background": True},
        owner_scope="default",
        run_id=uuid.uuid4(),
        idempotency_key="k",
        request_id="req_" + "c" * 32,
    )
    # The input as the engine stores and hands it to the worker: JSON.
    stored = BackgroundTaskInput(job=job.to_json(), idempotency_key="k")
    task_input = BackgroundTaskInput.model_validate_json(stored.model_dump_json())
    caplog.handler.addFilter(RequestContextFilter())
    caplog.set_level(logging.INFO, logger=METADATA_LOGGER)
    # A worker has no HTTP request context: run the task in an empty one.
    run = task.aio_mock_run(task_input, lifespan=registry(seen))
    response = await asyncio.create_task(run, context=contextvars.Context())
    assert response["status"] == "completed"
    assert seen[0]["lgos.request_id"] == "req_" + "c" * 32
    [record] = [r for r in caplog.records if r.name == METADATA_LOGGER]
    assert record.request_id == "req_" + "c" * 32  # type: ignore[attr-defined]
    assert record.response_id == response["id"]  # type: ignore[attr-defined]

    # An input stored by an older version (no request_id) still runs.
    older = {k: v for k, v in job.to_json().items() if k != "request_id"}
    legacy = BackgroundTaskInput(job=older, idempotency_key="k")
    run = task.aio_mock_run(legacy, lifespan=registry(seen))
    response = await asyncio.create_task(run, context=contextvars.Context())
    assert response["status"] == "completed"
    assert "lgos.request_id" not in seen[1]


class FakeHatchet:
    """Trigger + runs clients that run the real task through aio_mock_run."""

    def __init__(self, task: Any, graphs: GraphRegistry) -> None:
        self.task = task
        self.graphs = graphs
        self.records: dict[str, SimpleNamespace] = {}
        self.keys: dict[str, str] = {}
        self.jobs: dict[str, asyncio.Task[None]] = {}
        self.release = asyncio.Event()
        self.cancelled: list[str] = []

    async def aio_run(
        self, task_input: BackgroundTaskInput, wait_for_result: bool
    ) -> Any:
        assert wait_for_result is False
        if (existing := self.keys.get(task_input.idempotency_key)) is not None:
            # What the engine does (seen against a real one): refuse the trigger.
            raise IdempotencyCollisionError(existing_run_external_id=existing)
        run_id = str(uuid.uuid4())
        self.keys[task_input.idempotency_key] = run_id
        # Hatchet's REST API wraps the task input with the trigger's details.
        record = SimpleNamespace(
            status=V1TaskStatus.QUEUED,
            input={
                "input": task_input.model_dump(),
                "overrides": None,
                "parents": {},
                "triggered_by": "manual",
            },
            output={},
        )
        self.records[run_id] = record
        # As on a worker: the run never sees the submitting request's context,
        # and its input arrives as JSON.
        stored = BackgroundTaskInput.model_validate_json(task_input.model_dump_json())
        self.jobs[run_id] = asyncio.create_task(
            self._work(run_id, stored), context=contextvars.Context()
        )
        return SimpleNamespace(workflow_run_id=run_id)

    async def _work(self, run_id: str, task_input: BackgroundTaskInput) -> None:
        record = self.records[run_id]
        await self.release.wait()
        record.status = V1TaskStatus.RUNNING
        # The SDK's mock context has its own run ID; the engine's is ours.
        job = BackgroundJob.from_json(task_input.job)
        output = await execute_background_job(job, run_id, self.graphs)
        record.output = {self.task.name: output}
        record.status = V1TaskStatus.COMPLETED

    def get(self, run_id: str) -> Any:
        # Blocking, as the SDK's ``runs.get``: the backend calls it on a thread.
        if run_id not in self.records:
            raise LookupError(run_id)
        return SimpleNamespace(run=self.records[run_id])

    async def aio_cancel(self, run_id: str) -> None:
        self.cancelled.append(run_id)
        self.jobs[run_id].cancel()
        self.records[run_id].status = V1TaskStatus.CANCELLED


@pytest.fixture
def seen() -> list[dict[str, Any]]:
    """The config metadata of each ``meta`` run."""
    return []


@pytest.fixture
async def hatchet_app(
    seen: list[dict[str, Any]],
) -> AsyncIterator[tuple[FakeHatchet, AsyncOpenAI]]:
    graphs = registry(seen)
    task = create_hatchet_task(offline_hatchet())
    fake = FakeHatchet(task, graphs)
    backend = HatchetBackgroundBackend(fake, fake)
    app = FastAPI()
    LanggraphOpenaiServe(graphs, app, background=backend).bind_openai_api()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http:
        yield (
            fake,
            AsyncOpenAI(
                base_url="http://lgos/v1", api_key="x", http_client=http, max_retries=0
            ),
        )
    for job in fake.jobs.values():
        job.cancel()


async def test_submit_poll_cancel_through_the_backend(hatchet_app) -> None:
    fake, client = hatchet_app
    headers = {"Idempotency-Key": "same"}
    queued = await client.responses.create(
        model="echo", input="hi", background=True, extra_headers=headers
    )
    assert queued.status == "queued"
    retry = await client.responses.create(
        model="echo", input="hi", background=True, extra_headers=headers
    )
    assert retry.id == queued.id and len(fake.records) == 1
    fake.release.set()

    async def completed() -> Any:
        done = await client.responses.retrieve(queued.id)
        return done if done.status == "completed" else None

    done = await eventually(completed, message="the run to complete")
    assert (done.status, done.output_text, done.id) == (
        "completed",
        "Echo: hi",
        queued.id,
    )
    await client.responses.cancel(queued.id)
    assert fake.cancelled == []  # a finished run keeps its outcome

    fake.release.clear()
    other = await client.responses.create(
        model="echo", input="stop me", background=True
    )
    cancelled = await client.responses.cancel(other.id)
    assert cancelled.status == "cancelled"
    assert len(fake.cancelled) == 1


async def test_the_run_records_the_submitting_request_id(
    hatchet_app, seen: list[dict[str, Any]]
) -> None:
    fake, client = hatchet_app
    raw = await client.responses.with_raw_response.create(
        model="meta", input="x", background=True
    )
    request_id = raw.headers["x-request-id"]
    queued = raw.parse()
    [record] = fake.records.values()
    assert record.input["input"]["job"]["request_id"] == request_id
    fake.release.set()

    async def completed() -> bool:
        return (await client.responses.retrieve(queued.id)).status == "completed"

    await eventually(completed, message="the run to complete")
    assert [m["lgos.request_id"] for m in seen] == [request_id]


class LaggingRestHatchet(FakeHatchet):
    """The engine's run-event stream reports results; its REST API lags behind.

    As a real engine does for about a second after a short run ends (longer
    on a busy machine): ``get`` does not show the run until ``visible``
    is set, while the trigger's ref delivers the result (``aio_result``).
    """

    def __init__(self, task: Any, graphs: GraphRegistry) -> None:
        super().__init__(task, graphs)
        self.visible = False
        self.rest_reads = 0

    async def aio_run(
        self, task_input: BackgroundTaskInput, wait_for_result: bool
    ) -> Any:
        ref = await super().aio_run(task_input, wait_for_result)
        run_id = ref.workflow_run_id

        async def aio_result() -> dict[str, Any]:
            await self.jobs[run_id]
            return self.records[run_id].output[self.task.name]

        return SimpleNamespace(workflow_run_id=run_id, aio_result=aio_result)

    def get(self, run_id: str) -> Any:
        self.rest_reads += 1
        if not self.visible:
            raise LookupError(run_id)
        return super().get(run_id)


async def test_a_poll_sees_the_result_before_the_rest_api_does() -> None:
    graphs = registry()
    task = create_hatchet_task(offline_hatchet())
    fake = LaggingRestHatchet(task, graphs)
    backend = HatchetBackgroundBackend(fake, fake)
    app = FastAPI()
    LanggraphOpenaiServe(graphs, app, background=backend).bind_openai_api()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport) as http:
        client = AsyncOpenAI(
            base_url="http://lgos/v1",
            api_key="x",
            http_client=http,  # type: ignore[arg-type]  # httpx's, as the SDK takes
            max_retries=0,
        )
        queued = await client.responses.create(
            model="echo", input="hi", background=True
        )
        # Not visible through REST and not finished: still queued.
        assert (await client.responses.retrieve(queued.id)).status == "queued"
        fake.release.set()

        async def completed() -> Any:
            done = await client.responses.retrieve(queued.id)
            return done if done.status == "completed" else None

        done = await eventually(completed, message="the run to complete")
        assert (done.output_text, done.id) == ("Echo: hi", queued.id)
        # A read an earlier poll started may still be on its thread.
        await eventually(lambda: not backend._reads, message="reads in flight")
        reads = fake.rest_reads
        # Later polls and a cancel answer from the result, not the REST API.
        await client.responses.retrieve(queued.id)
        await client.responses.cancel(queued.id)
        assert fake.rest_reads == reads and fake.cancelled == []
        # A failed or cancelled run is left to the REST API, as before.
        fake.release.clear()
        other = await client.responses.create(
            model="echo", input="stop me", background=True
        )
        fake.visible = True
        cancelled = await client.responses.cancel(other.id)
        assert cancelled.status == "cancelled"
    for job in fake.jobs.values():
        job.cancel()


class SlowRestHatchet(LaggingRestHatchet):
    """Its REST reads of a run it does not show block until ``answer`` is set.

    As the SDK's do: ``runs.get`` retries a 404 for a second or two. Its
    triggers run on the event loop's default executor, as the SDK's do.
    """

    def __init__(self, task: Any, graphs: GraphRegistry) -> None:
        super().__init__(task, graphs)
        self.answer = threading.Event()
        self.waiting = 0

    async def aio_run(
        self, task_input: BackgroundTaskInput, wait_for_result: bool
    ) -> Any:
        await asyncio.to_thread(lambda: None)
        return await super().aio_run(task_input, wait_for_result)

    def get(self, run_id: str) -> Any:
        if not self.visible:
            self.waiting += 1
            self.answer.wait(10)
        return super().get(run_id)


async def test_slow_rest_reads_hold_up_neither_submits_nor_each_other() -> None:
    # A small default executor, as on a two-CPU machine (6 threads).
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(2))
    graphs = registry()
    fake = SlowRestHatchet(create_hatchet_task(offline_hatchet()), graphs)
    backend = HatchetBackgroundBackend(fake, fake)

    def job() -> BackgroundJob:
        return new_job(
            {"model": "echo", "input": "hi", "background": True},
            owner_scope="default",
            run_id=uuid.uuid4(),
            idempotency_key=None,
        )

    try:
        runs = [await backend.submit(job()) for _ in range(3)]
        # Many polls of runs the REST API does not show yet: each run's
        # polls share one read, and answer queued once it is delivered.
        polls = [
            asyncio.ensure_future(backend.get(run.id)) for run in runs for _ in range(5)
        ]
        await asyncio.sleep(0.1)
        assert fake.waiting == len(runs)
        # Those reads still blocking, another submit goes through at once.
        start = time.monotonic()
        await asyncio.wait_for(backend.submit(job()), 5)
        assert time.monotonic() - start < 1
        fake.answer.set()
        assert {(await poll).status for poll in polls} == {"queued"}  # type: ignore[union-attr]
    finally:
        fake.answer.set()
        for task in fake.jobs.values():
            task.cancel()


async def test_unknown_runs_are_none() -> None:
    task = create_hatchet_task(offline_hatchet())
    fake = FakeHatchet(task, registry())
    backend = HatchetBackgroundBackend(fake, fake)
    assert await backend.get(str(uuid.uuid4())) is None
    assert await backend.get("not-a-uuid") is None


def test_lgos_serve_selects_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from langgraph_openai_serve.background import InMemoryBackgroundBackend
    from langgraph_openai_serve.server import ServerSettings
    from langgraph_openai_serve.server.app import background_backend

    graphs = registry()
    memory = background_backend(ServerSettings(), graphs)
    assert isinstance(memory, InMemoryBackgroundBackend)
    client = offline_hatchet()
    monkeypatch.setenv("HATCHET_CLIENT_TOKEN", client.config.token)
    monkeypatch.setenv("HATCHET_CLIENT_TENANT_ID", client.config.tenant_id)
    hatchet = background_backend(ServerSettings(background_engine="hatchet"), graphs)
    assert isinstance(hatchet, HatchetBackgroundBackend)
