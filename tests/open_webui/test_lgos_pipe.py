"""The Open WebUI pipe against the real offline demo API, in-process.

No Open WebUI here: the tests call ``Pipe.pipes()`` and ``Pipe.pipe()`` as
Open WebUI does (``body``, ``__user__`` with valves, ``__event_emitter__``,
``__event_call__``, ``__chat_id__``) and check the text it streams, the
events it emits and the ledger it keeps. The ``__event_call__`` replies are
shaped like Open WebUI 0.12.4's ``request:user_input`` dialog answers.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.open_webui.conftest import lgos_pipe
from tests.open_webui.pipe_events import Events, answered, run

pytestmark = pytest.mark.anyio


async def test_one_model_per_graph(pipe: Any) -> None:
    models = await pipe.pipes()
    ids = [m["id"] for m in models]
    assert {"chat", "writer", "citations", "approval", "deep-research"} <= set(ids)
    assert all(m["name"] == m["id"] for m in models)


async def test_user_valves_from_client_settings(pipe: Any) -> None:
    await pipe.discover()
    fields = pipe.UserValves.model_fields
    assert fields["chat__audience"].default == "general"
    assert fields["chat__use_history"].default is False
    assert fields["deep_research__research_rounds"].default == 2
    assert fields["deep_research__review_plan"].default is True
    assert fields["deep_research__tool_web_search"].default is True
    assert fields["deep_research__run_in_background"].default is False
    assert fields["server_tools__tool_lgos_package_version"].default is False
    assert "writer__run_in_background" not in fields  # no background feature
    schema = pipe.UserValves.model_json_schema()["properties"]
    assert schema["chat__audience"]["enum"] == ["general", "beginner", "expert"]
    assert schema["chat__audience"]["title"] == "chat: Audience"
    # A number's range is in its description (Open WebUI's error says nothing).
    rounds = schema["deep_research__research_rounds"]
    assert rounds["description"].endswith(
        f"(from {rounds['minimum']} to {rounds['maximum']})"
    )
    with pytest.raises(ValidationError):
        pipe.UserValves(deep_research__research_rounds=9)
    with pytest.raises(ValidationError):
        pipe.UserValves(chat__audience="toddler")


async def test_settings_sent_only_when_changed(pipe: Any) -> None:
    await pipe.discover()
    chat = pipe.models["chat"]
    default = lgos_pipe.request_options(chat, {}, pipe.specs)
    assert default.metadata == {}
    assert default.tools == []
    changed = lgos_pipe.request_options(chat, {"chat__audience": "expert"}, pipe.specs)
    assert changed.metadata == {"lgos_settings": '{"audience":"expert"}'}
    research = lgos_pipe.request_options(
        pipe.models["deep-research"],
        {"deep_research__run_in_background": True},
        pipe.specs,
    )
    assert research.tools == [{"type": "web_search"}]
    assert research.background is True


async def test_changed_setting_reaches_the_graph(pipe: Any) -> None:
    events = Events()
    plain = await run(pipe, "chat", [{"role": "user", "content": "hi"}], events)
    expert = await run(
        pipe,
        "chat",
        [{"role": "user", "content": "hi"}],
        events,
        valves={"chat__audience": "expert"},
        chat_id="chat-2",
    )
    assert plain != expert
    assert "expert" in expert.lower()


async def test_writer_commentary_is_status_only(pipe: Any) -> None:
    events = Events()
    text = await run(pipe, "writer", [{"role": "user", "content": "tea"}], events)
    statuses = events.of("status")
    descriptions = [s["description"] for s in statuses]
    assert descriptions[0].startswith("Outlining the answer")
    assert "Polishing the final answer" in descriptions
    # Each step once, then a closing line summing them up, marked done.
    assert len(set(descriptions)) == len(descriptions)
    assert descriptions[-1] == f"Done after {len(descriptions) - 1} steps"
    assert statuses[-1]["done"] is True
    assert all(not s["done"] for s in statuses[:-1])
    # Only the final answer is in the transcript.
    assert text.startswith('Here is my answer to "tea"')
    assert not any(d in text for d in descriptions)


async def test_citations_become_sources(pipe: Any) -> None:
    events = Events()
    text = await run(
        pipe, "citations", [{"role": "user", "content": "what is langgraph?"}], events
    )
    sources = events.of("source")
    assert "[1]" in text
    assert len(sources) == 3
    urls = [s["source"]["url"] for s in sources]
    assert len(set(urls)) == 3
    assert all(u.startswith("https://") for u in urls)
    assert sources[0]["source"]["name"] == "LangGraph: state, nodes and edges"
    assert sources[0]["metadata"][0]["source"] == urls[0]


async def test_ledger_replays_stored_items(pipe: Any) -> None:
    events = Events()
    first = [{"role": "user", "content": "tea"}]
    answer = await run(pipe, "writer", first, events)
    record = pipe.store().answer("chat-1", answer)
    assert record is not None and record["kind"] == "answer"
    phases = [item.get("phase") for item in record["items"]]
    assert phases.count("commentary") >= 3 and phases[-1] == "final_answer"
    history = [*first, {"role": "assistant", "content": answer}]
    history.append({"role": "user", "content": "more"})
    ledger = lgos_pipe.ledger_input(
        history, lambda text: pipe.store().answer("chat-1", text)
    )
    assert ledger[0] == {"role": "user", "content": "tea"}
    assert ledger[1:-1] == record["items"]
    assert ledger[-1] == {"role": "user", "content": "more"}
    # LGOS accepts the replayed items as the next turn's input.
    second = await run(pipe, "writer", history, events)
    assert second.startswith('Here is my answer to "more"')


async def test_a_temporary_chat_keeps_nothing(pipe: Any) -> None:
    """Open WebUI's temporary chats (``local:`` IDs) leave no ledger record."""
    first = [{"role": "user", "content": "tea"}]
    answer = await run(pipe, "writer", first, Events(), chat_id="local:abc")
    assert answer.startswith('Here is my answer to "tea"')
    assert pipe.store().answer("local:abc", answer) is None
    assert lgos_pipe.kept_chat_id("local:abc", None) is None
    assert lgos_pipe.kept_chat_id(None, {"chat_id": "c-2"}) == "c-2"
    assert lgos_pipe.kept_chat_id("", {}) is None


