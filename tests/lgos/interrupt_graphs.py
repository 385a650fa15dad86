"""Interrupt-enabled graphs for the interrupt tests (single and parallel)."""

from __future__ import annotations

import asyncio
import operator
import os
import time
from pathlib import Path
from typing import Annotated, Any

from langchain_core.messages import AIMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import Send, interrupt

from langgraph_openai_serve import GraphConfig, GraphFeature, GraphRegistry


class Counter:
    """Counts node executions, to prove a retry does not rerun nodes."""

    def __init__(self) -> None:
        self.prepare = 0
        self.review = 0
        self.slow = asyncio.Event()  # set when a "slow" decision starts its wait


async def _pass_gate(gate: Path) -> None:
    """Log ``start``, wait until another process creates ``gate/open``, log ``done``.

    A cancelled wait logs ``cancelled``: the log tells which process ran the
    node and how far (``gate/log``), across processes.
    """

    def log(line: str) -> None:
        with (gate / "log").open("a") as out:
            out.write(f"{os.getpid()} {line}\n")

    log("start")
    try:
        while not (gate / "open").exists():  # noqa: ASYNC110 - another process opens it
            await asyncio.sleep(0.02)
    except asyncio.CancelledError:
        log("cancelled")
        raise
    log("done")


async def _timed(log: Path, seconds: float) -> None:
    """Run for ``seconds``, logging ``pid start|end|cancelled wall-clock-time``.

    The log tells, across processes, who ran the node from when to when: a
    cancelled run logs the moment it stopped.
    """

    def record(event: str) -> None:
        with log.open("a") as out:
            out.write(f"{os.getpid()} {event} {time.time():.6f}\n")

    record("start")
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:  # noqa: ASYNC110 - a node at work
            await asyncio.sleep(0.02)
    except asyncio.CancelledError:
        record("cancelled")
        raise
    record("end")


class ApprovalState(MessagesState):
    decision: str


class ParallelState(MessagesState):
    answers: Annotated[list[str], operator.add]


def approval_graph(checkpointer: BaseCheckpointSaver, counter: Counter) -> Any:
    def prepare(state: ApprovalState) -> dict[str, Any]:
        counter.prepare += 1
        if state["messages"][-1].text == "explode":  # fails before any pause
            raise RuntimeError("prepare failed")
        return {}

    def review(state: ApprovalState) -> dict[str, Any]:
        counter.review += 1
        answer = interrupt(
            {
                "question": "How should the refund be handled?",
                "choices": ["approve", "reject"],
                "allow_other": True,
            }
        )
        return {"decision": answer}

    async def finish(state: ApprovalState) -> dict[str, Any]:
        if state["decision"] == "explode":
            raise RuntimeError("finish failed")
        if state["decision"] == "slow":
            counter.slow.set()
            await asyncio.sleep(60)
        if state["decision"].startswith("gate:"):
            await _pass_gate(Path(state["decision"][5:]))
        if state["decision"].startswith("timed:"):  # timed:SECONDS:LOG
            seconds, log = state["decision"][6:].split(":", 1)
            await _timed(Path(log), float(seconds))
        return {"messages": [AIMessage(f"Decision: {state['decision']}")]}

    builder = StateGraph(ApprovalState)
    builder.add_node("prepare", prepare)
    builder.add_node("review", review)
    builder.add_node("finish", finish)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "review")
    builder.add_edge("review", "finish")
    return builder.compile(checkpointer=checkpointer)


def parallel_graph(checkpointer: BaseCheckpointSaver) -> Any:
    def fan_out(state: ParallelState) -> list[Send]:
        return [Send("ask", {"topic": topic}) for topic in ("budget", "timeline")]

    def ask(state: dict[str, Any]) -> dict[str, Any]:
        answer = interrupt({"question": f"Approve the {state['topic']}?"})
        return {"answers": [f"{state['topic']}={answer}"]}

    def finish(state: ParallelState) -> dict[str, Any]:
        return {"messages": [AIMessage(", ".join(sorted(state["answers"])))]}

    builder = StateGraph(ParallelState)
    builder.add_node("ask", ask)
    builder.add_node("finish", finish)
    builder.add_conditional_edges(START, fan_out, ["ask"])
    builder.add_edge("ask", "finish")
    return builder.compile(checkpointer=checkpointer)


def interrupt_registry(
    checkpointer: BaseCheckpointSaver,
    run_coordinator: Any,
    counter: Counter | None = None,
) -> GraphRegistry:
    features = frozenset({GraphFeature.INTERRUPTS})
    return GraphRegistry(
        graphs={
            "approval": GraphConfig(
                graph=approval_graph(checkpointer, counter or Counter()),
                description="Asks for one approval.",
                features=features,
            ),
            "parallel": GraphConfig(
                graph=parallel_graph(checkpointer),
                description="Asks two questions at once.",
                features=features,
            ),
        },
        run_coordinator=run_coordinator,
    )


def serve_interrupt_registry(resources: Any) -> GraphRegistry:
    """Registry factory for ``lgos serve`` (checkpointer from the server)."""
    return interrupt_registry(resources.checkpointer, resources.run_coordinator)


def serve_background_registry(resources: Any) -> GraphRegistry:
    """Registry factory for ``lgos serve``/``lgos worker`` with background runs.

    ``approval`` pauses for a decision and runs in either mode (a ``slow``
    decision sleeps for a minute in its last node); ``echo`` answers at once.
    """
    from langgraph_openai_serve.testing import OfflineChatModel
    from tests.lgos.graphs import echo_responder, model_graph

    both = frozenset({GraphFeature.INTERRUPTS, GraphFeature.BACKGROUND})
    return GraphRegistry(
        graphs={
            "approval": GraphConfig(
                graph=approval_graph(resources.checkpointer, Counter()),
                description="Asks for one approval; runs in the background too.",
                features=both,
            ),
            "echo": GraphConfig(
                graph=model_graph(OfflineChatModel(responder=echo_responder)),
                description="Echoes the last user message.",
                features=frozenset({GraphFeature.BACKGROUND}),
            ),
        },
        run_coordinator=resources.run_coordinator,
    )
