"""LangChain's ``ChatOpenAI``, unmodified, against the running demo API over HTTP.

Each cell runs over the Responses API (``use_responses_api=True``) and over
Chat Completions (``False``). How LangChain surfaces LGOS's features:

- Responses content is a list of blocks; each assistant message item becomes
  a ``text`` block carrying its ``id``, ``phase`` and ``annotations``. A
  streamed answer therefore holds the commentary blocks before the
  ``final_answer`` block, and ``AIMessage.text`` joins them all.
- Chat Completions content is a plain string; ``ChatOpenAI`` drops
  ``message.annotations`` (and the streamed ones), so citations are lost there.
- An interrupt is a tool call named ``lgos_interrupt``; resume it with
  ``use_previous_response_id=True`` (ChatOpenAI then sends only the messages
  after the paused ``AIMessage``, with its Response ID) or by passing
  ``previous_response_id=`` to ``invoke``/``stream``.
- OpenAI ``metadata`` (LGOS runtime settings) goes in ``extra_body``; the
  ``metadata`` field of a LangChain model is LangChain's own tracing metadata.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import add
from typing import Any

import openai
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI

import tests.clients.matrix as m
from tests.clients.guards import Wire

pytestmark = pytest.mark.usefixtures("offline_only")

APIS = pytest.mark.parametrize(
    "responses", [True, False], ids=["responses", "chat_completions"]
)


NewChatOpenAI = Callable[..., ChatOpenAI]
"""``chat_openai(graph, responses, **options)``: a ``ChatOpenAI`` on a demo graph."""


@pytest.fixture
def chat_openai(demo_api_url: str) -> NewChatOpenAI:
    """``ChatOpenAI`` on a graph, over Responses (``responses=True``) or Chat."""

    def build(graph: str, responses: bool, **options: Any) -> ChatOpenAI:
        return ChatOpenAI(
            model=graph,
            base_url=demo_api_url,
            api_key=m.API_KEY,  # type: ignore[arg-type]
            use_responses_api=responses,
            max_retries=0,
            **options,
        )

    return build


def get_current_time(timezone: str) -> str:
    """Return the current time in an IANA time zone."""
    return m.TIME_RESULT


def streamed(model: Any, messages: Any) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    chunks = list(model.stream(messages))
    return chunks, reduce(add, chunks)


def text_blocks(message: AIMessage) -> list[dict[str, Any]]:
    return [
        block
        for block in message.content
        if isinstance(block, dict) and block.get("type") == "text"
    ]


def final_answer(message: AIMessage) -> str:
    """The text of the final answer only (Responses content blocks)."""
    return "".join(
        block["text"]
        for block in text_blocks(message)
        if block.get("phase") == "final_answer"
    )


@APIS
def test_invoke(chat_openai: NewChatOpenAI, responses: bool) -> None:
    answer = chat_openai("chat", responses).invoke(
        [("system", "Be brief."), ("user", m.CHAT_PROMPT)]
    )
    assert answer.text == m.chat_answer(m.CHAT_PROMPT, "Be brief.")
    if responses:
        assert m.RESPONSE_ID.fullmatch(answer.response_metadata["id"])
        [block] = text_blocks(answer)
        assert block["phase"] == "final_answer"
        assert m.MESSAGE_ID.fullmatch(block["id"])
    else:
        assert m.CHAT_COMPLETION_ID.fullmatch(answer.response_metadata["id"])
        assert answer.response_metadata["finish_reason"] == "stop"


@APIS
def test_stream(chat_openai: NewChatOpenAI, responses: bool) -> None:
    chunks, whole = streamed(chat_openai("chat", responses), m.CHAT_PROMPT)
    assert len([chunk for chunk in chunks if chunk.text]) > 1
    assert "".join(chunk.text for chunk in chunks) == whole.text == m.chat_answer()


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
@APIS
def test_bind_tools_round_trip(
    chat_openai: NewChatOpenAI, responses: bool, stream: bool
) -> None:
    model = chat_openai("functions", responses).bind_tools([get_current_time])
    question = HumanMessage(m.TIME_PROMPT)
    first = streamed(model, [question])[1] if stream else model.invoke([question])
    assert isinstance(first, AIMessage)
    assert first.tool_calls == [
        {
            "name": m.TIME_FUNCTION,
            "args": m.TIME_ARGS,
            "id": m.TIME_CALL_ID,
            "type": "tool_call",
        }
    ]
    result = ToolMessage(get_current_time(**m.TIME_ARGS), tool_call_id=m.TIME_CALL_ID)
    history = [question, first, result]
    second = streamed(model, history)[1] if stream else model.invoke(history)
    assert second.text == m.TIME_ANSWER


def test_citations_responses(chat_openai: NewChatOpenAI) -> None:
    model = chat_openai("citations", True)
    answer = model.invoke(m.CITATIONS_PROMPT)
    [block] = text_blocks(answer)
    assert (block["phase"], block["text"]) == ("final_answer", m.CITATIONS_ANSWER)
    assert m.cited(block["text"], block["annotations"]) == m.CITATIONS

    # Streamed, the commentary blocks come first; the citations stay on the
    # final answer's block.
    _, whole = streamed(model, m.CITATIONS_PROMPT)
    blocks = text_blocks(whole)
    assert [(b["phase"], b["text"]) for b in blocks] == [
        *(("commentary", text) for text in m.CITATIONS_COMMENTARY),
        ("final_answer", m.CITATIONS_ANSWER),
    ]
    assert m.cited(blocks[-1]["text"], blocks[-1]["annotations"]) == m.CITATIONS


def test_citations_chat_completions_are_dropped(
    chat_openai: NewChatOpenAI, wire: Wire
) -> None:
    """LGOS sends ``message.annotations``; ``ChatOpenAI`` does not keep them."""
    model = chat_openai("citations", False)
    answer = model.invoke(m.CITATIONS_PROMPT)
    _, whole = streamed(model, m.CITATIONS_PROMPT)
    for message in (answer, whole):
        assert message.content == m.CITATIONS_ANSWER
        assert "annotations" not in message.additional_kwargs
        assert "annotations" not in message.response_metadata
    assert len(wire.bodies("/chat/completions")) == 2


def test_commentary(chat_openai: NewChatOpenAI, wire: Wire) -> None:
    model = chat_openai("writer", True, extra_body={"metadata": m.WRITER_SETTINGS})
    chunks, whole = streamed(model, m.WRITER_PROMPT)
    assert [(b["phase"], b["text"]) for b in text_blocks(whole)] == [
        *(("commentary", text) for text in m.WRITER_COMMENTARY),
        ("final_answer", m.WRITER_ANSWER),
    ]
    # AIMessage.text (and so every chunk's text) joins commentary and answer.
    assert whole.text == "".join(c.text for c in chunks) == m.WRITER_GLUED
    assert final_answer(whole) == m.WRITER_ANSWER

    # Not streamed, the Response holds the final answer only.
    assert model.invoke(m.WRITER_PROMPT).text == m.WRITER_ANSWER
    assert {
        body["metadata"]["lgos_settings"] for body in wire.bodies("/responses")
    } == {m.WRITER_SETTINGS["lgos_settings"]}

    # The next turn replays the commentary blocks, phase and all.
    follow_up = chat_openai("chat", True).invoke(
        [HumanMessage(m.WRITER_PROMPT), whole, HumanMessage(m.CHAT_PROMPT)]
    )
    assert follow_up.text == m.chat_answer()
    replayed = wire.bodies("/responses")[-1]["input"]
    assert [item.get("phase") for item in replayed] == [
        None,
        *(len(m.WRITER_COMMENTARY) * ["commentary"]),
        "final_answer",
        None,
    ]


def test_commentary_is_not_sent_over_chat_completions(
    chat_openai: NewChatOpenAI,
) -> None:
    _, whole = streamed(chat_openai("writer", False), m.WRITER_PROMPT)
    assert whole.content == m.WRITER_ANSWER


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
def test_interrupt_resumed_with_use_previous_response_id(
    chat_openai: NewChatOpenAI, stream: bool
) -> None:
    model = chat_openai("approval", True, use_previous_response_id=True)
    request = HumanMessage(m.REFUND_PROMPT)
    paused = model.invoke([request])
    assert m.RUN_RESPONSE_ID.fullmatch(paused.response_metadata["id"])
    [call] = paused.tool_calls
    assert (call["name"], call["args"]) == (m.INTERRUPT_FUNCTION, m.REFUND_INTERRUPT)
    assert m.INTERRUPT_CALL_ID.fullmatch(call["id"] or "")

    history = [request, paused, ToolMessage("approve", tool_call_id=call["id"])]
    done = streamed(model, history)[1] if stream else model.invoke(history)
    assert done.text == m.APPROVED


def test_interrupt_resumed_with_previous_response_id(
    chat_openai: NewChatOpenAI, wire: Wire
) -> None:
    model = chat_openai("approval", True)
    paused = model.invoke(m.REFUND_PROMPT)
    [call] = paused.tool_calls
    done = model.invoke(
        [ToolMessage("reject", tool_call_id=call["id"])],
        previous_response_id=paused.response_metadata["id"],
    )
    assert done.text == m.REJECTED
    resume = wire.bodies("/responses")[-1]
    assert resume == {
        "model": "approval",
        "stream": False,
        "input": [
            {"type": "function_call_output", "output": "reject", "call_id": call["id"]}
        ],
        "previous_response_id": paused.response_metadata["id"],
    }


def test_use_previous_response_id_is_for_interrupts_only(
    chat_openai: NewChatOpenAI,
) -> None:
    """LGOS keeps no conversation: ``previous_response_id`` only resumes a pause.

    With ``use_previous_response_id=True`` on any other graph, ChatOpenAI
    chains the next turn (here a function result) to a Response LGOS never
    stored, and LGOS refuses it as documented.
    """
    model = chat_openai("functions", True, use_previous_response_id=True)
    bound = model.bind_tools([get_current_time])
    question = HumanMessage(m.TIME_PROMPT)
    first = bound.invoke([question])
    result = ToolMessage(m.TIME_RESULT, tool_call_id=m.TIME_CALL_ID)
    with pytest.raises(openai.BadRequestError) as refused:
        bound.invoke([question, first, result])
    assert (refused.value.param, refused.value.body["message"]) == (  # type: ignore[index]
        "previous_response_id",
        m.NOT_A_PAUSED_RESPONSE,
    )


def test_interrupt_is_refused_over_chat_completions(chat_openai: NewChatOpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        chat_openai("approval", False).invoke(m.REFUND_PROMPT)
    assert (refused.value.status_code, refused.value.param) == (400, "model")
    assert refused.value.body["message"] == m.CHAT_INTERRUPTS_REFUSED  # type: ignore[index]


@APIS
def test_unknown_model(chat_openai: NewChatOpenAI, responses: bool) -> None:
    with pytest.raises(openai.NotFoundError) as missing:
        chat_openai("missing", responses).invoke(m.CHAT_PROMPT)
    assert (missing.value.code, missing.value.param) == ("model_not_found", "model")


def test_wire_fields(chat_openai: NewChatOpenAI, wire: Wire) -> None:
    """Every field ChatOpenAI sends, on both APIs, invoked and streamed."""
    for responses in (True, False):
        model = chat_openai("functions", responses).bind_tools([get_current_time])
        model.invoke(m.TIME_PROMPT)
        streamed(model, m.TIME_PROMPT)
    assert [sorted(body) for body in wire.bodies("/responses")] == 2 * [
        ["input", "model", "stream", "tools"]
    ]
    assert [sorted(body) for body in wire.bodies("/chat/completions")] == 2 * [
        ["messages", "model", "stream", "tools"]
    ]
    assert [b["stream"] for b in wire.bodies("/responses")] == [False, True]
    assert [b["stream"] for b in wire.bodies("/chat/completions")] == [False, True]
    assert wire.bodies("/responses")[0]["input"] == [
        {"content": m.TIME_PROMPT, "role": "user", "type": "message"}
    ]
    assert wire.bodies("/chat/completions")[0]["messages"] == [
        {"content": m.TIME_PROMPT, "role": "user"}
    ]