async def test_title_requests_never_reach_the_graphs(pipe: Any) -> None:
    body = {
        "model": "lgos.writer",
        "messages": [
            {"role": "system", "content": "Title this chat."},
            {"role": "user", "content": "  How do   graphs pause " + "x" * 80},
        ],
    }
    said = [t async for t in pipe.pipe(body, __task__="title_generation")]
    title = json.loads("".join(said))["title"]
    assert title == ("How do graphs pause " + "x" * 80)[:60]
    assert [t async for t in pipe.pipe(body, __task__="tags_generation")] == []
    empty = {"model": "lgos.writer", "messages": []}
    said = [t async for t in pipe.pipe(empty, __task__="title_generation")]
    assert json.loads("".join(said)) == {"title": "Chat"}


def test_ledger_without_records_replays_text() -> None:
    history = [
        {"role": "system", "content": "be nice"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "bye"},
    ]
    assert lgos_pipe.ledger_input(history) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "bye"},
    ]


async def test_interrupt_answered_in_the_dialog(pipe: Any) -> None:
    events = Events([answered({"type": "option", "label": "approve"})])
    text = await run(
        pipe, "approval", [{"role": "user", "content": "refund 30 dollars"}], events
    )
    (request,) = events.calls
    assert request["type"] == "request:user_input"
    (question,) = request["data"]["questions"]
    assert "Approve this refund request?" in question["question"]
    # The card shows plain text: the quoted request without its ">" marker.
    assert question["question"].endswith("\n\n“refund 30 dollars”")
    assert [o["label"] for o in question["options"]] == ["approve", "reject"]
    assert question["allow_other"] is True
    assert "approved" in text.lower()
    assert pipe.store().pause("chat-1") is None


async def test_parallel_questions_in_one_dialog(pipe: Any) -> None:
    events = Events(
        [
            answered(
                {"type": "option", "label": "approve"},
                {"type": "other", "text": "only half"},
            )
        ]
    )
    text = await run(
        pipe,
        "approval",
        [{"role": "user", "content": "refund 30 dollars"}],
        events,
        valves={"approval__parallel_review": True},
    )
    (request,) = events.calls
    assert len(request["data"]["questions"]) == 2
    assert text


