"""The OpenAI JS SDK (``openai`` on npm), unmodified, against the running demo API.

Each test runs one cell of ``tests/clients/js/openai_js.mjs`` in Node and
asserts on what the SDK handed back and on what it sent (``node_cells``).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.clients.node_cells import (
    APPROVED,
    CITATIONS,
    CITATIONS_COMMENTARY,
    CITATIONS_QUESTION,
    CITED_TEXT,
    INTERRUPT_PAYLOAD,
    NOT_FOUND,
    WRITER_ANSWER_START,
    WRITER_COMMENTARY,
    Cell,
    chat_answer,
    functions_answer,
    run_cell,
)

RESPONSE_ID = re.compile(r"resp_[0-9a-f]{32}")
RUN_RESPONSE_ID = re.compile(r"resp_lg_([0-9a-f]{32})_[0-9a-f]{32}")
MESSAGE_ID = re.compile(r"msg_[0-9a-f]{32}")
COMPLETION_ID = re.compile(r"chatcmpl_[0-9a-f]{32}")
ANSWER = chat_answer("What is LangGraph?")
TOKYO = functions_answer(
    "What time is it in Tokyo?",
    'get_current_time(timezone="Asia/Tokyo")',
    'timezone: "Asia/Tokyo", time: "2026-01-02T03:04:05+09:00"',
)
TIME_RESULT = '{"timezone":"Asia/Tokyo","time":"2026-01-02T03:04:05+09:00"}'


def run(cell: str, base_url: str) -> Cell:
    return run_cell("openai_js.mjs", cell, base_url)


def test_models_list_and_retrieve_read_the_lgos_extension(demo_api_url: str) -> None:
    seen = run("models", demo_api_url).result
    listed = {m["id"]: m for m in seen["listed"]}
    assert list(listed) == [
        "chat",
        "writer",
        "citations",
        "functions",
        "server-tools",
        "files",
        "approval",
        "deep-research",
    ]
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
    assert RESPONSE_ID.fullmatch(seen["id"])
    assert seen["status"] == "completed"
    assert seen["output_text"] == ANSWER
    [message] = seen["messages"]
    assert MESSAGE_ID.fullmatch(message["id"])
    assert (message["phase"], message["text"]) == ("final_answer", ANSWER)
    assert cell.sent("/v1/responses") == [
        {"model": "chat", "input": "What is LangGraph?"}
    ]


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
    assert RESPONSE_ID.fullmatch(seen["id"])
    assert (seen["status"], seen["output_text"]) == ("completed", ANSWER)
    assert [m["phase"] for m in seen["messages"]] == ["final_answer"]


def test_responses_conversation_replays_output_items(demo_api_url: str) -> None:
    """The stream helper's output (commentary, SDK-added `parsed: null`) goes back as is."""
    cell = run("responses_conversation", demo_api_url)
    seen = cell.result
    assert seen["replayed"] == ["commentary"] * 5 + ["final_answer"]
    # The user's two messages and the six replayed assistant messages.
    assert seen["output_text"] == chat_answer("Shorter, please", messages=8)
    replayed = cell.sent("/v1/responses")[-1]["input"][1]
    assert replayed["content"][0]["parsed"] is None
    assert replayed["phase"] == "commentary"


def test_chat_completions_create(demo_api_url: str) -> None:
    cell = run("chat_text", demo_api_url)
    completion = cell.result
    assert COMPLETION_ID.fullmatch(completion["id"])
    assert (completion["object"], completion["model"]) == ("chat.completion", "chat")
    [choice] = completion["choices"]
    assert choice["finish_reason"] == "stop"
    assert choice["message"] == {
        "role": "assistant",
        "content": ANSWER,
        "refusal": None,
    }
    assert cell.sent("/v1/chat/completions") == [
        {
            "model": "chat",
            "messages": [{"role": "user", "content": "What is LangGraph?"}],
        }
    ]


def test_chat_completions_stream_helper(demo_api_url: str) -> None:
    seen = run("chat_stream_helper", demo_api_url).result
    assert len(seen["deltas"]) > 10
    assert "".join(seen["deltas"]) == ANSWER
    final = seen["final"]
    assert COMPLETION_ID.fullmatch(final["id"])
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
        "get_current_time",
        '{"timezone":"Asia/Tokyo"}',
    )
    assert seen["output_text"] == TOKYO
    assert seen["second_output_types"] == ["message"]
    second = cell.sent("/v1/responses")[1]["input"]
    assert second[1] == call  # the function_call item, replayed unchanged
    assert second[2] == {
        "type": "function_call_output",
        "call_id": call["call_id"],
        "output": TIME_RESULT,
    }


