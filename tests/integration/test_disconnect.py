"""A streaming client that disconnects cancels its graph run once, over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
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
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            probe.cancelled += 1
            raise
        probe.finished += 1
        return {"messages": [AIMessage("done")]}

    builder = StateGraph(MessagesState)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder.compile()


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, Probe]]:
    probe = Probe()
    app = FastAPI()
    registry = GraphRegistry(
        graphs={"slow": GraphConfig(graph=slow_graph(probe), description="Slow.")}
    )
    LanggraphOpenaiServe(registry, app).bind_openai_api()
    port = free_port()
    config = uvicorn.Config(app, port=port, log_level="warning", lifespan="off")
    uv_server = uvicorn.Server(config)
    task = asyncio.create_task(uv_server.serve())
    while not uv_server.started:  # noqa: ASYNC110 - uvicorn offers no event
        await asyncio.sleep(0.01)
    yield f"http://127.0.0.1:{port}", probe
    uv_server.should_exit = True
    await task


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
    for _ in range(200):
        if probe.cancelled:
            break
        await asyncio.sleep(0.025)
    await asyncio.sleep(0.1)
    assert (probe.cancelled, probe.finished) == (1, 0)
    assert [t for t in asyncio.all_tasks() if t.get_name() == "lgos.graph_run"] == []