async def test_unanswered_question_waits_for_a_typed_reply(pipe: Any) -> None:
    events = Events([{"error": "Event call timed out."}, None])
    first = [{"role": "user", "content": "refund 30 dollars"}]
    note = await run(pipe, "approval", first, events)
    assert "Approve this refund request?" in note
    assert "Reply in this chat" in note
    pause = pipe.store().pause("chat-1")
    assert pause is not None and pause["response_id"]
    history = [*first, {"role": "assistant", "content": note}]
    history.append({"role": "user", "content": "Reject"})
    answer = await run(pipe, "approval", history, events)
    assert "reject" in answer.lower()
    assert pipe.store().pause("chat-1") is None
    # The note and the reply are not part of the replayed conversation.
    history += [
        {"role": "assistant", "content": answer},
        {"role": "user", "content": "again"},
    ]
    ledger = lgos_pipe.ledger_input(
        history, lambda text: pipe.store().answer("chat-1", text)
    )
    assert [i.get("content") for i in ledger if i.get("role") == "user"] == [
        "refund 30 dollars",
        "again",
    ]
    assert not any(i.get("name") == "lgos_interrupt" for i in ledger)


async def test_translator_events() -> None:
    translator = lgos_pipe.Translator()
    actions = []
    for event in [
        {
            "type": "response.output_item.added",
            "item": {"type": "message", "id": "c", "phase": "commentary"},
        },
        {"type": "response.output_text.delta", "item_id": "c", "delta": "thinking"},
        {
            "type": "response.output_item.done",
            "item": {
                "type": "message",
                "id": "c",
                "phase": "commentary",
                "content": [{"type": "output_text", "text": "thinking"}],
            },
        },
        {
            "type": "response.output_item.added",
            "item": {"type": "message", "id": "a", "phase": "final_answer"},
        },
        {"type": "response.output_text.delta", "item_id": "a", "delta": "Hi [1]"},
        {
            "type": "response.output_item.done",
            "item": {
                "type": "message",
                "id": "a",
                "phase": "final_answer",
                "content": [
                    {
                        "type": "output_text",
                        "text": "Hi [1]",
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "https://x",
                                "title": "X",
                                "start_index": 3,
                                "end_index": 6,
                            }
                        ],
                    }
                ],
            },
        },
        {"type": "response.completed", "response": {"id": "r", "output": []}},
    ]:
        actions += translator.feed(event)
    assert actions == [
        ("event", lgos_pipe.status_event("thinking")),
        ("text", "Hi [1]"),
        ("event", lgos_pipe.source_event("https://x", "X")),
    ]
    assert translator.response == {"id": "r", "output": []}
    json.dumps(actions)


async def test_background_run_is_polled(background_pipe: Any) -> None:
    pipe = background_pipe
    events = Events([answered({"type": "option", "label": "Start research"})])
    started = time.monotonic()
    text = await run(
        pipe,
        "deep-research",
        [
            {
                "role": "user",
                "content": "Compare how LangGraph and the OpenAI Agents SDK pause for approval",
            }
        ],
        events,
        valves={"deep_research__run_in_background": True},
    )
    seconds = time.monotonic() - started
    statuses = [s["description"] for s in events.of("status")]
    # Polled every POLL_INTERVAL, but a line only at the start of each run
    # (the plan review and the research) and every BACKGROUND_STATUS_EVERY s.
    running = [s for s in statuses if s.startswith("Running in the background")]
    assert 2 <= len(running) <= 2 + seconds // lgos_pipe.BACKGROUND_STATUS_EVERY
    assert statuses[-1].startswith("Done after ")
    (request,) = events.calls  # the plan review, asked in the dialog
    (question,) = request["data"]["questions"]
    assert question["question"].startswith("I plan to research")
    assert "research report" in text
    assert events.of("source")
    assert any(s.startswith("Searched: ") for s in statuses)


async def test_stop_during_the_dialog_keeps_the_pause(pipe: Any) -> None:
    class Stopped(Events):
        async def call(self, event: dict[str, Any]) -> Any:
            self.calls.append(event)
            raise asyncio.CancelledError  # Stop pressed while the dialog is open

    first = [{"role": "user", "content": "refund 30 dollars"}]
    with pytest.raises(asyncio.CancelledError):
        await run(pipe, "approval", first, Stopped())
    assert pipe.store().pause("chat-1") is not None
    history = [*first, {"role": "assistant", "content": ""}]
    history.append({"role": "user", "content": "approve"})
    answer = await run(pipe, "approval", history, Events())
    assert "approved" in answer.lower()
    assert pipe.store().pause("chat-1") is None


