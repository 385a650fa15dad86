"""The Open WebUI pipe through the real LiteLLM gateway (``just demo --gateway``).

The pipe points at the gateway (``LGOS_BASE_URL`` the proxy's ``/v1``, its
master key) with ``DISCOVERY=litellm``: the models and their settings come
from LiteLLM's ``GET /model/info`` (``model_info.lgos``), and every request
goes through the proxy to the session's demo API. No Open WebUI here: the
pipe is called as Open WebUI calls it (see ``tests/open_webui``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.gateway.conftest import MASTER_KEY, Gateway
from tests.open_webui.conftest import lgos_pipe
from tests.open_webui.pipe_events import Events, answered, run

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(300)]


@pytest.fixture
async def gateway_pipe(gateway: Gateway, tmp_path: Path) -> AsyncIterator[Any]:
    pipe = lgos_pipe.Pipe()
    pipe.valves.LGOS_BASE_URL = gateway.openai_base_url
    pipe.valves.LGOS_API_KEY = MASTER_KEY
    pipe.valves.DISCOVERY = "litellm"
    pipe.valves.STATE_PATH = str(tmp_path / "ledger.sqlite3")
    yield pipe
    await pipe.close()


async def test_models_and_settings_come_from_model_info(gateway_pipe: Any) -> None:
    models = await gateway_pipe.discover()
    assert {"chat", "approval", "citations", "deep-research", "files"} <= set(models)
    assert "file_inputs" in models["files"].features
    fields = gateway_pipe.UserValves.model_fields
    assert fields["chat__audience"].default == "general"
    assert fields["deep_research__review_plan"].default is True
    assert fields["deep_research__run_in_background"].default is False
    assert [entry["id"] for entry in await gateway_pipe.pipes()] == list(models)


async def test_citations_and_an_answered_question_through_the_gateway(
    gateway_pipe: Any,
) -> None:
    events = Events()
    text = await run(
        gateway_pipe,
        "citations",
        [{"role": "user", "content": "what is langgraph?"}],
        events,
    )
    assert "[1]" in text
    assert len(events.of("source")) == 3

    events = Events([answered({"type": "option", "label": "approve"})])
    text = await run(
        gateway_pipe,
        "approval",
        [{"role": "user", "content": "refund 30 dollars"}],
        events,
        chat_id="chat-2",
    )
    (request,) = events.calls
    assert request["type"] == "request:user_input"
    assert "approved" in text.lower()
    assert gateway_pipe.store().pause("chat-2") is None
