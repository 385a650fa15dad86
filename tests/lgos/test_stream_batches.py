"""Bursts of stream events travel in batches, byte for byte as single events."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from fastapi import FastAPI
from langchain_core.messages import AIMessage, HumanMessage

from langgraph_openai_serve import (
    GraphConfig,
    GraphRegistry,
    GraphRequest,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.graph.graph_task import Channel
from langgraph_openai_serve.graph.runner import (
    TextChunk,
    prepare_run,
    stream_run,
    stream_run_batches,
)
from langgraph_openai_serve.testing import OfflineChatModel, parse_sse
from tests.lgos.asgi import call_asgi
from tests.lgos.graphs import model_graph

pytestmark = pytest.mark.anyio

# Quotes, escapes, non-ASCII and a line separator: JSON encoding must match.
WORDS = [f"w{i}" for i in range(40)] + ['"quoted"', "back\\slash", "é😀", "\u2028x"]
ANSWER = " ".join(WORDS)


def burst_registry() -> GraphRegistry:
    """One model call streaming every word without pausing (one burst)."""
    model = OfflineChatModel(responder=lambda messages, tools, choice: ANSWER)
    return GraphRegistry(
        graphs={"burst": GraphConfig(graph=model_graph(model), description="d")}
    )


async def test_a_burst_comes_in_few_batches_and_the_result_alone() -> None:
    registry = burst_registry()
    request, messages = GraphRequest(model="burst"), [HumanMessage("x")]
    async with prepare_run(request, messages, registry) as run:
        batches = [batch async for batch in stream_run_batches(run, stream=True)]
    async with prepare_run(request, messages, registry) as run:
        events = [event async for event in stream_run(run, stream=True)]
    flat = [event for batch in batches for event in batch]
    texts = [e.text for e in flat if isinstance(e, TextChunk)]
    assert "".join(texts) == ANSWER
    assert len(texts) > 40
    assert len(batches) <= 4  # one wake-up per burst, not per chunk
    [final] = batches[-1]  # the answer comes alone, last
    assert isinstance(final, AIMessage) and final.text == ANSWER
    assert [type(e) for e in events] == [type(e) for e in flat]
    assert [e.text for e in events if isinstance(e, TextChunk)] == texts


def reencoded(event: dict[str, Any]) -> bytes:
    return orjson.dumps(event)


async def test_responses_stream_batches_events_exactly() -> None:
    app = FastAPI()
    LanggraphOpenaiServe(burst_registry(), app).bind_openai_api()
    bodies = await call_asgi(
        app, "/v1/responses", {"model": "burst", "input": "x", "stream": True}
    )
    events = parse_sse(b"".join(bodies).decode())
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert len(deltas) > 40
    assert len(bodies) <= 6  # not one write per event
    # The first delta is written alone, right away; the rest of the burst after.
    first_delta = next(b for b in bodies if b"output_text.delta" in b)
    assert first_delta.count(b"event: response.output_text.delta") == 1
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert "".join(e["delta"] for e in deltas) == ANSWER
    assert events[-1]["type"] == "response.completed"
    # Every event is exactly what orjson writes for its object (the text
    # deltas are assembled from pre-encoded parts).
    stream = b"".join(bodies)
    for event in events:
        frame = b"event: %s\ndata: %s\n\n" % (event["type"].encode(), reencoded(event))
        assert frame in stream


async def test_chat_stream_batches_chunks_exactly() -> None:
    app = FastAPI()
    LanggraphOpenaiServe(burst_registry(), app).bind_openai_api()
    body = {
        "model": "burst",
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
    }
    bodies = await call_asgi(app, "/v1/chat/completions", body)
    events = parse_sse(b"".join(bodies).decode())
    assert len(bodies) <= 6
    first_content = next(b for b in bodies if b'"delta":{"content":"w0' in b)
    assert first_content.count(b"data: ") == 1
    contents = [
        e["choices"][0]["delta"].get("content", "") for e in events if e["choices"]
    ]
    assert "".join(contents) == ANSWER
    stream = b"".join(bodies)
    assert stream.endswith(b"data: [DONE]\n\n")
    for event in events:
        assert b"data: %s\n\n" % reencoded(event) in stream


async def test_the_channel_hands_over_bursts_and_holds_back_a_fast_graph() -> None:
    channel = Channel(limit=2)

    async def produce() -> None:
        for item in range(5):
            await channel.put(item)

    producer = asyncio.create_task(produce())
    await asyncio.sleep(0.01)  # a window in which the producer must block
    assert not producer.done()  # waits: two parts are waiting already
    assert list(await channel.take()) == [0, 1]
    await asyncio.sleep(0.01)
    assert list(await channel.take()) == [2, 3]
    assert list(await channel.take()) == [4]
    await producer
