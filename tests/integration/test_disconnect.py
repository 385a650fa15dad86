"""A streaming client that disconnects cancels its graph run once, over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from langchain_core.messages import AIMessage
from langgraph.config import get_stream_writer
from langgraph.graph import START, MessagesState, StateGraph

from langgraph_openai_serve import (
    GraphConfig,
    GraphRegistry,
    LanggraphOpenaiServe,
    status_event,
)
from tests.procs import free_port
from tests.waiting import eventually

pytestmark = pytest.mark.anyio


class Probe:
    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = 0
        self.finished = 0


def slow_graph(probe: Probe) -> Any:
    async def work(state: MessagesState) -> dict[str, Any]:
        get_stream_writer()(status_event("Working for a long time"))
        probe.started.set()
        try:
            await asyncio.sleep(60)  # slow on purpose: the client leaves first
        except asyncio.CancelledError:
            probe.cancelled += 1
            raise
        probe.finished += 1
        return {"messages": [AIMessage("done")]}

    builder = StateGraph(MessagesState)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder.compile()


def graph_runs() -> list[asyncio.Task[Any]]:
    """The graph-run tasks still alive in this event loop."""
    return [t for t in asyncio.all_tasks() if t.get_name() == "lgos.graph_run"]


@asynccontextmanager
async def serving(registry: GraphRegistry) -> AsyncIterator[str]:
    """Serve ``registry`` with Uvicorn on a free loopback port; yield its origin."""
    app = FastAPI()
    LanggraphOpenaiServe(registry, app).bind_openai_api()
    port = free_port()
    config = uvicorn.Config(app, port=port, log_level="warning", lifespan="off")
    uv_server = uvicorn.Server(config)
    task = asyncio.create_task(uv_server.serve())
    # uvicorn offers no event for it: poll its flag.
    await eventually(lambda: uv_server.started, message="uvicorn to start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        uv_server.should_exit = True
        await task


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, Probe]]:
    probe = Probe()
    registry = GraphRegistry(
        graphs={"slow": GraphConfig(graph=slow_graph(probe), description="Slow.")}
    )
    async with serving(registry) as origin:
        yield origin, probe


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/responses", {"model": "slow", "input": "x", "stream": True}),
        (
            "/v1/chat/completions",
            {
                "model": "slow",
                "messages": [{"role": "user", "content": "x"}],
                "stream": True,
            },
        ),
    ],
)
async def test_disconnect_cancels_the_run(
    server: tuple[str, Probe], path: str, body: dict
) -> None:
    base, probe = server
    async with (
        httpx.AsyncClient(base_url=base, timeout=10) as client,
        client.stream("POST", path, json=body) as response,
    ):
        assert response.status_code == 200
        await asyncio.wait_for(probe.started.wait(), 10)
    # Leaving the block closed the connection mid-stream.
    await eventually(lambda: probe.cancelled, message="the run's cancellation")
    # Once the run's task is gone, nothing can cancel or finish it again.
    await eventually(lambda: not graph_runs(), message="the run's task to end")
    assert (probe.cancelled, probe.finished) == (1, 0)


class ResumeProbe:
    """Counts the runs of the node after the pause; blocks it until ``release``."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.starts = 0
        self.cancelled = 0
        self.finished = 0


def pausing_graph(probe: ResumeProbe) -> Any:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import interrupt

    class State(MessagesState):
        decision: str

    def ask(state: State) -> dict[str, Any]:
        return {"decision": interrupt({"question": "Go ahead?"})}

    async def act(state: State) -> dict[str, Any]:
        probe.starts += 1
        probe.started.set()
        try:
            await probe.release.wait()
        except asyncio.CancelledError:
            probe.cancelled += 1
            raise
        probe.finished += 1
        return {"messages": [AIMessage(f"Done: {state['decision']}")]}

    builder = StateGraph(State)
    builder.add_node("ask", ask)
    builder.add_node("act", act)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", "act")
    return builder.compile(checkpointer=InMemorySaver())


