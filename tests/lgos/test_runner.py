"""Direct runner calls: run_langgraph and run_langgraph_stream."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    GraphRequest,
)
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.graph.interrupt import (
    InterruptMismatchError,
    InterruptResume,
    LangGraphInterruptBatch,
    MissingAnswersError,
    NotPausedError,
    RunIdReusedError,
)
from langgraph_openai_serve.graph.runner import (
    TextChunk,
    prepare_run,
    run_langgraph,
    run_langgraph_stream,
    stream_run,
)
from langgraph_openai_serve.graph.session import RunSession
from tests.lgos.graphs import make_registry
from tests.lgos.interrupt_graphs import interrupt_registry

pytestmark = pytest.mark.anyio


async def test_run_langgraph_returns_final_message() -> None:
    answer = await run_langgraph(
        GraphRequest(model="echo"), [HumanMessage("direct")], make_registry()
    )
    assert isinstance(answer, AIMessage)
    assert answer.text == "Echo: direct"


async def test_run_langgraph_stream_yields_text_custom_then_answer() -> None:
    events = [
        event
        async for event in run_langgraph_stream(
            GraphRequest(model="status"), [HumanMessage("q")], make_registry()
        )
    ]
    assert isinstance(events[-1], AIMessage)
    text = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert text == events[-1].text == "Echo: q"
    custom = [e for e in events if isinstance(e, dict)]
    # Custom parts keep LangGraph's native shape; the adapter filters them.
    assert [c["data"].get("description") for c in custom] == [
        "Reading the question",
        "private step",
        None,
        "Writing the answer",
    ]
    assert all(c["type"] == "custom" for c in custom)


async def test_run_config_carries_correlation_metadata() -> None:
    seen: dict[str, Any] = {}

    def capture(state: MessagesState) -> dict[str, Any]:
        from langgraph.config import get_config

        config = get_config()
        seen.update(config["metadata"], run_name=config.get("run_name"))
        return {"messages": [AIMessage("ok")]}

    builder = StateGraph(MessagesState)
    builder.add_node("capture", capture)
    builder.add_edge(START, "capture")
    registry = GraphRegistry(
        graphs={"m": GraphConfig(graph=builder.compile(), description="d")}
    )
    request = GraphRequest(
        model="m", user="u-1", metadata={"conversation_id": "conv-9"}
    )
    async with prepare_run(
        request, [HumanMessage("x")], registry, request_id="req_1"
    ) as run:
        assert run.runnable_config["run_name"] == "lgos.graph_run"
        async for _ in stream_run(run, stream=False):
            pass
    assert seen["lgos.model"] == "m"
    assert seen["lgos.request_id"] == "req_1"
    assert seen["lgos.user"] == "u-1"
    # Langfuse's native fields appear only with LGOS_ENABLE_LANGFUSE (see
    # tests/lgos/test_langfuse.py), so a custom handler gets none of them.
    assert not [key for key in seen if key.startswith("langfuse_")]


async def test_closing_the_stream_cancels_the_graph_once() -> None:
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def slow(state: MessagesState) -> dict[str, Any]:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return {"messages": [AIMessage("late")]}

    builder = StateGraph(MessagesState)
    builder.add_node("slow", slow)
    builder.add_edge(START, "slow")
    registry = GraphRegistry(
        graphs={"slow": GraphConfig(graph=builder.compile(), description="d")}
    )

    async def consume() -> None:
        async for _ in run_langgraph_stream(
            GraphRequest(model="slow"), [HumanMessage("x")], registry
        ):
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert cancelled == [True]
    leftovers = [t for t in asyncio.all_tasks() if t.get_name() == "lgos.graph_run"]
    assert leftovers == []


async def test_nostream_model_calls_stay_private() -> None:
    from langgraph.constants import TAG_NOSTREAM

    from langgraph_openai_serve.testing import OfflineChatModel

    planner = OfflineChatModel(
        responder=lambda m, t, c: "private plan text"
    ).with_config(tags=[TAG_NOSTREAM])
    writer = OfflineChatModel(responder=lambda m, t, c: "the public answer")

    async def respond(state: MessagesState) -> dict[str, Any]:
        plan = await planner.ainvoke(state["messages"])
        assert plan.text == "private plan text"  # the call still runs
        return {"messages": [await writer.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    registry = GraphRegistry(
        graphs={"m": GraphConfig(graph=builder.compile(), description="d")}
    )
    events = [
        e
        async for e in run_langgraph_stream(
            GraphRequest(model="m"), [HumanMessage("x")], registry
        )
    ]
    streamed = [e.text for e in events if isinstance(e, TextChunk)]
    assert "".join(streamed) == "the public answer"
    assert len(streamed) == 3


async def test_subgraph_text_and_status_reach_the_stream_once() -> None:
    from langgraph.config import get_stream_writer

    from langgraph_openai_serve import status_event
    from langgraph_openai_serve.testing import OfflineChatModel

    model = OfflineChatModel(responder=lambda m, t, c: "answer from the subgraph")

    async def inner(state: MessagesState) -> dict[str, Any]:
        get_stream_writer()(status_event("inside the subgraph"))
        return {"messages": [await model.ainvoke(state["messages"])]}

    sub = StateGraph(MessagesState)
    sub.add_node("inner", inner)
    sub.add_edge(START, "inner")
    root = StateGraph(MessagesState)
    root.add_node("sub", sub.compile())
    root.add_edge(START, "sub")
    registry = GraphRegistry(
        graphs={"m": GraphConfig(graph=root.compile(), description="d")}
    )
    events = [
        e
        async for e in run_langgraph_stream(
            GraphRequest(model="m"), [HumanMessage("x")], registry
        )
    ]
    text = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert text == "answer from the subgraph"
    statuses = [e["data"]["description"] for e in events if isinstance(e, dict)]
    assert statuses == ["inside the subgraph"]
    assert next(e["ns"] for e in events if isinstance(e, dict))[0].startswith("sub")
    assert events[-1].text == "answer from the subgraph"


@pytest.mark.parametrize("stream", [False, True])
async def test_the_result_arrives_after_the_run_is_released(stream: bool) -> None:
    """A caller may resume the instant it holds the batch: no ``run_busy``.

    Pausing frees the lease and keeps the checkpoint; finishing frees the
    lease and deletes the checkpoint, both before the result is handed over.
    """
    saver = InMemorySaver()
    coordinator = InMemoryRunCoordinator()
    registry = interrupt_registry(saver, coordinator)
    request = GraphRequest(model="approval")

    async def result(resume: InterruptResume | None) -> Any:
        if not stream:
            return await run_langgraph(
                request, [HumanMessage("x")], registry, resume=resume
            )
        async for event in run_langgraph_stream(
            request, [HumanMessage("x")], registry, resume=resume
        ):
            if isinstance(event, AIMessage | LangGraphInterruptBatch):
                # Checked while the caller still holds the iterator open.
                assert coordinator.held == frozenset()
                return event
        raise AssertionError("no result")

    batch = await result(None)
    assert isinstance(batch, LangGraphInterruptBatch)
    assert coordinator.held == frozenset()
    assert [c async for c in saver.alist(None)], "the pause keeps its checkpoint"
    [pending] = batch.interrupts
    resume = InterruptResume(run_id=batch.run_id, answers={pending.id: "approve"})
    answer = await result(resume)
    assert isinstance(answer, AIMessage)
    assert answer.text == "Decision: approve"
    assert [c async for c in saver.alist(None)] == []


async def test_a_direct_resume_is_checked_against_the_pause() -> None:
    """Direct callers answer by interrupt ID; the neutral errors say what is wrong."""
    saver = InMemorySaver()
    registry = interrupt_registry(saver, InMemoryRunCoordinator())
    request = GraphRequest(model="approval")
    batch = await run_langgraph(request, [HumanMessage("x")], registry)
    assert isinstance(batch, LangGraphInterruptBatch)
    [pending] = batch.interrupts
    with pytest.raises(InterruptMismatchError):
        await run_langgraph(
            request,
            [],
            registry,
            resume=InterruptResume(batch.run_id, {"not-pending": "approve"}),
        )
    with pytest.raises(MissingAnswersError) as missing:
        await run_langgraph(
            request, [], registry, resume=InterruptResume(batch.run_id, {})
        )
    assert missing.value.missing == 1
    answer = await run_langgraph(
        request, [], registry, resume=InterruptResume(batch.run_id, {pending.id: "no"})
    )
    assert isinstance(answer, AIMessage)
    with pytest.raises(NotPausedError) as finished:
        await run_langgraph(
            request,
            [],
            registry,
            resume=InterruptResume(batch.run_id, {pending.id: "no"}),
        )
    assert finished.value.interrupts is True


def _two_question_registry(saver: InMemorySaver) -> GraphRegistry:
    """A graph that pauses twice in a row: a first answer leads to a second pause."""

    class TwoQuestions(MessagesState):
        answers: list[str]

    def first(state: TwoQuestions) -> dict[str, Any]:
        return {"answers": [interrupt({"question": "First?"})]}

    def second(state: TwoQuestions) -> dict[str, Any]:
        answer = interrupt({"question": "Second?"})
        return {"messages": [AIMessage(", ".join([*state["answers"], answer]))]}

    builder = StateGraph(TwoQuestions)
    builder.add_node("first", first)
    builder.add_node("second", second)
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    return GraphRegistry(
        graphs={
            "two": GraphConfig(
                graph=builder.compile(checkpointer=saver),
                description="Asks twice.",
                features={GraphFeature.INTERRUPTS},
            )
        },
        run_coordinator=InMemoryRunCoordinator(),
    )


async def _session_result(registry: GraphRegistry, **spec: Any) -> Any:
    messages = spec.pop("messages", [])
    async with RunSession(
        GraphRequest(model="two"), messages, registry, **spec
    ) as session:
        async for batch in session.batches(stream=False):
            for event in batch:
                if isinstance(event, AIMessage | LangGraphInterruptBatch):
                    return event
    raise AssertionError("no result")


async def test_the_first_requests_fingerprint_guards_every_pause_of_its_run() -> None:
    """The fingerprint goes with the run's checkpoints past a resume: a later
    pause, too, goes back only to a retry of the request that started the run."""
    saver = InMemorySaver()
    registry = _two_question_registry(saver)
    run_id = uuid.uuid4()
    first = await _session_result(
        registry, messages=[HumanMessage("x")], run_id=run_id, fingerprint="f1"
    )
    assert isinstance(first, LangGraphInterruptBatch)
    [pending] = first.interrupts
    second = await _session_result(
        registry, resume=InterruptResume(run_id, {pending.id: "a"})
    )
    assert isinstance(second, LangGraphInterruptBatch)
    assert second.checkpoint_id != first.checkpoint_id
    with pytest.raises(RunIdReusedError):
        await _session_result(
            registry, messages=[HumanMessage("y")], run_id=run_id, fingerprint="f2"
        )
    again = await _session_result(
        registry, messages=[HumanMessage("x")], run_id=run_id, fingerprint="f1"
    )
    assert again == second  # re-delivered: the same pending batch, nothing ran
    [pending] = second.interrupts
    answer = await _session_result(
        registry, resume=InterruptResume(run_id, {pending.id: "b"})
    )
    assert isinstance(answer, AIMessage)
    assert answer.text == "a, b"


async def test_interrupt_without_the_feature_names_the_graph_and_the_fix() -> None:
    """No checkpointer: the pause could never be resumed (was an AssertionError)."""
    from langgraph.types import interrupt

    from langgraph_openai_serve import InterruptNotDeclaredError

    def ask(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(str(interrupt("Approve?")))]}

    builder = StateGraph(MessagesState)
    builder.add_node(ask)
    builder.add_edge(START, "ask")
    registry = GraphRegistry(
        graphs={"asks": GraphConfig(graph=builder.compile(), description="d")}
    )
    for stream in (False, True):
        with pytest.raises(InterruptNotDeclaredError) as raised:
            if stream:
                async for _ in run_langgraph_stream(
                    GraphRequest(model="asks"), [HumanMessage("x")], registry
                ):
                    pass
            else:
                await run_langgraph(
                    GraphRequest(model="asks"), [HumanMessage("x")], registry
                )
        message = str(raised.value)
        assert "graph 'asks' called interrupt()" in message
        assert "GraphFeature.INTERRUPTS" in message
        assert "checkpointer" in message
