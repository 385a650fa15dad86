"""`deep-research` through the OpenAI SDK, in-process, on the offline model.

Searches go to `ScriptedSearch`, so every test knows which URLs exist. Each
Response and stream event is validated against OpenAI's OpenAPI document.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.memory import InMemoryStore
from openai import AsyncOpenAI

from langgraph_openai_serve.graph.citations import citation_slice
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.server import ServerResources
from langgraph_openai_serve.testing import parse_sse
from lgos_demo_api.graphs.deep_research import (
    build_deep_research_graph,
    deep_research_graph_config,
)
from lgos_demo_api.graphs.deep_research_offline import (
    REFUSAL,
    offline_research_model,
    plan_for,
)
from lgos_demo_api.graphs.deep_research_prompts import (
    ANSWER_NOW,
    START_RESEARCH,
    review_question,
)
from lgos_demo_api.graphs.deep_research_state import (
    DeepResearchContext,
    DeepResearchSettings,
)
from lgos_demo_api.search import web_search_tool
from lgos_demo_api.settings import DemoApiSettings
from tests.contract.openapi import validate
from tests.demo.stubs import ScriptedSearch, sdk_client

pytestmark = pytest.mark.anyio

MODEL = "deep-research"
WEB = [{"type": "web_search"}]
QUESTION = "Compare how LangGraph and the OpenAI Agents SDK pause for approval."
SIMPLE = "What is 2 + 3?"
TIME_FUNCTION = {
    "type": "function",
    "name": "get_current_time",
    "description": "The current time in a time zone.",
    "parameters": {
        "type": "object",
        "properties": {"timezone": {"type": "string"}},
        "required": ["timezone"],
        "additionalProperties": False,
    },
    "strict": True,
}
DICE_FUNCTION = {
    "type": "function",
    "name": "roll_dice",
    "description": "Roll dice.",
    "parameters": {
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
        "additionalProperties": False,
    },
    "strict": True,
}


class Env:
    """An in-process LGOS serving `deep-research` on scripted searches."""

    def __init__(self, search: ScriptedSearch) -> None:
        self.search = search
        self.saver = InMemorySaver()
        self.coordinator = InMemoryRunCoordinator()
        self.openai: AsyncOpenAI
        self.http: httpx.AsyncClient

    async def threads(self) -> set[str]:
        return {
            c.config["configurable"]["thread_id"] async for c in self.saver.alist(None)
        }

    async def create(self, **request: Any) -> dict[str, Any]:
        response = await self.openai.responses.create(model=MODEL, **request)
        data = response.model_dump(mode="json", exclude_unset=True)
        validate("Response", data)
        return data

    async def stream(self, **request: Any) -> list[dict[str, Any]]:
        reply = await self.http.post(
            "/v1/responses", json={"model": MODEL, "stream": True, **request}
        )
        assert reply.status_code == 200, reply.text
        events = parse_sse(reply.text)
        for event in events:
            validate("ResponseStreamEvent", event)
        return events

    async def answer(
        self, paused: dict[str, Any], reply: str, **request: Any
    ) -> dict[str, Any]:
        [call] = reviews(paused)
        return await self.create(
            previous_response_id=paused["id"],
            input=[
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": reply,
                }
            ],
            **request,
        )


def make_env_fixture(search_factory: Callable[[], ScriptedSearch]):
    async def fixture(offline_settings: DemoApiSettings) -> AsyncIterator[Env]:
        env = Env(search_factory())
        resources = ServerResources(env.saver, InMemoryStore(), env.coordinator)
        config = deep_research_graph_config(
            offline_settings, resources, search=web_search_tool(env.search)
        )
        async for client, http in sdk_client({MODEL: config}, env.coordinator):
            env.openai, env.http = client, http
            yield env

    return fixture


env = pytest.fixture(make_env_fixture(ScriptedSearch))


def reviews(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        item
        for item in response["output"]
        if item["type"] == "function_call" and item["name"] == "lgos_interrupt"
    ]


def review_payload(response: dict[str, Any]) -> dict[str, Any]:
    [call] = reviews(response)
    return json.loads(call["arguments"])


def message(response: dict[str, Any]) -> dict[str, Any]:
    [item] = [i for i in response["output"] if i["type"] == "message"]
    return item


def text_of(response: dict[str, Any]) -> str:
    return "".join(
        part["text"]
        for part in message(response)["content"]
        if part["type"] == "output_text"
    )


def searches(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in response["output"] if i["type"] == "web_search_call"]


def settings(**values: Any) -> dict[str, str]:
    return {"lgos_settings": json.dumps(values)}


def check_report(response: dict[str, Any], search: ScriptedSearch) -> str:
    """Validate the report's citations; return its text."""
    [part] = message(response)["content"]
    text = part["text"]
    assert part["annotations"], "the report cites its sources"
    for note in part["annotations"]:
        assert note["type"] == "url_citation"
        assert note["url"] in search.urls(), note["url"]
        cited = text[citation_slice(note["start_index"], note["end_index"], text)]
        assert cited.startswith("[") and cited.endswith("]")
    return text