async def test_a_dropped_streaming_resume_keeps_its_pause() -> None:
    from langgraph_openai_serve import GraphFeature, InMemoryRunCoordinator

    probe = ResumeProbe()
    registry = GraphRegistry(
        graphs={
            "pausing": GraphConfig(
                graph=pausing_graph(probe),
                description="Pauses, then acts.",
                features=frozenset({GraphFeature.INTERRUPTS}),
            )
        },
        run_coordinator=InMemoryRunCoordinator(),
    )
    async with (
        serving(registry) as origin,
        httpx.AsyncClient(base_url=f"{origin}/v1", timeout=10) as client,
    ):
        paused = (
            await client.post("/responses", json={"model": "pausing", "input": "x"})
        ).json()
        [call] = [i for i in paused["output"] if i["type"] == "function_call"]
        resume = {
            "model": "pausing",
            "previous_response_id": paused["id"],
            "input": [
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": "yes",
                }
            ],
            "stream": True,
        }
        async with client.stream("POST", "/responses", json=resume) as response:
            assert response.status_code == 200
            await asyncio.wait_for(probe.started.wait(), 10)
        # The client left mid-run: the run is cancelled, the pause kept.
        await eventually(lambda: probe.cancelled, message="the run's cancellation")
        assert (probe.starts, probe.cancelled, probe.finished) == (1, 1, 0)
        probe.release.set()
        # The identical resume, with the same Response and call IDs.
        retried = await client.post("/responses", json={**resume, "stream": False})
        assert retried.status_code == 200, retried.text
        assert retried.json()["output"][-1]["content"][0]["text"] == "Done: yes"
        assert (probe.starts, probe.finished) == (2, 1)
        # A finished run is gone: replaying its resume is the safe 409.
        again = await client.post("/responses", json={**resume, "stream": False})
        assert again.status_code == 409
        assert again.json()["error"]["code"] == "interrupt_state_conflict"


class StepProbe:
    """Counts a looping graph's steps, and notes when its run is cancelled."""

    def __init__(self) -> None:
        self.steps = 0
        self.cancelled = asyncio.Event()
        self.started = asyncio.Event()


def counting_graph(probe: StepProbe) -> Any:
    async def step(state: MessagesState) -> dict[str, Any]:
        probe.started.set()
        try:
            for _ in range(400):  # about 8 s of work, one await per step
                probe.steps += 1
                await asyncio.sleep(0.02)  # the work: slow on purpose
        except asyncio.CancelledError:
            probe.cancelled.set()
            raise
        return {"messages": [AIMessage(f"{probe.steps} steps")]}

    builder = StateGraph(MessagesState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    return builder.compile()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/responses", {"model": "counting", "input": "x"}),
        (
            "/v1/chat/completions",
            {"model": "counting", "messages": [{"role": "user", "content": "x"}]},
        ),
    ],
)
async def test_a_non_streaming_client_leaving_stops_the_run(
    path: str, body: dict
) -> None:
    probe = StepProbe()
    registry = GraphRegistry(
        graphs={
            "counting": GraphConfig(graph=counting_graph(probe), description="Counts.")
        }
    )
    async with serving(registry) as origin:
        async with httpx.AsyncClient(base_url=origin) as client:
            request = asyncio.create_task(client.post(path, json=body, timeout=30))
            await asyncio.wait_for(probe.started.wait(), 10)
            await eventually(lambda: probe.steps >= 5, message="a few steps")
            request.cancel()  # the client gives up and closes its connection
            with pytest.raises(asyncio.CancelledError):
                await request
            left_at = probe.steps
        await asyncio.wait_for(probe.cancelled.wait(), 5)
        # Stopped within one await of the graph, not 8 s and ~400 steps later.
        assert probe.steps - left_at <= 1, (left_at, probe.steps)
        # A fixed window on purpose: it proves no step runs after the cancel.
        await asyncio.sleep(0.2)
        assert probe.steps - left_at <= 1
        assert graph_runs() == []
