"""The Vercel AI SDK (``ai`` + ``@ai-sdk/openai``), unmodified, against the demo API.

``createOpenAI({baseURL, apiKey})`` with both of its OpenAI wires:
``openai.responses(model)`` and ``openai.chat(model)``. Each test runs one
cell of ``tests/clients/js/vercel_ai.mjs`` in Node (``node_cells``); the
cells' prompts and every expected answer come from ``matrix``.
"""

from __future__ import annotations

import pytest

import tests.clients.matrix as m
from tests.clients.node_cells import Cell, run_cell

APIS = ["responses", "chat"]
PATH = {"responses": "/v1/responses", "chat": "/v1/chat/completions"}
RESPONSE_ID = {"responses": m.RESPONSE_ID, "chat": m.CHAT_COMPLETION_ID}
ANSWER = m.chat_answer()
# The cells' get_current_time adds the time zone it was asked for.
TOKYO = m.function_answer(
    m.TIME_PROMPT,
    m.TIME_FUNCTION,
    m.TIME_ARGS,
    m.shown({**m.JS_TIME_RESULT, "asked": m.TIME_ARGS["timezone"]}),
)
SOURCES = [
    {"sourceType": "url", "url": c["url"], "title": c["title"]} for c in m.URL_CITATIONS
]
INTERRUPT_PAYLOAD = m.refund_interrupt(m.JS_REFUND_PROMPT)


def run(cell: str, base_url: str) -> Cell:
    return run_cell("vercel_ai.mjs", cell, base_url)


def _texts(parts: list[dict]) -> list[tuple[str | None, str]]:
    """(phase, text) of each streamed text part, from its start to its end."""
    texts: dict[str, list[str]] = {}
    phases: dict[str, str | None] = {}
    for part in parts:
        if part["type"] == "text-start":
            texts[part["id"]] = []
            phases[part["id"]] = (
                (part.get("providerMetadata") or {}).get("openai", {}).get("phase")
            )
        elif part["type"] == "text-delta":
            texts[part["id"]].append(part["text"])
    return [(phases[i], "".join(t)) for i, t in texts.items()]


@pytest.mark.parametrize("api", APIS)
def test_generate_text(api: str, demo_api_url: str) -> None:
    cell = run(f"{api}_generate", demo_api_url)
    seen = cell.result
    assert (seen["text"], seen["finishReason"]) == (ANSWER, "stop")
    assert RESPONSE_ID[api].fullmatch(seen["responseId"])
    assert seen["modelId"] == "chat"
    if api == "responses":
        [text] = seen["content"]
        assert text["providerMetadata"]["openai"]["phase"] == "final_answer"
        assert seen["providerMetadata"]["openai"]["responseId"] == seen["responseId"]
        assert cell.sent(PATH[api]) == [
            {
                "model": "chat",
                "input": [
                    {
                        "role": "user",
                        "content": [{"type": "input_text", "text": m.CHAT_PROMPT}],
                    }
                ],
            }
        ]
    else:
        assert cell.sent(PATH[api]) == [
            {
                "model": "chat",
                "messages": [{"role": "user", "content": m.CHAT_PROMPT}],
            }
        ]


