"""Background turns: polling and cancelling against an in-process LGOS."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from openai import AsyncOpenAI

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.background import InMemoryBackgroundBackend
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from lgos_chainlit.ledger import Conversation
from lgos_chainlit.responses_request import build_request
from lgos_chainlit.session import BACKGROUND_SETTING, ChatSession
from lgos_chainlit.turn_listener import TurnListener
from lgos_chainlit.view import background_title
from tests.waiting import eventually

pytestmark = pytest.mark.anyio


class Gate:
    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = 0


def slow_graph(gate: Gate) -> Any:
    async def work(state: MessagesState) -> dict[str, Any]:
        gate.entered.set()
        try:
            await gate.release.wait()
        except asyncio.CancelledError:
            gate.cancelled += 1
            raise
        return {"messages": [AIMessage(f"Done: {state['messages'][-1].text}")]}

    builder = StateGraph(MessagesState)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder.compile()


class Polls(TurnListener):
    def __init__(self) -> None:
        self.polls: list[tuple[str, str, float]] = []
        self.text: list[str] = []
        self.polled = asyncio.Event()

    async def on_background(
        self, response_id: str, status: str, elapsed: float
    ) -> None:
        self.polls.append((response_id, status, elapsed))
        self.polled.set()

    async def on_text(self, text: str) -> None:
        self.text.append(text)


@pytest.fixture
async def lgos() -> AsyncIterator[tuple[Gate, AsyncOpenAI]]:
    gate = Gate()
    registry = GraphRegistry(
        graphs={
            "slow": GraphConfig(
                graph=slow_graph(gate),
                description="Slow.",
                features=frozenset({GraphFeature.BACKGROUND}),
            )
        },
        run_coordinator=InMemoryRunCoordinator(),
    )
    backend = InMemoryBackgroundBackend(registry)
    app = FastAPI()
    LanggraphOpenaiServe(registry, app, background=backend).bind_openai_api()
    async with (
        backend.lifespan(),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http,
    ):
        yield (
            gate,
            AsyncOpenAI(
                base_url="http://lgos/v1",
                api_key="x",
                http_client=http,  # pyright: ignore[reportArgumentType]
                max_retries=0,
            ),
        )


def test_background_requests_are_polled_not_streamed() -> None:
    request = build_request(model="m", input=[], background=True)
    assert (request["background"], request["stream"]) == (True, False)
    assert "background" not in build_request(model="m", input=[])


def test_background_titles() -> None:
    assert background_title("in_progress", 12.7) == "Running in the background… 12 s"
    assert background_title("queued", 0) == "Queued in the background… 0 s"
    assert "cancelled" in background_title("cancelled", 3)


def test_background_switch_only_for_background_models() -> None:
    model: dict[str, Any] = {
        "id": "deep",
        "object": "model",
        "created": 0,
        "owned_by": "lgos",
        "lgos": {
            "schema_version": 1,
            "description": "Deep.",
            "features": ["background", "interrupts", "file_inputs"],
        },
    }
    session = ChatSession.from_model(model)
    assert session.offers_background
    assert not session.runs_in_background
    assert BACKGROUND_SETTING in [widget.id for widget in session.widgets]
    session.update_settings({BACKGROUND_SETTING: True})
    assert session.runs_in_background
    restored = ChatSession.from_model(model)
    restored.restore(session.to_state())
    assert restored.runs_in_background
    model["lgos"]["features"] = []
    plain = ChatSession.from_model(model)
    assert BACKGROUND_SETTING not in [widget.id for widget in plain.widgets]


async def test_background_turn_polls_until_completed(
    lgos: tuple[Gate, AsyncOpenAI],
) -> None:
    gate, client = lgos
    conversation = Conversation(model="slow")
    listener = Polls()

    async def release() -> None:
        await gate.entered.wait()
        # Released once the poller has seen the run in progress.
        await eventually(
            lambda: any(status == "in_progress" for _, status, _ in listener.polls)
        )
        gate.release.set()

    releaser = asyncio.create_task(release())
    result = await conversation.ask(
        client, "hello", listener=listener, background=True, poll_interval=0.02
    )
    await releaser
    assert result.status == "completed"
    assert result.answer == "Done: hello"
    assert listener.text == ["Done: hello"]
    statuses = [status for _, status, _ in listener.polls]
    assert statuses[0] == "queued"
    assert "in_progress" in statuses
    assert statuses[-1] == "completed"
    assert {rid for rid, _, _ in listener.polls} == {result.response_id}
    assert conversation.items[0] == {"role": "user", "content": "hello"}
    assert conversation.items[-1]["type"] == "message"


async def test_stopping_a_background_turn_cancels_the_response(
    lgos: tuple[Gate, AsyncOpenAI],
) -> None:
    gate, client = lgos
    conversation = Conversation(model="slow")
    listener = Polls()
    task = asyncio.create_task(
        conversation.ask(
            client, "stop me", listener=listener, background=True, poll_interval=0.02
        )
    )
    await gate.entered.wait()
    await listener.polled.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    response_id = listener.polls[0][0]

    async def cancelled() -> bool:
        response = await client.responses.retrieve(response_id)
        return response.status == "cancelled"

    assert await eventually(cancelled, message="the Response to be cancelled")
    assert conversation.items == []
