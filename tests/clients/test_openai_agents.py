"""The OpenAI Agents SDK, unmodified, against the running demo API over HTTP.

Both of its OpenAI models, built on an ``AsyncOpenAI`` client pointed at the
demo: ``OpenAIResponsesModel`` and ``OpenAIChatCompletionsModel``.

How the SDK's idioms map onto LGOS:

- An LGOS interrupt is a ``function_call`` named ``lgos_interrupt``. Give the
  agent a ``function_tool`` of that name and run with
  ``auto_previous_response_id=True``: the SDK then resumes with
  ``previous_response_id`` and only the ``function_call_output``, exactly as
  LGOS requires. With ``needs_approval=True`` the pause becomes the SDK's own
  human-in-the-loop interruption (``result.interruptions``, a serialisable
  ``RunState``, ``approve`` / ``reject(rejection_message=...)``).
- ``final_output`` is the text of the run's last message, which is the
  ``final_answer``; commentary arrives as earlier ``MessageOutputItem``s
  (streamed runs only) whose ``raw_item.phase`` is ``"commentary"``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import openai
import pytest
from agents import (
    Agent,
    ItemHelpers,
    MessageOutputItem,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    RunState,
    ToolCallItem,
    ToolCallOutputItem,
    function_tool,
)
from openai import AsyncOpenAI

import tests.clients.matrix as m
from tests.clients.guards import Wire

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("offline_only")]

KINDS = ["responses", "chat"]
MODELS = {"responses": OpenAIResponsesModel, "chat": OpenAIChatCompletionsModel}
INSTRUCTIONS = "Answer in one paragraph."

NewAgent = Callable[..., Agent]
"""``new_agent(kind, graph, **options)``: an agent on a demo graph."""


@pytest.fixture
def new_agent(async_openai_client: AsyncOpenAI) -> NewAgent:
    """Agents on the SDK's ``kind`` model (a key of ``MODELS``) of a demo graph."""

    def build(kind: str, graph: str, **options: Any) -> Agent:
        model = MODELS[kind](model=graph, openai_client=async_openai_client)
        return Agent(name="matrix", model=model, **options)

    return build


async def run_to_end(
    agent: Agent, prompt: Any, *, streamed: bool, **options: Any
) -> Any:
    """``Runner.run``, or ``Runner.run_streamed`` with every event consumed."""
    if not streamed:
        return await Runner.run(agent, prompt, **options)
    result = Runner.run_streamed(agent, prompt, **options)
    async for _ in result.stream_events():
        pass
    return result


def time_tool(calls: list[str]) -> Any:
    @function_tool(
        name_override=m.TIME_FUNCTION, description_override=m.TIME_DESCRIPTION
    )
    def get_current_time(timezone: str) -> str:
        calls.append(timezone)
        return m.TIME_RESULT

    return get_current_time


@function_tool(name_override=m.INTERRUPT_FUNCTION, needs_approval=True)
def ask_a_human(question: str, choices: list[str]) -> str:
    """A question the graph asks; approving the call answers its first choice."""
    return choices[0]


@function_tool(name_override=m.INTERRUPT_FUNCTION)
def approve_everything(question: str, choices: list[str]) -> str:
    """A question the graph asks, answered at once."""
    return "approve"


def messages_of(items: list[Any]) -> list[tuple[str | None, str]]:
    return [
        (item.raw_item.phase, ItemHelpers.text_message_output(item))
        for item in items
        if isinstance(item, MessageOutputItem)
    ]


@pytest.mark.parametrize("kind", KINDS)
async def test_runner_run(kind: str, new_agent: NewAgent) -> None:
    agent = new_agent(kind, "chat", instructions=INSTRUCTIONS)
    result = await Runner.run(agent, m.CHAT_PROMPT)
    assert result.final_output == m.chat_answer(m.CHAT_PROMPT, INSTRUCTIONS)
    [item] = result.new_items
    assert isinstance(item, MessageOutputItem)
    if kind == "responses":
        assert m.RESPONSE_ID.fullmatch(result.last_response_id or "")
        assert item.raw_item.phase == "final_answer"


