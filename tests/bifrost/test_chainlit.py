"""The Chainlit UI's code through recorded Bifrost v1.4.19, on both routes.

The gateway is ``tests/bifrost/recorded_bifrost.py`` (rules recorded from a
real Bifrost v1.4.19, ``../shared/bifrost/transcripts``) in front of the real
demo API. No browser: the UI's discovery (:mod:`lgos_chainlit.model_catalog`),
its session and its conversation ledger drive the graphs as the chat does.

- The passthrough route (``just demo --bifrost``'s default) keeps every
  feature: the extension, commentary, background runs and their polling.
- On ``/v1`` every graph still chats, under the limited-functionality notice:
  the extension is not listed, model retrieval is not routed, commentary
  arrives without its ``phase`` and reads as part of the answer.
- Errors, wrapped by ``/v1`` or sent as ``text/plain`` by the passthrough
  route, read as LGOS wrote them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import openai
import pytest
from openai import AsyncOpenAI

import tests.clients.matrix as m
from lgos_chainlit.ledger import Conversation
from lgos_chainlit.model_catalog import (
    UNROUTED_RETRIEVE,
    discover_models,
    load_session,
)
from lgos_chainlit.session import ChatSession
from lgos_chainlit.turn_listener import TurnListener
from lgos_chainlit.turn_result import TurnResult
from lgos_client.api_errors import api_error_code, format_api_error
from tests.bifrost.conftest import Bifrost

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

PROMPTS = {
    "chat": m.CHAT_PROMPT,
    "writer": m.WRITER_PROMPT,
    "citations": m.CITATIONS_PROMPT,
    "functions": m.TIME_PROMPT,
    "mcp": "What tools do you have?",
    "server-tools": "Search the web for LangGraph",
    "files": "What is in my file?",
    "approval": m.REFUND_PROMPT,
    "deep-research": "Compare how LangGraph and the OpenAI Agents SDK pause.",
}


def sdk(base_url: str) -> AsyncOpenAI:
    """The UI's SDK client for one of Bifrost's routes (no retries)."""
    return AsyncOpenAI(base_url=base_url, api_key=m.API_KEY, max_retries=0)


@pytest.fixture
async def v1(bifrost: Bifrost) -> AsyncIterator[AsyncOpenAI]:
    async with sdk(bifrost.v1) as client:
        yield client


@pytest.fixture
async def passthrough(bifrost: Bifrost) -> AsyncIterator[AsyncOpenAI]:
    async with sdk(bifrost.passthrough) as client:
        yield client


class Commentary(TurnListener):
    """Collects the commentary the UI shows as progress steps."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    async def on_commentary_done(self, item_id: str, text: str) -> None:
        self.notes.append(text)


async def finish(
    session: ChatSession, client: AsyncOpenAI, result: TurnResult
) -> TurnResult:
    """Answer every pause of the turn with its first choice, as a click would."""
    while result.paused:
        pending = session.conversation.pending
        assert pending is not None
        while (question := pending.next_question()) is not None:
            choice = (question.choices or ["approve"])[0]
            pending.record(question.call_id, choice)
        result = await session.conversation.resume(client)
    return result


async def test_passthrough_keeps_every_feature(passthrough: AsyncOpenAI) -> None:
    models = await discover_models(passthrough)
    assert [model.model_id for model in models] == m.DEMO_MODELS
    assert not any(model.limited for model in models)

    writer = await load_session(passthrough, "writer")
    assert writer.notice is None
    writer.update_settings({"pace": 0})
    steps = Commentary()
    result = await writer.conversation.ask(
        passthrough,
        m.WRITER_PROMPT,
        metadata=writer.request_metadata(),
        listener=steps,
    )
    assert steps.notes == m.WRITER_COMMENTARY
    assert result.answer == m.WRITER_ANSWER

    research = await load_session(passthrough, "deep-research")
    assert research.offers_background
    research.update_settings({"review_plan": False, "lgos_background": True})
    polled = await research.conversation.ask(
        passthrough,
        PROMPTS["deep-research"],
        metadata=research.request_metadata(),
        background=research.runs_in_background,
        poll_interval=0.05,
    )
    assert polled.status == "completed", polled.error
    assert m.RUN_RESPONSE_ID.fullmatch(polled.response_id or "")
    assert polled.answer


async def test_v1_chats_with_every_graph_under_the_notice(v1: AsyncOpenAI) -> None:
    models = await discover_models(v1)
    assert sorted(model.model_id for model in models) == sorted(
        f"openai/{graph}" for graph in m.DEMO_MODELS
    )
    assert all(model.limited for model in models)

    answers: dict[str, TurnResult] = {}
    for model in models:
        session = await load_session(v1, model.model_id)
        assert session.capabilities.limitation == UNROUTED_RETRIEVE
        assert session.notice is not None and "Limited functionality" in session.notice
        assert not session.offers_background and session.widgets == []
        graph = model.model_id.removeprefix("openai/")
        result = await session.conversation.ask(
            v1, PROMPTS[graph], metadata=session.request_metadata()
        )
        result = await finish(session, v1, result)
        assert result.status == "completed", (graph, result.error)
        answers[graph] = result

    assert answers["chat"].answer == m.chat_answer()
    assert answers["approval"].answer == m.APPROVED
    # Commentary comes without its phase: the UI shows it inside the answer.
    assert answers["writer"].commentary == []
    assert answers["writer"].answer == m.WRITER_GLUED
    assert answers["deep-research"].answer


@pytest.mark.parametrize("route", ["v1", "passthrough"])
async def test_errors_read_as_lgos_wrote_them(
    route: str, v1: AsyncOpenAI, passthrough: AsyncOpenAI, demo_api_url: str
) -> None:
    client, prefix = (v1, "openai/") if route == "v1" else (passthrough, "")
    body = {"model": "writer", "input": "hi", "temperature": 1.5}
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{demo_api_url}/responses", json=body)
    direct = answer.json()["error"]
    with pytest.raises(openai.BadRequestError) as refused:
        await client.responses.create(
            model=f"{prefix}writer", input="hi", temperature=1.5
        )
    assert format_api_error(refused.value) == (
        f"HTTP 400: {direct['message']} "
        "(code: unsupported_parameter, param: temperature)"
    )
    assert api_error_code(refused.value) == "unsupported_parameter"

    # In a chat: the turn's error names LGOS's message and code.
    chat = Conversation(model=f"{prefix}approval")
    failed = await chat.ask(
        client,
        m.REFUND_PROMPT,
        metadata={"lgos_settings": '{"no_such_setting": 1}'},
    )
    assert failed.status == "error"
    assert failed.http_status == 400
    assert failed.error is not None and "no_such_setting" in failed.error
    assert "param: metadata.lgos_settings" in failed.error
