"""The OpenAI JS SDK (``openai`` on npm), unmodified, against the running demo API.

Each test runs one cell of ``tests/clients/js/openai_js.mjs`` in Node and
asserts on what the SDK handed back and on what it sent (``node_cells``);
the cells' prompts and every expected answer come from ``matrix``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import tests.clients.matrix as m
from tests.clients.node_cells import Cell, run_cell

ANSWER = m.chat_answer()
TOKYO = m.function_answer(
    m.TIME_PROMPT, m.TIME_FUNCTION, m.TIME_ARGS, m.shown(m.JS_TIME_RESULT)
)


def compact(value: Any) -> str:
    """``value`` as JSON without spaces, as ``JSON.stringify`` writes it."""
    return json.dumps(value, separators=(",", ":"))


def run(cell: str, base_url: str) -> Cell:
    return run_cell("openai_js.mjs", cell, base_url)


def test_models_list_and_retrieve_read_the_lgos_extension(demo_api_url: str) -> None:
    seen = run("models", demo_api_url).result
    listed = {model["id"]: model for model in seen["listed"]}
    assert list(listed) == m.DEMO_MODELS
    for model in listed.values():
        assert model["object"] == "model"
        assert model["owned_by"] == "langgraph-openai-serve"
        assert set(model["lgos"]) == {"schema_version", "description", "features"}
        assert model["lgos"]["schema_version"] == 1
    assert listed["approval"]["lgos"]["features"] == ["interrupts"]
    detail = seen["detail"]
    assert detail["id"] == "deep-research"
    lgos = detail["lgos"]
    assert lgos["features"] == ["background", "file_inputs", "interrupts"]
    assert lgos["server_tools"] == ["web_search"]
    assert lgos["client_tools"] == []
    assert lgos["client_settings"]["defaults"] == {
        "review_plan": True,
        "research_rounds": 2,
    }
    assert lgos["description"] == listed["deep-research"]["lgos"]["description"]


def test_responses_create_plain_text(demo_api_url: str) -> None:
    cell = run("responses_text", demo_api_url)
    seen = cell.result
    assert m.RESPONSE_ID.fullmatch(seen["id"])
    assert seen["status"] == "completed"
    assert seen["output_text"] == ANSWER
    [message] = seen["messages"]
    assert m.MESSAGE_ID.fullmatch(message["id"])
    assert (message["phase"], message["text"]) == ("final_answer", ANSWER)
    assert cell.sent("/v1/responses") == [{"model": "chat", "input": m.CHAT_PROMPT}]


def test_responses_create_stream(demo_api_url: str) -> None:
    cell = run("responses_stream", demo_api_url)
    seen = cell.result
    types = seen["types"]
    assert types[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert types[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert types.count("response.output_text.delta") > 10  # streamed in many chunks
    assert seen["sequence"] == list(range(len(types)))
    assert seen["text"] == ANSWER
    completed = seen["completed"]
    assert (completed["status"], completed["messages"][0]["text"]) == (
        "completed",
        ANSWER,
    )
    # The SDK adds `output_text` to created and parsed Responses only, not to
    # the Response inside a raw stream event.
    assert completed["output_text"] is None
    assert cell.sent("/v1/responses")[0]["stream"] is True


def test_responses_stream_helper(demo_api_url: str) -> None:
    seen = run("responses_stream_helper", demo_api_url).result
    assert len(seen["deltas"]) > 10
    assert "".join(seen["deltas"]) == ANSWER
    assert m.RESPONSE_ID.fullmatch(seen["id"])
    assert (seen["status"], seen["output_text"]) == ("completed", ANSWER)
    assert [message["phase"] for message in seen["messages"]] == ["final_answer"]


def test_responses_conversation_replays_output_items(demo_api_url: str) -> None:
    """The stream helper's output (commentary, SDK-added `parsed: null`) goes back as is."""
    cell = run("responses_conversation", demo_api_url)
    seen = cell.result
    assert seen["replayed"] == ["commentary"] * 5 + ["final_answer"]
    # The user's two messages and the six replayed assistant messages.
    assert seen["output_text"] == m.chat_answer(m.SHORTER_PROMPT, messages=8)
    replayed = cell.sent("/v1/responses")[-1]["input"][1]
    assert replayed["content"][0]["parsed"] is None
    assert replayed["phase"] == "commentary"


def test_chat_completions_create(demo_api_url: str) -> None:
    cell = run("chat_text", demo_api_url)
    completion = cell.result
    assert m.CHAT_COMPLETION_ID.fullmatch(completion["id"])
    assert (completion["object"], completion["model"]) == ("chat.completion", "chat")
    [choice] = completion["choices"]
    assert choice["finish_reason"] == "stop"
    assert choice["message"] == {
        "role": "assistant",
        "content": ANSWER,
        "refusal": None,
        "annotations": [],
    }
    assert cell.sent("/v1/chat/completions") == [
        {
            "model": "chat",
            "messages": [{"role": "user", "content": m.CHAT_PROMPT}],
        }
    ]