@pytest.mark.parametrize("kind", KINDS)
async def test_runner_run_streamed(kind: str, new_agent: NewAgent) -> None:
    agent = new_agent(kind, "chat", instructions=INSTRUCTIONS)
    result = Runner.run_streamed(agent, m.CHAT_PROMPT)
    deltas, raw_types, run_items = [], [], []
    async for event in result.stream_events():
        if event.type == "raw_response_event":
            raw_types.append(event.data.type)
            if event.data.type == "response.output_text.delta":
                deltas.append(event.data.delta)
        elif event.type == "run_item_stream_event":
            run_items.append(event.name)
    assert len(deltas) > 1
    assert (
        "".join(deltas)
        == result.final_output
        == m.chat_answer(m.CHAT_PROMPT, INSTRUCTIONS)
    )
    assert raw_types[0] == "response.created"
    assert raw_types[-1] == "response.completed"
    assert run_items == ["message_output_created"]


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("kind", KINDS)
async def test_function_tool(kind: str, streamed: bool, new_agent: NewAgent) -> None:
    calls: list[str] = []
    agent = new_agent(kind, "functions", tools=[time_tool(calls)])
    result = await run_to_end(agent, m.TIME_PROMPT, streamed=streamed)
    assert result.final_output == m.TIME_ANSWER
    assert calls == [m.TIME_ARGS["timezone"]]
    call, output, answer = result.new_items
    assert isinstance(call, ToolCallItem)
    assert isinstance(output, ToolCallOutputItem)
    assert isinstance(answer, MessageOutputItem)
    raw = call.raw_item
    assert (raw.name, raw.call_id, json.loads(raw.arguments)) == (  # type: ignore[union-attr]
        m.TIME_FUNCTION,
        m.TIME_CALL_ID,
        m.TIME_ARGS,
    )
    assert output.output == m.TIME_RESULT


async def test_interrupt_as_a_human_approval(new_agent: NewAgent, wire: Wire) -> None:
    """The SDK's documented human-in-the-loop flow, resumed from saved state."""
    agent = new_agent("responses", "approval", tools=[ask_a_human])
    for decide, expected in [("approve", m.APPROVED), ("reject", m.REJECTED)]:
        paused = await Runner.run(
            agent, m.REFUND_PROMPT, auto_previous_response_id=True
        )
        assert paused.final_output is None
        assert m.RUN_RESPONSE_ID.fullmatch(paused.last_response_id or "")
        [pending] = paused.interruptions
        assert pending.tool_name == m.INTERRUPT_FUNCTION
        assert json.loads(pending.raw_item.arguments) == m.REFUND_INTERRUPT  # type: ignore[union-attr]
        call_id = pending.raw_item.call_id  # type: ignore[union-attr]
        assert m.INTERRUPT_CALL_ID.fullmatch(call_id)

        # As if in another process: the saved state, then the human's decision.
        state = await RunState.from_string(agent, paused.to_state().to_string())
        [pending] = state.get_interruptions()
        if decide == "approve":
            state.approve(pending)
        else:
            state.reject(pending, rejection_message="reject")
        done = await Runner.run(agent, state)
        assert done.final_output == expected

        resume = wire.bodies("/responses")[-1]
        assert resume["previous_response_id"] == paused.last_response_id
        assert resume["input"] == [
            {"call_id": call_id, "output": decide, "type": "function_call_output"}
        ]


async def test_interrupt_answered_by_a_tool_streamed(new_agent: NewAgent) -> None:
    agent = new_agent("responses", "approval", tools=[approve_everything])
    result = await run_to_end(
        agent, m.REFUND_PROMPT, streamed=True, auto_previous_response_id=True
    )
    assert result.final_output == m.APPROVED
    kinds = [type(item).__name__ for item in result.new_items]
    assert kinds == ["ToolCallItem", "ToolCallOutputItem", "MessageOutputItem"]


async def test_interrupt_resume_with_agent_instructions(new_agent: NewAgent) -> None:
    """Most agents have instructions, and the SDK sends them on every request.

    OpenAI does not carry instructions over a ``previous_response_id``, so the
    SDK resends the same instructions with the resume; LGOS should accept
    unchanged instructions there.
    """
    agent = new_agent(
        "responses", "approval", instructions=INSTRUCTIONS, tools=[approve_everything]
    )
    result = await Runner.run(agent, m.REFUND_PROMPT, auto_previous_response_id=True)
    assert result.final_output == m.APPROVED


async def test_an_interrupt_without_auto_mode_is_refused_at_once(
    new_agent: NewAgent, wire: Wire
) -> None:
    """Without ``auto_previous_response_id`` the SDK replays the answered call.

    LGOS would start the operation afresh and ask again, until the SDK's
    ``MaxTurnsExceeded``; instead the replay is refused on the first try with
    ``param: "previous_response_id"``, which names the missing setting.
    """
    agent = new_agent("responses", "approval", tools=[approve_everything])
    with pytest.raises(openai.BadRequestError) as refused:
        await Runner.run(agent, m.REFUND_PROMPT)
    assert refused.value.param == "previous_response_id"
    assert "answers an interrupt (lgos_interrupt)" in refused.value.message
    assert len(wire.bodies("/responses")) == 2  # the pause, then the refusal


async def test_auto_previous_response_id_is_for_interrupts_only(
    new_agent: NewAgent,
) -> None:
    """LGOS keeps no conversation: ``previous_response_id`` only resumes a pause.

    With ``auto_previous_response_id=True`` on a function round trip the SDK
    chains the result to a Response LGOS never stored; LGOS refuses it as
    documented (run such agents without it: the SDK then resends the ledger).
    """
    agent = new_agent("responses", "functions", tools=[time_tool([])])
    with pytest.raises(openai.BadRequestError) as refused:
        await Runner.run(agent, m.TIME_PROMPT, auto_previous_response_id=True)
    assert (refused.value.param, refused.value.body["message"]) == (  # type: ignore[index]
        "previous_response_id",
        m.NOT_A_PAUSED_RESPONSE,
    )


