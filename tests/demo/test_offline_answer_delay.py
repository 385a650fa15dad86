"""`DEMO_API_OFFLINE_ANSWER_DELAY`: the offline model's latency for calls that
are not streamed (a background run's model calls), 0 by default."""

from __future__ import annotations

import asyncio
import time

import pytest
from langchain_core.messages import HumanMessage
from pydantic import ValidationError

from lgos_demo_api.graphs.deep_research_offline import offline_research_model
from lgos_demo_api.models import chat_model
from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.settings import DemoApiSettings


def test_the_default_answers_at_once() -> None:
    settings = DemoApiSettings(_env_file=None)
    assert settings.offline_answer_delay == 0.0
    model = chat_model(settings)
    assert isinstance(model, OfflineChatModel)
    assert model.answer_delay == 0.0


def test_the_setting_reaches_the_models_and_is_never_negative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEMO_API_OFFLINE_ANSWER_DELAY", "1.5")
    settings = DemoApiSettings(_env_file=None)
    model = chat_model(settings)
    assert isinstance(model, OfflineChatModel)
    assert model.answer_delay == 1.5
    assert offline_research_model(answer_delay=1.5).answer_delay == 1.5
    monkeypatch.setenv("DEMO_API_OFFLINE_ANSWER_DELAY", "-1")
    with pytest.raises(ValidationError):
        DemoApiSettings(_env_file=None)


def test_an_unstreamed_call_waits_and_a_streamed_one_does_not() -> None:
    model = OfflineChatModel(answer_delay=0.2)
    question = [HumanMessage("What is a graph?")]

    async def calls() -> tuple[float, float, str, str]:
        start = time.monotonic()
        answer = await model.ainvoke(question)
        waited = time.monotonic() - start
        start = time.monotonic()
        streamed = "".join(
            [str(chunk.content) async for chunk in model.astream(question)]
        )
        return waited, time.monotonic() - start, str(answer.content), streamed

    waited, streaming, answer, streamed = asyncio.run(calls())
    assert waited >= 0.2
    assert streaming < 0.2
    assert answer == streamed
    assert answer.startswith("This is the offline demo model.")