def test_chat_completions_stream_helper(demo_api_url: str) -> None:
    seen = run("chat_stream_helper", demo_api_url).result
    assert len(seen["deltas"]) > 10
    assert "".join(seen["deltas"]) == ANSWER
    final = seen["final"]
    assert m.CHAT_COMPLETION_ID.fullmatch(final["id"])
    [choice] = final["choices"]
    assert choice["finish_reason"] == "stop"
    assert choice["message"]["content"] == ANSWER


def test_chat_completions_stream_with_usage(demo_api_url: str) -> None:
    cell = run("chat_stream_raw", demo_api_url)
    chunks = cell.result["chunks"]
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(
        c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]
    )
    assert text == ANSWER
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["total_tokens"] == 45
    assert cell.sent("/v1/chat/completions")[0]["stream_options"] == {
        "include_usage": True
    }


def test_responses_function_round_trip(demo_api_url: str) -> None:
    cell = run("responses_function_round_trip", demo_api_url)
    seen = cell.result
    [call] = seen["calls"]
    assert (call["name"], call["arguments"]) == (
        m.TIME_FUNCTION,
        compact(m.TIME_ARGS),
    )
    assert seen["output_text"] == TOKYO
    assert seen["second_output_types"] == ["message"]
    second = cell.sent("/v1/responses")[1]["input"]
    assert second[1] == call  # the function_call item, replayed unchanged
    assert second[2] == {
        "type": "function_call_output",
        "call_id": call["call_id"],
        "output": compact(m.JS_TIME_RESULT),
    }


def test_chat_function_round_trip(demo_api_url: str) -> None:
    cell = run("chat_function_round_trip", demo_api_url)
    first, second = cell.result["first"], cell.result["second"]
    assert first["finish_reason"] == "tool_calls"
    [call] = first["message"]["tool_calls"]
    assert call["function"] == {
        "name": m.TIME_FUNCTION,
        "arguments": compact(m.TIME_ARGS),
    }
    assert (second["finish_reason"], second["message"]["content"]) == ("stop", TOKYO)
    messages = cell.sent("/v1/chat/completions")[1]["messages"]
    assert messages[1] == first["message"]  # replayed as the SDK returned it
    assert messages[2]["tool_call_id"] == call["id"]