# ----------------------------------------------------------------- topology

SEED_EDGES = {
    ("__start__", "scope:__start__", False),
    ("researcher:__end__", "report", False),
    ("scope:__end__", "answer", True),
    ("scope:__end__", "researcher:__start__", True),
    ("answer", "__end__", False),
    ("report", "__end__", False),
    ("scope:__start__", "scope:triage", False),
    ("scope:review", "scope:__end__", True),
    ("scope:review", "scope:triage", True),
    ("scope:triage", "scope:__end__", True),
    ("scope:triage", "scope:review", True),
    ("scope:review", "scope:review", True),
    ("researcher:__start__", "researcher:search", False),
    ("researcher:search", "researcher:__end__", True),
    ("researcher:search", "researcher:tools", True),
    ("researcher:tools", "researcher:search", False),
}


def test_topology_matches_the_specification() -> None:
    saver = InMemorySaver()
    graph = build_deep_research_graph(
        offline_research_model(),
        web_search_tool(ScriptedSearch()),
        checkpointer=saver,
    )
    drawn = graph.get_graph(xray=True)
    edges = {(e.source, e.target, e.conditional) for e in drawn.edges}
    assert edges == SEED_EDGES
    assert set(drawn.nodes) == {n for e in SEED_EDGES for n in e[:2]}
    mermaid = drawn.draw_mermaid()
    assert "subgraph scope" in mermaid and "subgraph researcher" in mermaid
    assert "scope\\3a__end__ -.-> researcher\\3a__start__;" in mermaid
    # Both subgraphs are compiled graphs added as nodes, without checkpointers.
    subgraphs = dict(graph.get_subgraphs())
    assert set(subgraphs) == {"scope", "researcher"}
    for subgraph in subgraphs.values():
        assert isinstance(subgraph, CompiledStateGraph)
        assert subgraph.checkpointer is None
    assert graph.checkpointer is saver


async def test_discovery(env: Env) -> None:
    model = await env.openai.models.retrieve(MODEL)
    lgos = model.model_extra["lgos"]  # type: ignore[index]
    assert lgos["features"] == ["background", "file_inputs", "interrupts"]
    assert lgos["server_tools"] == ["web_search"]
    assert "offline demo model" in lgos["description"]
    schema = lgos["client_settings"]["json_schema"]["properties"]
    assert schema["review_plan"]["title"] == "Review plan"
    assert (
        schema["research_rounds"]["minimum"],
        schema["research_rounds"]["maximum"],
    ) == (1, 5)
    assert lgos["client_settings"]["defaults"] == {
        "review_plan": True,
        "research_rounds": 2,
    }


async def test_chat_completions_rejects_the_model(env: Env) -> None:
    with pytest.raises(openai.BadRequestError) as rejected:
        await env.openai.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "hi"}]
        )
    validate("ErrorResponse", rejected.value.response.json())


# -------------------------------------------------------------- triage paths


async def test_simple_request_gets_a_direct_answer(env: Env) -> None:
    response = await env.create(input=SIMPLE, tools=WEB)
    assert [i["type"] for i in response["output"]] == ["message"]
    assert text_of(response) == "2 + 3 = 5."
    greeting = await env.create(input="Hello!", tools=WEB)
    assert text_of(greeting).startswith("Hello!")
    assert env.search.queries == []
    assert await env.threads() == set()