def test_models_from_the_gateways_model_info() -> None:
    """LiteLLM's /v1/model/info as the pinned gateway answers it (recorded by
    tests/ui for the Chainlit UI), plus a second deployment and a model that
    no sync reached."""
    recorded = json.loads(
        (
            Path(__file__).parents[1] / "ui" / "recorded" / "litellm_model_info.json"
        ).read_text()
    )
    chat = recorded["data"][0]
    data = [
        {"model_name": "chat", "model_info": {"id": "x"}},  # no sync yet
        *recorded["data"],
        {**chat, "model_info": {"id": "y", "lgos": {"description": "other"}}},
        {"model_name": "plain", "model_info": {}},
    ]
    models = lgos_pipe.models_from_model_info({"data": data})
    assert list(models) == ["chat", "writer", "plain"]
    chat_settings = models["chat"].client_settings
    assert chat_settings is not None
    assert chat_settings.defaults == {"use_history": False, "audience": "general"}
    assert models["chat"].description.startswith("Chat that writes")
    assert models["plain"] == lgos_pipe.ModelCapabilities(
        "plain", None, lgos_pipe.NO_GATEWAY_EXTENSION
    )
    with pytest.raises(ValueError):
        lgos_pipe.models_from_model_info({"error": "no"})


async def test_clients_are_made_once_per_loop_url_and_key() -> None:
    pipe = lgos_pipe.Pipe()
    pipe.valves.FILES_BASE_URL = "http://127.0.0.1:8002/v1"
    lgos, files = pipe.client(), pipe.files_client()
    try:
        assert pipe.client() is lgos
        assert pipe.files_client() is files
        assert files is not lgos
        pipe.valves.LGOS_API_KEY = "another-key"
        other = pipe.client()
        assert other is not lgos
        assert other.api_key == "another-key"
        await other.close()
        assert pipe.client() is not other  # a closed client is made again
        # Another event loop (a client's pool belongs to its loop) gets its own.
        elsewhere = await asyncio.to_thread(lambda: asyncio.run(_client_of(pipe)))
        assert elsewhere is not pipe.client()
    finally:
        await pipe.close()
    assert lgos.is_closed() and files.is_closed()


async def _client_of(pipe: Any) -> Any:
    client = pipe.client()
    await pipe.close()
    return client


async def test_functions_graph_calls_run_in_the_pipe(pipe: Any) -> None:
    events = Events()
    prompt = "What time is it in Tokyo, and roll two dice?"
    text = await run(pipe, "functions", [{"role": "user", "content": prompt}], events)
    statuses = [s["description"] for s in events.of("status")]
    [clock] = [s for s in statuses if s.startswith("Ran get_current_time(")]
    [dice] = [s for s in statuses if s.startswith("Ran roll_dice(")]
    time_result = json.loads(clock.split(" → ", 1)[1])
    dice_result = json.loads(dice.split(" → ", 1)[1])
    assert time_result["timezone"] == "Asia/Tokyo"
    assert len(dice_result["rolls"]) == 2
    assert dice_result["total"] == sum(dice_result["rolls"])
    # The graph wrote its answer from the results the pipe sent back.
    assert 'get_current_time(timezone="Asia/Tokyo")` returned' in text
    assert f'time: "{time_result["time"]}"' in text
    rolls = ", ".join(str(r) for r in dice_result["rolls"])
    assert f"rolls: [{rolls}], total: {dice_result['total']}" in text
    # The ledger keeps the calls and outputs, so the next turn replays them.
    record = pipe.store().answer("chat-1", text)
    kinds = [item.get("type") for item in record["items"]]
    assert kinds.count("function_call") == 2
    assert kinds.count("function_call_output") == 2


def test_local_function_errors_are_results() -> None:
    def call(name: str, arguments: str) -> tuple[str, bool]:
        return lgos_pipe.run_local_function(
            {
                "type": "function_call",
                "call_id": "c",
                "name": name,
                "arguments": arguments,
            }
        )

    assert call("roll_dice", '{"sides": 1, "count": 1}') == (
        '{"error":"roll_dice failed: sides must be between 2 and 100"}',
        False,
    )
    assert call("get_current_time", '{"timezone": "Mars/Base"}')[1] is False
    assert call("get_current_time", '{"tz": "UTC"}') == (
        '{"error":"get_current_time failed: unexpected argument(s): tz"}',
        False,
    )
    assert call("roll_dice", "[1]")[1] is False
    output, ok = call("roll_dice", '{"sides": 6, "count": 3}')
    assert ok and len(json.loads(output)["rolls"]) == 3
