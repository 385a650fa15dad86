"""The UI's conversation logic against the real demo API, in-process.

No browser and no Chainlit context: :class:`Conversation` drives the offline
demo graphs through the OpenAI SDK and ``httpx.ASGITransport``, over several
turns, so the ledger it replays is checked by LGOS itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from openai import AsyncOpenAI

from lgos_chainlit.ledger import Conversation
from lgos_chainlit.model_catalog import (
    load_session,
)
from lgos_chainlit.rendering import render_response
from lgos_chainlit.session import (
    chat_profiles_for,
)
from lgos_chainlit.turn_listener import FunctionRunner, TurnListener
from lgos_client.functions import FunctionCall

pytestmark = pytest.mark.anyio


@pytest.fixture
def client(demo_client: AsyncOpenAI) -> AsyncOpenAI:
    """The OpenAI SDK on the in-process offline demo (root conftest)."""
    return demo_client


class Steps(TurnListener):
    def __init__(self) -> None:
        self.commentary: list[str] = []
        self.calls: list[tuple[str, dict]] = []
        self.text = ""

    async def on_commentary_done(self, item_id: str, text: str) -> None:
        self.commentary.append(text)

    async def on_text(self, text: str) -> None:
        self.text += text

    async def run_function(
        self, call: FunctionCall, run: FunctionRunner
    ) -> tuple[str, bool]:
        output, ok = await run()
        assert ok, output
        self.calls.append((call.name, json.loads(output)))
        return output, ok

    async def on_calls_not_run(
        self, calls: Sequence[FunctionCall], reason: str
    ) -> None:
        raise AssertionError(reason)


async def test_function_loop_over_two_turns(client: AsyncOpenAI) -> None:
    session = await load_session(client, "functions")
    assert [f.name for f in session.functions] == ["get_current_time", "roll_dice"]
    steps = Steps()

    first = await session.conversation.ask(
        client,
        "What time is it in Tokyo, and roll two dice?",
        metadata=session.request_metadata(),
        listener=steps,
        functions=session.functions,
    )

    assert first.status == "completed"
    assert [name for name, _ in steps.calls] == ["get_current_time", "roll_dice"]
    dice = steps.calls[1][1]
    assert f"total: {dice['total']}" in first.answer
    assert steps.text == first.answer

    # The replayed ledger (calls, outputs, answer) is accepted on the next turn.
    second = await session.conversation.ask(
        client, "Roll 3 dice with 20 sides", listener=steps, functions=session.functions
    )
    assert second.status == "completed"
    assert steps.calls[2][0] == "roll_dice"
    assert len(steps.calls[2][1]["rolls"]) == 3
    kinds = [item.get("type", "message") for item in session.conversation.items]
    assert kinds.count("function_call") == kinds.count("function_call_output") == 3


async def test_commentary_and_citations_over_two_turns(client: AsyncOpenAI) -> None:
    steps = Steps()
    chat = Conversation(model="citations")

    first = await chat.ask(
        client, "Compare Chat Completions and the Responses API", listener=steps
    )
    refused = await chat.ask(client, "What is the capital of France?", listener=steps)

    assert steps.commentary[:2] == [
        "Searching 7 bundled passages",
        "Found 2 passages: OpenAI Chat Completions; OpenAI Responses API",
    ]
    assert not any(note in first.answer for note in steps.commentary)
    rendered = render_response(first.answer_parts)
    assert "**Sources**" in rendered
    assert (
        "[\\[2\\]](https://platform.openai.com/docs/api-reference/responses" in rendered
    )
    assert refused.refusal.startswith("I can only answer from my bundled passages")
    assert refused.answer == ""
    # Commentary stays in the ledger, unchanged, and LGOS accepts the replay.
    phases = [
        item.get("phase") for item in chat.items if item.get("role") == "assistant"
    ]
    assert phases.count("commentary") == 4
    assert phases.count("final_answer") == 2


async def test_only_models_taking_files_offer_attachments(client: AsyncOpenAI) -> None:
    """Each demo model's chat profile turns Chainlit's attachments on or off.

    The page reads the selected profile's config (``/project/settings``),
    which Chainlit merges from ``config_overrides`` exactly like this.
    """
    from chainlit.config import config

    uploads = config.features.spontaneous_file_upload
    assert uploads is not None and uploads.enabled  # the global config takes files
    profiles = chat_profiles_for([model async for model in client.models.list()])
    offered = {}
    for profile in profiles:
        merged = config.with_overrides(profile.config_overrides)
        profile_uploads = merged.features.spontaneous_file_upload
        assert profile_uploads is not None
        offered[profile.name] = bool(profile_uploads.enabled)
        session = await load_session(client, profile.name)
        assert offered[profile.name] is session.accepts_files, profile.name
        # Only the switch differs: types and sizes stay the configured ones.
        assert profile_uploads.accept == uploads.accept
        assert profile_uploads.max_files == uploads.max_files
        assert profile_uploads.max_size_mb == uploads.max_size_mb
        assert merged.features.edit_message == config.features.edit_message
    assert {name for name, on in offered.items() if on} == {"files", "deep-research"}
    assert offered["chat"] is False