async def test_research_question_pauses_with_the_plan(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    assert paused["status"] == "completed"
    payload = review_payload(paused)
    plan = plan_for(QUESTION)
    assert 3 <= len(plan) <= 5
    assert payload == {
        "question": review_question(plan),
        "choices": [START_RESEARCH, ANSWER_NOW],
        "allow_other": True,
        "plan": plan,
    }
    for question in plan:
        assert question in payload["question"]
    assert env.search.queries == []  # nothing runs while a plan waits


async def test_refusal_reaches_the_answer_as_refusal_content(env: Env) -> None:
    response = await env.create(input="Research how to build a bomb", tools=WEB)
    assert message(response)["content"] == [{"type": "refusal", "refusal": REFUSAL}]
    assert env.search.queries == []


async def test_no_triage_decision_gets_the_direct_answer() -> None:
    model = offline_research_model().model_copy(
        update={"structured_responder": lambda messages, schema: AIMessage("")}
    )
    graph = build_deep_research_graph(model, web_search_tool(ScriptedSearch()))
    output = await graph.ainvoke(
        {"messages": [HumanMessage(QUESTION)]},
        context=DeepResearchContext(web_search=True),
    )
    assert output["refusal"] is None
    assert "answering directly without research" in output["messages"][-1].text


# ------------------------------------------------------------- plan review


async def test_start_research(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    plan = review_payload(paused)["plan"]
    report = await env.answer(paused, START_RESEARCH, tools=WEB)
    items = searches(report)
    # One web_search_call per search that ran, each with its query.
    assert len(items) == len(env.search.queries)
    assert sorted(i["action"]["query"] for i in items) == sorted(env.search.queries)
    assert all(i["status"] == "completed" for i in items)
    assert [i["type"] for i in report["output"]][-1] == "message"
    text = check_report(report, env.search)
    for number, question in enumerate(plan, start=1):
        assert f"**{number}. {question}**" in text
    assert report["id"].split("_")[2] == paused["id"].split("_")[2]
    assert await env.threads() == set()


async def test_start_research_is_case_insensitive(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    report = await env.answer(paused, "  start RESEARCH ", tools=WEB)
    assert searches(report)


async def test_answer_now_answers_the_request_directly(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    done = await env.answer(paused, ANSWER_NOW, tools=WEB)
    assert [i["type"] for i in done["output"]] == ["message"]
    assert "answering directly without research" in text_of(done)
    assert QUESTION in text_of(done)
    assert env.search.queries == []


async def test_an_edit_revises_the_plan_and_asks_again(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    plan = review_payload(paused)["plan"]
    edited = await env.answer(
        paused, "Add how each one resumes after a crash", tools=WEB
    )
    revised = review_payload(edited)["plan"]
    assert revised == [
        *plan,
        "What do the sources explain about how each one resumes after a crash?",
    ]
    removed = await env.answer(edited, "remove 1", tools=WEB)
    assert review_payload(removed)["plan"] == revised[1:]
    # The edit stays out of the conversation: Answer now answers the request.
    done = await env.answer(removed, ANSWER_NOW, tools=WEB)
    assert QUESTION in text_of(done)
    assert "crash" not in text_of(done)


async def test_a_blank_answer_asks_again_with_the_same_plan(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    again = await env.answer(paused, "   ", tools=WEB)
    assert review_payload(again) == review_payload(paused)
    assert reviews(again)[0]["call_id"] != reviews(paused)[0]["call_id"]
    report = await env.answer(again, START_RESEARCH, tools=WEB)
    assert searches(report)


async def test_review_plan_off_researches_without_a_pause(env: Env) -> None:
    report = await env.create(
        input=QUESTION, tools=WEB, metadata=settings(review_plan=False)
    )
    assert not reviews(report)
    assert searches(report)
    check_report(report, env.search)


# ------------------------------------------------------------ web search off


async def test_web_search_off_asks_to_turn_it_on(env: Env) -> None:
    response = await env.create(input=QUESTION)
    assert not reviews(response)  # the plan skips the review
    text = text_of(response)
    assert "Turn on Web search" in text
    for question in plan_for(QUESTION):
        assert question in text
    assert env.search.queries == []


async def test_web_search_turned_off_before_start_research(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    done = await env.answer(paused, START_RESEARCH)  # no tools this time
    assert [i["type"] for i in done["output"]] == ["message"]
    assert "Turn on Web search" in text_of(done)
    assert env.search.queries == []


# ------------------------------------------------------------- tool_choice


async def test_tool_choice_none_answers_directly(env: Env) -> None:
    response = await env.create(input=QUESTION, tools=WEB, tool_choice="none")
    assert [i["type"] for i in response["output"]] == ["message"]
    assert "answering directly" in text_of(response)


async def test_named_function_choice_answers_with_that_call(env: Env) -> None:
    response = await env.create(
        input=QUESTION,
        tools=[*WEB, TIME_FUNCTION, DICE_FUNCTION],
        tool_choice={"type": "function", "name": "roll_dice"},
    )
    [call] = [i for i in response["output"] if i["type"] == "function_call"]
    assert call["name"] == "roll_dice"
    assert not reviews(response)


async def test_required_with_only_web_search_researches_a_simple_request(
    env: Env,
) -> None:
    paused = await env.create(input=SIMPLE, tools=WEB, tool_choice="required")
    assert review_payload(paused)["plan"] == plan_for(SIMPLE)
    report = await env.create(
        input=SIMPLE,
        tools=WEB,
        tool_choice="required",
        metadata=settings(review_plan=False),
    )
    assert searches(report)
    check_report(report, env.search)


async def test_answer_binds_client_functions(env: Env) -> None:
    both = [TIME_FUNCTION, DICE_FUNCTION]
    first = await env.create(input="What time is it? And roll the dice.", tools=both)
    calls = [i for i in first["output"] if i["type"] == "function_call"]
    assert [c["name"] for c in calls] == ["get_current_time", "roll_dice"]
    single = await env.create(
        input="What time is it? And roll the dice.",
        tools=both,
        parallel_tool_calls=False,
    )
    assert [i["name"] for i in single["output"] if i["type"] == "function_call"] == [
        "get_current_time"
    ]
    none = await env.create(input="What time is it?", tools=both, tool_choice="none")
    assert [i["type"] for i in none["output"]] == ["message"]
    # The client runs the call and sends the result back with the conversation.
    [call] = [i for i in single["output"] if i["type"] == "function_call"]
    follow_up = await env.create(
        input=[
            {"role": "user", "content": "What time is it?"},
            call,
            {
                "type": "function_call_output",
                "call_id": call["call_id"],
                "output": "12:00",
            },
        ],
        tools=both,
    )
    assert (
        text_of(follow_up) == "The functions answered: get_current_time returned 12:00."
    )


# ------------------------------------------------------------ researchers


async def test_researchers_run_in_parallel(offline_settings: DemoApiSettings) -> None:
    search = ScriptedSearch(delay=0.3)
    fixture = make_env_fixture(lambda: search)
    async for env in fixture(offline_settings):
        plan = plan_for(QUESTION)
        started = time.monotonic()
        report = await env.create(
            input=QUESTION,
            tools=WEB,
            metadata=settings(review_plan=False, research_rounds=1),
        )
        elapsed = time.monotonic() - started
        # N questions -> N researchers, each running its round's searches at once.
        assert len(search.queries) == 2 * len(plan)
        assert search.max_in_flight == 2 * len(plan)
        assert elapsed < 2 * 0.3 * len(plan)  # sequential would take 2.4 s
        text = check_report(report, search)
        for question in plan:
            assert question in text


async def test_failed_searches_are_worked_around(
    offline_settings: DemoApiSettings,
) -> None:
    # Queries of three words or more fail; the retry round uses shorter ones.
    search = ScriptedSearch(fail_when=lambda query: len(query.split()) >= 3)
    async for env in make_env_fixture(lambda: search)(offline_settings):
        report = await env.create(
            input="Research the latest langgraph checkpoint storage backends",
            tools=WEB,
            metadata=settings(review_plan=False),
        )
        items = searches(report)
        statuses = {i["action"]["query"]: i["status"] for i in items}
        assert "failed" in statuses.values()
        assert "completed" in statuses.values()
        for query, status in statuses.items():
            assert status == ("failed" if len(query.split()) >= 3 else "completed")
        assert report["status"] == "completed"
        text = check_report(report, search)
        assert "Unanswered" not in text


async def test_one_round_leaves_failed_questions_unanswered(
    offline_settings: DemoApiSettings,
) -> None:
    search = ScriptedSearch(fail_when=lambda query: True)
    async for env in make_env_fixture(lambda: search)(offline_settings):
        report = await env.create(
            input=QUESTION,
            tools=WEB,
            metadata=settings(review_plan=False, research_rounds=1),
        )
        assert {i["status"] for i in searches(report)} == {"failed"}
        [part] = message(report)["content"]
        assert part["annotations"] == []
        assert part["text"].count("Unanswered:") == len(plan_for(QUESTION))


async def test_rounds_come_from_the_request_that_starts_research(
    offline_settings: DemoApiSettings,
) -> None:
    search = ScriptedSearch(fail_when=lambda query: True)
    async for env in make_env_fixture(lambda: search)(offline_settings):
        paused = await env.create(
            input=QUESTION, tools=WEB, metadata=settings(research_rounds=1)
        )
        await env.answer(
            paused, START_RESEARCH, tools=WEB, metadata=settings(research_rounds=3)
        )
        # Every search fails, so each researcher uses all three rounds it was
        # given by the answer (1 + 2 + 1 candidate queries per question).
        per_question = 4
        assert len(search.queries) == per_question * len(plan_for(QUESTION))


# --------------------------------------------------------------- streaming


async def test_streamed_research(env: Env) -> None:
    paused = await env.create(input=QUESTION, tools=WEB)
    [call] = reviews(paused)
    events = await env.stream(
        previous_response_id=paused["id"],
        input=[
            {
                "type": "function_call_output",
                "call_id": call["call_id"],
                "output": START_RESEARCH,
            }
        ],
        tools=WEB,
    )
    types = [e["type"] for e in events]
    assert types.count("response.web_search_call.completed") == len(env.search.queries)
    commentary = [
        e["item"]["content"][0]["text"]
        for e in events
        if e["type"] == "response.output_item.done"
        and e["item"]["type"] == "message"
        and e["item"].get("phase") == "commentary"
    ]
    assert commentary[0] == f"Starting {len(plan_for(QUESTION))} researchers"
    assert commentary[-1].startswith("Writing the report from ")
    final = events[-1]
    assert final["type"] == "response.completed"
    [answer] = [
        i
        for i in final["response"]["output"]
        if i["type"] == "message" and i.get("phase") == "final_answer"
    ]
    streamed = "".join(
        e["delta"]
        for e in events
        if e["type"] == "response.output_text.delta" and e["item_id"] == answer["id"]
    )
    assert streamed == answer["content"][0]["text"]
    first_answer_delta = next(
        n
        for n, e in enumerate(events)
        if e["type"] == "response.output_text.delta" and e["item_id"] == answer["id"]
    )
    last_search = max(
        n for n, t in enumerate(types) if t == "response.web_search_call.completed"
    )
    assert last_search < first_answer_delta  # searches finish before the report


async def test_researchers_stream_a_status_per_search(env: Env) -> None:
    events = await env.stream(
        input=QUESTION, tools=WEB, metadata=settings(review_plan=False)
    )
    commentary = [
        e["item"]["content"][0]["text"]
        for e in events
        if e["type"] == "response.output_item.done"
        and e["item"].get("phase") == "commentary"
    ]
    searching = [t for t in commentary if t.startswith("Searching the web: ")]
    assert len(searching) == len(env.search.queries)


async def test_researchers_write_a_status_per_search() -> None:
    """The graph itself emits them (nested custom stream parts)."""
    search = ScriptedSearch()
    graph = build_deep_research_graph(
        offline_research_model(), web_search_tool(search), checkpointer=None
    )
    context = DeepResearchContext(
        settings=DeepResearchSettings(review_plan=False, research_rounds=1),
        web_search=True,
    )
    statuses: list[tuple[tuple[str, ...], str]] = []
    async for part in graph.astream(
        {"messages": [HumanMessage(QUESTION)]},
        context=context,
        stream_mode="custom",
        subgraphs=True,
        version="v2",
    ):
        statuses.append((part["ns"], part["data"]["description"]))
    searching = [(ns, d) for ns, d in statuses if d.startswith("Searching the web: ")]
    assert sorted(
        d.removeprefix("Searching the web: ") for _, d in searching
    ) == sorted(search.queries)
    assert all(ns and ns[0].startswith("researcher:") for ns, _ in searching)
    assert len({ns for ns, _ in searching}) == len(plan_for(QUESTION))


# ------------------------------------------------------ the documented flow


async def test_python_sdk_example_foreground(env: Env, capsys: Any) -> None:
    """The specification's SDK example, with the research in the foreground."""
    client = env.openai
    model = "deep-research"
    tools: Any = [{"type": "web_search"}]

    pending = await client.responses.create(
        model=model,
        input="Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
        tools=tools,
        store=False,
    )
    reviews_ = [
        item
        for item in pending.output
        if item.type == "function_call" and item.name == "lgos_interrupt"
    ]
    for review in reviews_:
        print(json.loads(review.arguments)["question"])

    report = await client.responses.create(
        model=model,
        previous_response_id=pending.id,
        input=[
            {
                "type": "function_call_output",
                "call_id": review.call_id,
                "output": "Start research",
            }
            for review in reviews_
        ],
        tools=tools,
    )
    print(report.output_text)

    for response in (pending, report):
        validate("Response", response.model_dump(mode="json", exclude_unset=True))
    printed = capsys.readouterr().out
    assert "I plan to research these questions" in printed
    assert "research report" in printed
    assert report.status == "completed"
    assert [i.type for i in report.output].count("web_search_call") == len(
        env.search.queries
    )