@pytest.mark.parametrize("api", APIS)
def test_stream_text(api: str, demo_api_url: str) -> None:
    cell = run(f"{api}_stream", demo_api_url)
    seen = cell.result
    deltas = [p for p in seen["parts"] if p["type"] == "text-delta"]
    assert len(deltas) > 10
    assert (seen["text"], seen["finishReason"]) == (ANSWER, "stop")
    assert RESPONSE_ID[api].fullmatch(seen["responseId"])
    expected_phase = "final_answer" if api == "responses" else None
    assert _texts(seen["parts"]) == [(expected_phase, ANSWER)]
    assert [p["type"] for p in seen["parts"]][-2:] == ["finish-step", "finish"]
    assert cell.sent(PATH[api])[0]["stream"] is True


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True], ids=["generate", "stream"])
def test_tool_executed_by_the_sdk(api: str, stream: bool, demo_api_url: str) -> None:
    """The SDK runs `get_current_time` and sends its result in a second step."""
    cell = run(f"{api}_tool_stream" if stream else f"{api}_tool", demo_api_url)
    seen = cell.result
    assert (seen["text"], seen["finishReason"]) == (TOKYO, "stop")
    sent = cell.sent(PATH[api])
    assert len(sent) == 2
    if stream:
        calls = [p for p in seen["parts"] if p["type"] == "tool-call"]
        results = [p for p in seen["parts"] if p["type"] == "tool-result"]
        assert [p["toolName"] for p in calls + results] == [m.TIME_FUNCTION] * 2
        # Text parts belong to the answer step only: the tool step has none,
        # not even an empty one.
        kinds = [p["type"] for p in seen["parts"]]
        assert kinds.index("text-start") > kinds.index("tool-result")
        assert kinds.count("text-start") == 1
    else:
        first, second = seen["steps"]
        [call] = first["toolCalls"]
        assert (call["toolName"], call["input"]) == (m.TIME_FUNCTION, m.TIME_ARGS)
        assert first["toolResults"][0]["output"]["asked"] == m.TIME_ARGS["timezone"]
        assert first["finishReason"] == "tool-calls"
        assert second["text"] == TOKYO
    if api == "responses":
        replayed = sent[1]["input"]
        assert [i.get("type") for i in replayed[1:]] == [
            "function_call",
            "function_call_output",
        ]
        assert replayed[1]["call_id"] == replayed[2]["call_id"]
    else:
        messages = sent[1]["messages"]
        assert [item["role"] for item in messages] == ["user", "assistant", "tool"]
        assert messages[1]["tool_calls"][0]["id"] == messages[2]["tool_call_id"]


@pytest.mark.parametrize("api", APIS)
def test_citations_as_sources(api: str, demo_api_url: str) -> None:
    seen = run(f"{api}_citations", demo_api_url).result
    generated, streamed = seen["generated"], seen["streamed"]
    assert generated["text"] == m.CITATIONS_ANSWER
    assert generated["sources"] == SOURCES
    assert streamed["sources"] == SOURCES
    streamed_sources = [p for p in streamed["parts"] if p["type"] == "source"]
    assert [(p["url"], p["title"]) for p in streamed_sources] == [
        (s["url"], s["title"]) for s in SOURCES
    ]
    if api == "responses":
        text = generated["content"][0]
        assert text["providerMetadata"]["openai"]["annotations"] == [
            {k: c[k] for k in ("type", "start_index", "end_index", "url", "title")}
            for c in m.URL_CITATIONS
        ]
        # Streaming, the graph's search progress arrives first, as commentary.
        assert _texts(streamed["parts"]) == [
            *(("commentary", t) for t in m.CITATIONS_COMMENTARY),
            ("final_answer", m.CITATIONS_ANSWER),
        ]
    else:
        assert streamed["text"] == m.CITATIONS_ANSWER


def test_responses_commentary_phase(demo_api_url: str) -> None:
    """The provider exposes `phase` on each text part; `text` joins them all."""
    cell = run("responses_commentary", demo_api_url)
    first, following = cell.result["first"], cell.result["next"]
    commentary = m.writer_commentary(m.JS_WRITER_PROMPT)
    texts = _texts(first["parts"])
    assert texts[:5] == [("commentary", t) for t in commentary]
    [(phase, answer)] = texts[5:]
    assert phase == "final_answer"
    assert answer.startswith(m.writer_answer_start(m.JS_WRITER_PROMPT))
    # The SDK's `text` is every text part of the step, commentary included: an
    # application showing only the answer filters the parts on their phase.
    assert first["text"] == "".join(commentary) + answer
    # The next turn replays the six messages inline, each with its phase.
    replayed = cell.sent("/v1/responses")[1]["input"][1:-1]
    assert [(item["role"], item["phase"]) for item in replayed] == [
        ("assistant", "commentary")
    ] * 5 + [("assistant", "final_answer")]
    assert following["text"] == m.chat_answer(m.SHORTER_PROMPT, messages=8)


def test_chat_has_no_commentary(demo_api_url: str) -> None:
    seen = run("chat_commentary", demo_api_url).result
    [(phase, answer)] = _texts(seen["parts"])
    assert phase is None
    assert answer.startswith(m.writer_answer_start(m.JS_WRITER_PROMPT))
    assert seen["text"] == answer