def test_chat_function_round_trip(demo_api_url: str) -> None:
    cell = run("chat_function_round_trip", demo_api_url)
    first, second = cell.result["first"], cell.result["second"]
    assert first["finish_reason"] == "tool_calls"
    [call] = first["message"]["tool_calls"]
    assert call["function"] == {
        "name": "get_current_time",
        "arguments": '{"timezone":"Asia/Tokyo"}',
    }
    assert (second["finish_reason"], second["message"]["content"]) == ("stop", TOKYO)
    messages = cell.sent("/v1/chat/completions")[1]["messages"]
    assert messages[1] == first["message"]  # replayed as the SDK returned it
    assert messages[2]["tool_call_id"] == call["id"]


def test_chat_run_tools_helper(demo_api_url: str) -> None:
    seen = run("chat_run_tools", demo_api_url).result
    assert seen["content"] == functions_answer(
        "Roll two dice", "roll_dice(count=2)", "rolls: [3, 4]"
    )
    roles = [m["role"] for m in seen["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert seen["messages"][2]["content"] == '{"rolls":[3,4]}'


def _interrupt_calls(output: list[dict]) -> list[dict]:
    return [i for i in output if i["type"] == "function_call"]


def test_interrupt_answered_with_previous_response_id(demo_api_url: str) -> None:
    cell = run("interrupt_resume", demo_api_url)
    seen = cell.result
    paused = seen["paused"]
    run_id = RUN_RESPONSE_ID.fullmatch(paused["id"])
    assert run_id is not None
    assert paused["status"] == "completed"
    [call] = _interrupt_calls(paused["output"])
    assert call["name"] == "lgos_interrupt"
    assert call["call_id"].startswith("call_lg_")
    assert seen["payloads"] == [INTERRUPT_PAYLOAD]
    done = seen["done"]
    assert (done["status"], done["output_text"]) == ("completed", APPROVED)
    # The resumed Response belongs to the same run.
    done_id = RUN_RESPONSE_ID.fullmatch(done["id"])
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
    assert json.loads(call["arguments"])["question"].endswith("> Refund order 43")
    assert seen["done"]["output_text"] == (
        "**Rejected.** The refund request \u201cRefund order 43\u201d was rejected by "
        "the manager. No refund is issued; the customer is told why."
    )


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
    assert [d["text"] for d in done[:5]] == WRITER_COMMENTARY
    assert done[5]["text"].startswith(WRITER_ANSWER_START)
    assert [(m["phase"], m["text"]) for m in seen["final"]] == [
        (d["phase"], d["text"]) for d in done
    ]
    # The SDK's `output_text` joins every message, whatever its phase: a
    # client showing only the answer must filter on `phase` itself.
    assert seen["output_text"] == "".join(d["text"] for d in done)


def test_citations_on_both_apis(demo_api_url: str) -> None:
    cell = run("citations", demo_api_url)
    seen = cell.result
    assert seen["response"]["text"] == CITED_TEXT
    assert seen["response"]["annotations"] == CITATIONS
    assert [e["annotation"] for e in seen["added"]] == CITATIONS
    assert [e["annotation_index"] for e in seen["added"]] == [0, 1]
    assert seen["streamed"]["annotations"] == CITATIONS
    assert seen["streamed_phases"] == ["commentary"] * len(CITATIONS_COMMENTARY) + [
        "final_answer"
    ]
    chat_annotations = [
        {
            "type": "url_citation",
            "url_citation": {k: v for k, v in a.items() if k != "type"},
        }
        for a in CITATIONS
    ]
    assert seen["chat"]["content"] == CITED_TEXT
    assert seen["chat"]["annotations"] == chat_annotations
    # Streamed: the LGOS extension on the final delta, kept by the stream helper.
    assert seen["chat_last_chunk"]["choices"][0]["delta"] == {
        "annotations": chat_annotations
    }
    assert seen["chat_streamed"]["content"] == CITED_TEXT
    assert seen["chat_streamed"]["annotations"] == chat_annotations
    assert cell.sent("/v1/responses")[0] == {
        "model": "citations",
        "input": CITATIONS_QUESTION,
    }


def test_background_create_retrieve_cancel(demo_api_url: str) -> None:
    cell = run("background", demo_api_url)
    seen = cell.result
    queued = seen["queued"]
    assert RUN_RESPONSE_ID.fullmatch(queued["id"])
    assert (queued["status"], queued["background"]) == ("queued", True)
    assert seen["statuses"][-1] == "completed"
    assert set(seen["statuses"]) <= {"queued", "in_progress", "completed"}
    final = seen["final"]
    assert final["id"] == queued["id"]
    assert final["output_text"].startswith(
        "This is the offline demo model's research report"
    )
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
        assert error["error"] == NOT_FOUND


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
