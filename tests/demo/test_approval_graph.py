"""The `approval` graph through the OpenAI SDK, in-process.

The demo registry runs on ``InMemorySaver`` and ``InMemoryRunCoordinator``
(as ``lgos serve`` does without PostgreSQL); the offline model writes the
outcome. Pauses arrive as ``lgos_interrupt`` calls and are answered with
``function_call_output`` items referring to the paused Response.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI

from lgos_demo_api.graphs.approval import (
    ApprovalSettings,
    approval_responder,
    build_approval_graph,
    classify,
)
from lgos_demo_api.offline import OfflineChatModel
from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio

REQUEST = "Refund order 42: the kettle arrived broken."
PARALLEL = {"lgos_settings": '{"parallel_review":true}'}


@pytest.fixture
def client(demo_client: AsyncOpenAI) -> AsyncOpenAI:
    """The OpenAI SDK on the in-process offline demo (root conftest)."""
    return demo_client


def interrupts(response: Any) -> list[Any]:
    return [
        item
        for item in response.output
        if item.type == "function_call" and item.name == "lgos_interrupt"
    ]


def answer(calls: list[Any], *outputs: str) -> list[dict[str, str]]:
    return [
        {"type": "function_call_output", "call_id": call.call_id, "output": output}
        for call, output in zip(calls, outputs, strict=True)
    ]


async def test_model_publishes_interrupts_and_the_parallel_setting(
    client: AsyncOpenAI,
) -> None:
    model = await client.models.retrieve("approval")
    lgos = model.model_extra["lgos"]  # type: ignore[index]
    assert "interrupts" in lgos["features"]
    assert "offline demo model" in lgos["description"]
    assert lgos["client_settings"]["defaults"] == {"parallel_review": False}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("approve", "**Approved.** The refund request “Refund order 42"),
        ("Reject", "**Rejected.** The refund request “Refund order 42"),
        (
            "Check the photos first.",
            "goes ahead as instructed (manager: “Check the photos first.”)",
        ),
    ],
)
async def test_one_pause_then_the_answer_reflects_the_decision(
    client: AsyncOpenAI, reply: str, expected: str
) -> None:
    paused = await client.responses.create(model="approval", input=REQUEST)
    validate("Response", paused.model_dump(mode="json", exclude_unset=True))
    assert paused.status == "completed"
    [call] = interrupts(paused)
    payload = json.loads(call.arguments)
    assert payload["choices"] == ["approve", "reject"]
    assert payload["allow_other"] is True
    assert payload["reviewer"] == "manager"
    assert payload["question"].startswith("Approve this refund request?")
    assert REQUEST in payload["question"]

    done = await client.responses.create(
        model="approval", previous_response_id=paused.id, input=answer([call], reply)
    )
    assert not interrupts(done)
    assert expected in done.output_text


async def test_streamed_resume_with_settings_sent_again(client: AsyncOpenAI) -> None:
    stream = await client.responses.create(
        model="approval", input=REQUEST, stream=True, metadata=PARALLEL
    )
    final = None
    async for event in stream:
        if event.type == "response.completed":
            final = event.response
    assert final is not None
    calls = interrupts(final)
    assert len(calls) == 2
    by_reviewer = {json.loads(c.arguments)["reviewer"]: c for c in calls}
    assert set(by_reviewer) == {"manager", "finance"}
    for reviewer, call in by_reviewer.items():
        assert (
            f"{reviewer.capitalize()} review" in json.loads(call.arguments)["question"]
        )

    # Both answers go in one resume; one alone is rejected.
    with pytest.raises(openai.BadRequestError):
        await client.responses.create(
            model="approval",
            previous_response_id=final.id,
            input=answer([by_reviewer["manager"]], "approve"),
            metadata=PARALLEL,
        )
    resumed = await client.responses.create(
        model="approval",
        previous_response_id=final.id,
        input=answer(
            [by_reviewer["manager"], by_reviewer["finance"]],
            "approve",
            "Only refund half.",
        ),
        metadata=PARALLEL,
        stream=True,
    )
    text = "".join(
        [e.delta async for e in resumed if e.type == "response.output_text.delta"]
    )
    assert "**Approved with instructions.**" in text
    assert "finance: “Only refund half.”" in text


async def test_rejection_by_either_reviewer_rejects(client: AsyncOpenAI) -> None:
    paused = await client.responses.create(
        model="approval", input=REQUEST, metadata=PARALLEL
    )
    calls = interrupts(paused)
    done = await client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=answer(calls, "approve", "reject"),
        metadata=PARALLEL,
    )
    assert done.output_text.startswith("**Rejected.**")
    # The run is over: answering again conflicts.
    with pytest.raises(openai.ConflictError):
        await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answer(calls, "approve", "approve"),
            metadata=PARALLEL,
        )


async def test_chat_completions_reject_the_interrupt_graph(
    client: AsyncOpenAI,
) -> None:
    with pytest.raises(openai.BadRequestError):
        await client.chat.completions.create(
            model="approval", messages=[{"role": "user", "content": REQUEST}]
        )


def test_classify_and_the_offline_outcome() -> None:
    assert classify(" APPROVE ") == "approve"
    assert classify("reject") == "reject"
    assert classify("approve, but only half") == "instructions"
    assert ApprovalSettings().parallel_review is False
    graph = build_approval_graph(OfflineChatModel(responder=approval_responder))
    assert set(graph.get_graph().nodes) >= {"review", "decide"}
    # Without the decide prompt the responder falls back to the default.
    assert "offline demo model" in str(approval_responder([], [], None))
