"""The intermediary's rules give what Bifrost v1.4.19 was recorded giving.

``recorded/bifrost_v1_4_19.json`` holds exchanges cut from the recordings in
``../shared/bifrost/transcripts`` (each entry names its files): the same
request answered by the demo API directly and through Bifrost's ``/v1``, and
what Bifrost sent LGOS for a client's request. Each test feeds the direct
side through a rule of ``recorded_bifrost`` and compares with Bifrost's side,
leaving out only what differs from run to run (IDs, timestamps, latencies).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.bifrost.recorded_bifrost import (
    ChatChunks,
    NotRouted,
    passthrough_content_type,
    rewrite_event,
    upstream_request,
    wrapped_error,
)

pytestmark = pytest.mark.unit

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "recorded" / "bifrost_v1_4_19.json").read_text("utf-8")
)
VOLATILE = {"id", "created", "created_at", "completed_at", "item_id", "latency"}


def stable(value: Any) -> Any:
    """``value`` without the keys that change between two runs."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(item) for item in value]
    return value


def events(raw: str | list[str]) -> list[dict[str, Any]]:
    """The JSON ``data:`` payloads of SSE text (or of its blocks)."""
    blocks = raw if isinstance(raw, list) else raw.split("\n\n")
    found = []
    for block in blocks:
        for line in block.splitlines():
            if line.startswith("data:") and line[5:].strip() != "[DONE]":
                found.append(json.loads(line[5:]))
    return found


def test_r1_the_models_list_as_bifrost_rebuilt_it() -> None:
    case = RECORDED["models_list"]
    direct, recorded = case["direct"], case["bf_v1"]

    rebuilt = sorted(
        (
            {
                "id": f"openai/{m['id']}",
                "created": m["created"],
                "owned_by": m["owned_by"],
            }
            for m in direct["data"]
        ),
        key=lambda entry: entry["id"],
    )
    assert recorded["data"] == rebuilt
    assert set(recorded) == {"data", "extra_fields", "key_statuses"}


@pytest.mark.parametrize(
    "pair", RECORDED["errors"]["pairs"], ids=lambda pair: pair["step"]
)
def test_r7_errors_are_wrapped_as_recorded(pair: dict[str, Any]) -> None:
    body = pair["bf_v1"]
    model = body["extra_fields"]["model_requested"]
    request_type = body["extra_fields"]["request_type"]

    answer = wrapped_error(
        pair["status"], json.dumps(pair["direct"]).encode(), request_type, model
    )

    assert answer.status_code == pair["status"]
    assert json.loads(bytes(answer.body)) == body
    assert pair["bf_v1_content_type"] == "application/json"


@pytest.mark.parametrize(
    "pair", RECORDED["v1_wire"]["pairs"], ids=lambda pair: pair["step"]
)
def test_r4_lgos_receives_what_bifrost_sent(pair: dict[str, Any]) -> None:
    kind = "responses" if pair["path"].endswith("/responses") else "chat"

    body, headers, _ = upstream_request(
        kind, copy.deepcopy(pair["client_body"]), pair["client_headers"]
    )

    assert body == pair["upstream_body"]
    assert pair["upstream_path"] == pair["path"]
    recorded = {name.lower() for name in pair["upstream_headers"]}
    for name in ("idempotency-key",):
        assert (name in {h.lower() for h in headers}) == (name in recorded)


def test_r3_a_bare_model_is_bifrosts_own_error() -> None:
    with pytest.raises(NotRouted, match="provider/model format"):
        upstream_request("responses", {"model": "chat", "input": "hi"}, {})


def test_r6_chat_streams_lose_the_role_chunk_and_merge_the_last_two() -> None:
    case = RECORDED["chat_stream"]
    direct, recorded = events(case["direct"]), events(case["bf_v1"])
    chunks = ChatChunks("chat")

    sent = [out for chunk in direct for out in chunks.feed(chunk)] + chunks.flush()

    assert len(sent) == len(recorded) == len(direct) - 2
    for ours, theirs in zip(sent, recorded, strict=True):
        assert stable(ours["choices"]) == stable(theirs["choices"])
    assert (sent[-1]["created"], sent[-1]["model"]) == (0, "")
    assert stable(sent[-1]["usage"]) == stable(direct[-1]["usage"])
    assert recorded[-1]["usage"]["total_tokens"] == direct[-1]["usage"]["total_tokens"]


def test_r5_stream_events_lose_phase_and_gain_extra_fields() -> None:
    case = RECORDED["writer_stream"]
    direct, recorded = events(case["direct"]), events(case["bf_v1"])
    assert any("phase" in json.dumps(event) for event in direct)

    ours = [rewrite_event(copy.deepcopy(event), "writer") for event in direct]

    for mine, theirs in zip(ours, recorded, strict=True):
        assert "phase" not in json.dumps(mine) and "phase" not in json.dumps(theirs)
        assert mine["type"] == theirs["type"]
        assert mine["extra_fields"]["request_type"] == "responses_stream"
        assert theirs["extra_fields"]["request_type"] == "responses_stream"
        for key in ("item", "delta", "text"):
            if key in theirs and theirs[key] is not None:
                assert stable(mine[key]) == stable(theirs[key])


@pytest.mark.parametrize(
    "case",
    RECORDED["passthrough_content_types"],
    ids=lambda case: f"{case['file']}:{case['step']}",
)
def test_r8_passthrough_says_text_plain_unless_streaming(case: dict[str, Any]) -> None:
    body = json.dumps({"model": "chat", "stream": case["stream"]}).encode()
    # What LGOS itself sent: an event stream for a streamed success, else JSON.
    lgos_type = (
        "text/event-stream; charset=utf-8"
        if case["stream"] and case["status"] == 200
        else "application/json"
    )

    assert passthrough_content_type(body, lgos_type) == case["content_type"]