def test_chat_run_tools_helper(demo_api_url: str) -> None:
    seen = run("chat_run_tools", demo_api_url).result
    # The cell's roll_dice returns {"rolls": [3, 4]} for two dice.
    assert seen["content"] == m.function_answer(
        m.DICE_PROMPT, m.DICE_FUNCTION, m.DICE_ARGS, m.shown({"rolls": [3, 4]})
    )
    roles = [message["role"] for message in seen["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert seen["messages"][2]["content"] == '{"rolls":[3,4]}'


def _interrupt_calls(output: list[dict]) -> list[dict]:
    return [i for i in output if i["type"] == "function_call"]


def test_interrupt_answered_with_previous_response_id(demo_api_url: str) -> None:
    cell = run("interrupt_resume", demo_api_url)
    seen = cell.result
    paused = seen["paused"]
    run_id = m.RUN_RESPONSE_ID.fullmatch(paused["id"])
    assert run_id is not None
    assert paused["status"] == "completed"
    [call] = _interrupt_calls(paused["output"])
    assert call["name"] == m.INTERRUPT_FUNCTION
    assert call["call_id"].startswith("call_lg_")
    assert seen["payloads"] == [m.refund_interrupt(m.JS_REFUND_PROMPT)]
    done = seen["done"]
    assert (done["status"], done["output_text"]) == (
        "completed",
        m.approved(m.JS_REFUND_PROMPT),
    )
    # The resumed Response belongs to the same run.
    done_id = m.RUN_RESPONSE_ID.fullmatch(done["id"])
    assert done_id is not None
    assert done_id.group(1) == run_id.group(1)
    assert cell.sent("/v1/responses")[1] == {
        "model": "approval",
        "previous_response_id": paused["id"],
        "input": [
            {
                "type": "function_call_output",
                "call_id": call["call_id"],
                "output": "approve",
            }
        ],
    }


def test_interrupt_streamed_both_ways(demo_api_url: str) -> None:
    seen = run("interrupt_stream_resume", demo_api_url).result
    [call] = _interrupt_calls(seen["paused"]["output"])
    question = json.loads(call["arguments"])["question"]
    assert question.endswith(f"> {m.JS_REJECTED_PROMPT}")
    assert seen["done"]["output_text"] == m.rejected(m.JS_REJECTED_PROMPT)


def test_chat_completions_cannot_pause(demo_api_url: str) -> None:
    """Interrupts need the Responses item model: Chat Completions answers 400."""
    error = run("chat_interrupt_model", demo_api_url).result
    assert (error["name"], error["status"], error["param"]) == (
        "BadRequestError",
        400,
        "model",
    )
    assert "only the Responses API" in error["error"]["message"]


def test_writer_commentary_phase_on_items(demo_api_url: str) -> None:
    seen = run("writer_commentary", demo_api_url).result
    done = seen["done"]
    assert [d["phase"] for d in done] == ["commentary"] * 5 + ["final_answer"]
    assert [d["output_index"] for d in done] == list(range(6))
    assert [d["text"] for d in done[:5]] == m.writer_commentary(m.JS_WRITER_PROMPT)
    assert done[5]["text"].startswith(m.writer_answer_start(m.JS_WRITER_PROMPT))
    assert [(item["phase"], item["text"]) for item in seen["final"]] == [
        (d["phase"], d["text"]) for d in done
    ]
    # The SDK's `output_text` joins every message, whatever its phase: a
    # client showing only the answer must filter on `phase` itself.
    assert seen["output_text"] == "".join(d["text"] for d in done)


def test_citations_on_both_apis(demo_api_url: str) -> None:
    cell = run("citations", demo_api_url)
    seen = cell.result
    assert seen["response"]["text"] == m.CITATIONS_ANSWER
    assert seen["response"]["annotations"] == m.URL_CITATIONS
    assert [e["annotation"] for e in seen["added"]] == m.URL_CITATIONS
    assert [e["annotation_index"] for e in seen["added"]] == [0, 1]
    assert seen["streamed"]["annotations"] == m.URL_CITATIONS
    assert seen["streamed_phases"] == ["commentary"] * len(m.CITATIONS_COMMENTARY) + [
        "final_answer"
    ]
    chat_annotations = [
        {
            "type": "url_citation",
            "url_citation": {k: v for k, v in a.items() if k != "type"},
        }
        for a in m.URL_CITATIONS
    ]
    assert seen["chat"]["content"] == m.CITATIONS_ANSWER
    assert seen["chat"]["annotations"] == chat_annotations
    # Streamed: the LGOS extension on the final delta, kept by the stream helper.
    assert seen["chat_last_chunk"]["choices"][0]["delta"] == {
        "annotations": chat_annotations
    }
    assert seen["chat_streamed"]["content"] == m.CITATIONS_ANSWER
    assert seen["chat_streamed"]["annotations"] == chat_annotations
    assert cell.sent("/v1/responses")[0] == {
        "model": "citations",
        "input": m.CITATIONS_PROMPT,
    }


def test_background_create_retrieve_cancel(demo_api_url: str) -> None:
    cell = run("background", demo_api_url)
    seen = cell.result
    queued = seen["queued"]
    assert m.RUN_RESPONSE_ID.fullmatch(queued["id"])
    assert (queued["status"], queued["background"]) == ("queued", True)
    assert seen["statuses"][-1] == "completed"
    assert set(seen["statuses"]) <= {"queued", "in_progress", "completed"}
    final = seen["final"]
    assert final["id"] == queued["id"]
    assert final["output_text"].startswith(m.RESEARCH_REPORT_LEAD)
    assert "web_search_call" in final["output_types"]
    assert final["output_types"][-1] == "message"
    assert seen["cancelled"] == {"id": queued["id"], "status": "completed"}
    assert seen["after"] == {
        "id": queued["id"],
        "status": "completed",
        "output_text": final["output_text"],
    }
    methods = [(r["method"], r["path"].split(queued["id"])[-1]) for r in cell.requests]
    assert methods[0] == ("POST", "/v1/responses")
    assert methods[-2:] == [("POST", "/cancel"), ("GET", "")]


def test_unknown_model_is_not_found(demo_api_url: str) -> None:
    seen = run("unknown_model", demo_api_url).result
    for error in seen.values():
        assert error["name"] == "NotFoundError"
        assert (error["status"], error["code"], error["param"]) == (
            404,
            "model_not_found",
            "model",
        )
        assert error["error"] == m.NOT_FOUND


@pytest.mark.parametrize("script", ["openai_js.mjs", "vercel_ai.mjs"])
def test_scripts_cannot_leave_loopback(script: str, demo_api_url: str) -> None:
    """The harness refuses any connection but loopback (the SDKs' default host too)."""
    attempts = run_cell(script, "offline_guard", demo_api_url).result
    assert [a["url"] for a in attempts] == [
        "https://api.openai.com/v1/models",
        "http://192.0.2.1/v1/models",
    ]
    for attempt in attempts:
        assert "reached" not in attempt
        assert attempt["error"]["cause"]["message"].startswith(
            "the client-matrix scripts stay offline: refused a connection to "
        )
