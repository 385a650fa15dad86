"""The Open WebUI pipe through recorded Bifrost v1.4.19, on both routes.

The gateway is ``tests/bifrost/recorded_bifrost.py`` (rules recorded from a
real Bifrost v1.4.19, ``../shared/bifrost/transcripts``) in front of the real
demo API; the pipe is called as Open WebUI calls it (``tests/open_webui``).
The passthrough route gives it every graph's settings; on ``/v1`` the graphs
are ``openai/<graph>`` plain chat models (no settings: the extension is not
listed and model retrieval answers an HTML page), and they still answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import tests.clients.matrix as m
from tests.bifrost.conftest import Bifrost
from tests.open_webui.conftest import lgos_pipe
from tests.open_webui.pipe_events import Events, answered, run

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def bifrost_pipe(base_url: str, tmp_path: Path) -> Any:
    pipe = lgos_pipe.Pipe()
    pipe.valves.LGOS_BASE_URL = base_url
    pipe.valves.LGOS_API_KEY = m.API_KEY
    pipe.valves.STATE_PATH = str(tmp_path / "ledger.sqlite3")
    return pipe


@pytest.fixture
async def passthrough_pipe(bifrost: Bifrost, tmp_path: Path) -> AsyncIterator[Any]:
    pipe = await bifrost_pipe(bifrost.passthrough, tmp_path)
    yield pipe
    await pipe.close()


@pytest.fixture
async def v1_pipe(bifrost: Bifrost, tmp_path: Path) -> AsyncIterator[Any]:
    pipe = await bifrost_pipe(bifrost.v1, tmp_path)
    yield pipe
    await pipe.close()


async def approved_refund(pipe: Any, model: str) -> str:
    """The pipe's text for a refund request whose question is answered approve."""
    events = Events([answered({"type": "option", "label": "approve"})])
    messages = [{"role": "user", "content": m.REFUND_PROMPT}]
    return await run(pipe, model, messages, events, chat_id=f"refund-{model}")


async def test_passthrough_gives_the_pipe_every_setting(passthrough_pipe: Any) -> None:
    models = await passthrough_pipe.discover()
    assert list(models) == m.DEMO_MODELS
    fields = passthrough_pipe.UserValves.model_fields
    assert fields["chat__audience"].default == "general"
    assert fields["deep_research__run_in_background"].default is False
    text = await approved_refund(passthrough_pipe, "approval")
    assert m.APPROVED in text


async def test_v1_models_are_plain_chat_models_that_answer(v1_pipe: Any) -> None:
    models = await v1_pipe.discover()
    assert sorted(models) == sorted(f"openai/{graph}" for graph in m.DEMO_MODELS)
    assert [model.id for model in models.values()] == list(models)
    assert all(
        not model.features and model.client_settings is None
        for model in models.values()
    )
    assert not v1_pipe.specs  # no settings valves without the extension

    text = await run(
        v1_pipe, "openai/chat", [{"role": "user", "content": m.CHAT_PROMPT}], Events()
    )
    assert m.chat_answer() in text
    # The graphs that answer without pausing: each one answers (no error).
    for graph in ("writer", "citations", "functions", "mcp", "server-tools", "files"):
        events = Events()
        messages = [{"role": "user", "content": "What is LangGraph?"}]
        text = await run(v1_pipe, f"openai/{graph}", messages, events, chat_id=graph)
        assert "offline demo model" in text, (graph, text)
        assert not events.calls, graph
    text = await approved_refund(v1_pipe, "openai/approval")
    assert m.APPROVED in text
