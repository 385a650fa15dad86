"""The OpenAI JS SDK through recorded Bifrost v1.4.19, on both of its routes.

Each test runs a cell of ``tests/clients/js/bifrost.mjs`` in Node against
``tests/bifrost/recorded_bifrost.py`` (the rewrites recorded from a real
Bifrost v1.4.19 in ``../shared/bifrost/transcripts``), in front of the real
demo API. The JS SDK parses a body as JSON only when its content type says
JSON: the passthrough route's ``text/plain`` (``models.bf_pt.jsonl``,
``errors.bf_pt.jsonl``) turns every non-streamed answer into a string, while
its streams and everything on ``/v1`` work.
"""

from __future__ import annotations

import json

import httpx
import pytest

import tests.clients.matrix as m
from tests.bifrost.conftest import Bifrost
from tests.clients.node_cells import run_cell

pytestmark = [pytest.mark.clients, pytest.mark.timeout(120)]


def run(cell: str, bifrost: Bifrost) -> object:
    return run_cell("bifrost.mjs", cell, bifrost.url).result


def test_chat_function_round_trip_through_v1(bifrost: Bifrost) -> None:
    seen = run("v1_chat_round_trip", bifrost)
    assert isinstance(seen, dict)
    [call] = seen["calls"]
    assert call["index"] == 0  # added by the gateway, replayed by the SDK
    assert json.loads(call["function"]["arguments"]) == m.TIME_ARGS
    assert seen["answer"] == m.function_answer(
        m.TIME_PROMPT, m.TIME_FUNCTION, m.TIME_ARGS, m.shown(m.JS_TIME_RESULT)
    )


def test_v1_answers_parse(bifrost: Bifrost) -> None:
    assert run("v1_responses_text", bifrost) == {
        "type": "object",
        "output_text": m.chat_answer(),
    }


def test_passthrough_streams_keep_commentary(bifrost: Bifrost) -> None:
    seen = run("passthrough_stream", bifrost)
    assert seen == {
        "phases": ["commentary"] * len(m.writer_commentary(m.JS_WRITER_PROMPT))
        + ["final_answer"]
    }


def test_passthrough_plain_answers_are_strings_to_the_js_sdk(
    bifrost: Bifrost, demo_api_url: str
) -> None:
    seen = run("passthrough_plain", bifrost)
    assert isinstance(seen, dict)
    assert seen["model_type"] == "string"
    direct = httpx.get(f"{demo_api_url}/models/chat").json()
    assert json.loads(seen["model_body"]) == direct
    # responses.create reads the string as an object and fails.
    assert seen["responses_error"]["name"] == "TypeError"