def test_responses_conversation_by_default_references_stored_items(
    demo_api_url: str,
) -> None:
    """Cannot express with defaults: the provider assumes OpenAI's `store: true`.

    It replays the first answer as an `item_reference` to the stored message;
    LGOS stores nothing and rejects the item type as documented. With
    `providerOptions.openai.store = false` (next test) the turn works.
    """
    cell = run("responses_conversation", demo_api_url)
    sent = cell.sent("/v1/responses")[1]
    assert "store" not in sent
    assert sent["input"][1] == {
        "type": "item_reference",
        "id": sent["input"][1]["id"],
    }
    error = cell.result["error"]
    assert (error["statusCode"], error["data"]["error"]["code"]) == (
        400,
        "unsupported_value",
    )
    assert error["data"]["error"]["param"] == "input[1]"


def test_responses_conversation_unstored(demo_api_url: str) -> None:
    cell = run("responses_conversation_unstored", demo_api_url)
    assert cell.result.get("error") is None
    assert cell.result["answer"]["text"] == m.chat_answer(m.AND_LGOS_PROMPT, messages=3)
    sent = cell.sent("/v1/responses")[1]
    assert sent["store"] is False
    replayed = sent["input"][1]
    assert m.MESSAGE_ID.fullmatch(replayed.pop("id"))
    assert replayed == {
        "role": "assistant",
        "content": [{"type": "output_text", "text": ANSWER}],
        "phase": "final_answer",
    }


def test_chat_conversation(demo_api_url: str) -> None:
    cell = run("chat_conversation", demo_api_url)
    assert cell.result.get("error") is None
    assert cell.result["answer"]["text"] == m.chat_answer(m.AND_LGOS_PROMPT, messages=3)
    assert cell.sent("/v1/chat/completions")[1]["messages"][1] == {
        "role": "assistant",
        "content": ANSWER,
    }


def test_responses_interrupt_resumed_with_previous_response_id(
    demo_api_url: str,
) -> None:
    """`lgos_interrupt` declared as a tool without `execute`; its result resumes."""
    cell = run("responses_interrupt", demo_api_url)
    seen = cell.result
    paused, done = seen["paused"], seen["done"]
    assert paused["finishReason"] == "tool-calls"
    [call] = seen["calls"]
    assert (call["toolName"], call["input"]) == (
        m.INTERRUPT_FUNCTION,
        INTERRUPT_PAYLOAD,
    )
    assert call["toolCallId"].startswith("call_lg_")
    assert (done["text"], done["finishReason"]) == (
        m.approved(m.JS_REFUND_PROMPT),
        "stop",
    )
    first, resume = cell.sent("/v1/responses")
    assert [t["name"] for t in first["tools"]] == [m.INTERRUPT_FUNCTION]
    assert resume == {
        "model": "approval",
        "input": [
            {
                "type": "function_call_output",
                "call_id": call["toolCallId"],
                "output": "approve",
            }
        ],
        "previous_response_id": paused["responseId"],
    }


def test_responses_interrupt_without_a_declared_tool(demo_api_url: str) -> None:
    """Undeclared, the call still surfaces (marked invalid, with a tool error)."""
    seen = run("responses_interrupt_undeclared", demo_api_url).result
    [step] = seen["steps"]
    [call] = step["toolCalls"]
    assert (call["toolName"], call["input"], call["invalid"]) == (
        m.INTERRUPT_FUNCTION,
        INTERRUPT_PAYLOAD,
        True,
    )
    assert [p["type"] for p in seen["content"]] == ["tool-call", "tool-error"]
    assert seen["content"][1]["error"]["message"].startswith(
        "Model tried to call unavailable tool 'lgos_interrupt'"
    )


def test_chat_cannot_pause(demo_api_url: str) -> None:
    error = run("chat_interrupt_model", demo_api_url).result
    assert (error["name"], error["statusCode"], error["isRetryable"]) == (
        "APICallError",
        400,
        False,
    )
    assert error["data"]["error"]["param"] == "model"
    assert "only the Responses API" in error["message"]


@pytest.mark.parametrize("api", APIS)
def test_unknown_model(api: str, demo_api_url: str) -> None:
    seen = run(f"{api}_unknown_model", demo_api_url).result
    for error in (seen["generate"], seen["stream"]):
        assert (error["name"], error["statusCode"]) == ("APICallError", 404)
        assert error["message"] == m.NOT_FOUND["message"]
        assert error["data"] == {"error": m.NOT_FOUND}
        assert error["url"].endswith(PATH[api])