async def test_interrupt_is_refused_on_the_chat_completions_model(
    new_agent: NewAgent,
) -> None:
    agent = new_agent("chat", "approval", tools=[approve_everything])
    with pytest.raises(openai.BadRequestError) as refused:
        await Runner.run(agent, m.REFUND_PROMPT)
    assert (refused.value.status_code, refused.value.param) == (400, "model")
    assert refused.value.body["message"] == m.CHAT_INTERRUPTS_REFUSED  # type: ignore[index]


async def test_commentary(new_agent: NewAgent) -> None:
    agent = new_agent(
        "responses", "writer", model_settings=ModelSettings(metadata=m.WRITER_SETTINGS)
    )
    result = Runner.run_streamed(agent, m.WRITER_PROMPT)
    live = []
    async for event in result.stream_events():
        if (
            event.type == "run_item_stream_event"
            and event.name == "message_output_created"
        ):
            live.append(messages_of([event.item])[0])
    expected = [
        *(("commentary", text) for text in m.WRITER_COMMENTARY),
        ("final_answer", m.WRITER_ANSWER),
    ]
    assert live == messages_of(result.new_items) == expected
    # final_output is the last message: the final answer, commentary left out.
    assert result.final_output == m.WRITER_ANSWER
    # ItemHelpers.text_message_outputs glues every message together.
    assert ItemHelpers.text_message_outputs(result.new_items) == m.WRITER_GLUED
    final = [
        item
        for item in result.new_items
        if isinstance(item, MessageOutputItem) and item.raw_item.phase == "final_answer"
    ]
    assert ItemHelpers.text_message_outputs(final) == m.WRITER_ANSWER  # type: ignore[arg-type]

    # The next turn replays the commentary items (with their phase) as input.
    follow_up = new_agent("responses", "chat")
    again = await Runner.run(
        follow_up,
        [*result.to_input_list(), {"role": "user", "content": m.CHAT_PROMPT}],
    )
    assert again.final_output == m.chat_answer()

    # Not streamed, a Response holds the final answer only.
    plain = await Runner.run(agent, m.WRITER_PROMPT)
    assert messages_of(plain.new_items) == [("final_answer", m.WRITER_ANSWER)]


async def test_commentary_is_not_sent_to_the_chat_completions_model(
    new_agent: NewAgent,
) -> None:
    agent = new_agent("chat", "writer")
    result = await run_to_end(agent, m.WRITER_PROMPT, streamed=True)
    assert result.final_output == m.WRITER_ANSWER
    assert [ItemHelpers.text_message_output(i) for i in result.new_items] == [
        m.WRITER_ANSWER
    ]


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("kind", KINDS)
async def test_citations(kind: str, streamed: bool, new_agent: NewAgent) -> None:
    agent = new_agent(kind, "citations")
    result = await run_to_end(agent, m.CITATIONS_PROMPT, streamed=streamed)
    assert result.final_output == m.CITATIONS_ANSWER
    *progress, answer = result.new_items
    if kind == "responses" and streamed:
        assert [text for _, text in messages_of(progress)] == m.CITATIONS_COMMENTARY
    else:
        assert progress == []
    [part] = answer.raw_item.content
    assert m.cited(part.text, part.annotations) == m.CITATIONS


@pytest.mark.parametrize("kind", KINDS)
async def test_unknown_model(kind: str, new_agent: NewAgent) -> None:
    agent = new_agent(kind, "missing")
    with pytest.raises(openai.NotFoundError) as missing:
        await Runner.run(agent, m.CHAT_PROMPT)
    assert (missing.value.code, missing.value.param) == ("model_not_found", "model")


async def test_wire_fields(new_agent: NewAgent, wire: Wire) -> None:
    """Every field the SDK sends, for both models, run and run_streamed."""
    for kind in KINDS:
        agent = new_agent(
            kind, "functions", instructions=INSTRUCTIONS, tools=[time_tool([])]
        )
        assert (await Runner.run(agent, m.TIME_PROMPT)).final_output == m.TIME_ANSWER
        streamed = await run_to_end(agent, m.TIME_PROMPT, streamed=True)
        assert streamed.final_output == m.TIME_ANSWER

    responses, chat = wire.bodies("/responses"), wire.bodies("/chat/completions")
    assert [sorted(body) for body in responses] == 2 * [
        ["include", "input", "instructions", "model", "tools"]
    ] + 2 * [["include", "input", "instructions", "model", "stream", "tools"]]
    assert {json.dumps(body["include"]) for body in responses} == {"[]"}
    assert [sorted(body) for body in chat] == 2 * [
        ["messages", "model", "tools"]
    ] + 2 * [["messages", "model", "stream", "tools"]]
    assert [len(body["input"]) for body in responses] == [1, 3, 1, 3]
    assert [len(body["messages"]) for body in chat] == [2, 4, 2, 4]
