"""The `server-tools` graph through the OpenAI SDK, in-process (offline model)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

import httpx
import pytest
from openai import AsyncOpenAI

from langgraph_openai_serve.graph.citations import citation_slice
from langgraph_openai_serve.testing import parse_sse
from lgos_demo_api.graphs.server_tools import (
    SERVER_TOOLS,
    graph_topology,
    package_versions,
    server_tools_graph_config,
)
from lgos_demo_api.search import web_search_tool
from lgos_demo_api.settings import DemoApiSettings
from tests.contract.openapi import validate
from tests.demo.stubs import ScriptedSearch, sdk_client

pytestmark = pytest.mark.anyio

VERSION = {"type": "custom", "name": "lgos_package_version"}
TOPOLOGY = {"type": "custom", "name": "lgos_graph_topology"}
SEARCH = {"type": "web_search"}
ALL = [VERSION, TOPOLOGY, SEARCH]


class Env:
    def __init__(self, openai: AsyncOpenAI, http: httpx.AsyncClient) -> None:
        self.openai = openai
        self.http = http


@pytest.fixture
def search() -> ScriptedSearch:
    return ScriptedSearch()


@pytest.fixture
async def env(
    offline_settings: DemoApiSettings, search: ScriptedSearch
) -> AsyncIterator[Env]:
    config = server_tools_graph_config(offline_settings, search=web_search_tool(search))
    async for openai, http in sdk_client({"server-tools": config}):
        yield Env(openai, http)


async def create(env: Env, **request: Any) -> dict[str, Any]:
    response = await env.openai.responses.create(model="server-tools", **request)
    data = response.model_dump(mode="json", exclude_unset=True)
    validate("Response", data)
    return data


async def stream(env: Env, **request: Any) -> list[dict[str, Any]]:
    reply = await env.http.post(
        "/v1/responses", json={"model": "server-tools", "stream": True, **request}
    )
    assert reply.status_code == 200, reply.text
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    return events


def answer_of(response: dict[str, Any]) -> dict[str, Any]:
    [message] = [i for i in response["output"] if i["type"] == "message"]
    return message["content"][0]


def check_citations(part: dict[str, Any], allowed: set[str]) -> int:
    text = part["text"]
    for note in part["annotations"]:
        assert note["type"] == "url_citation"
        assert note["url"] in allowed
        cited = text[citation_slice(note["start_index"], note["end_index"], text)]
        assert cited.startswith("[") and cited.endswith("]")
    return len(part["annotations"])


async def test_custom_tools_and_searches_in_one_response(
    env: Env, search: ScriptedSearch
) -> None:
    response = await create(
        env,
        input="Which pydantic version is installed? Also search: graphs, bm25",
        tools=[VERSION, SEARCH],
    )
    kinds = [item["type"] for item in response["output"]]
    assert kinds == [
        "custom_tool_call",
        "web_search_call",
        "web_search_call",
        "custom_tool_call_output",
        "message",
    ]
    call, output = response["output"][0], response["output"][3]
    assert (call["name"], call["input"]) == ("lgos_package_version", "pydantic")
    assert output["call_id"] == call["call_id"]
    assert output["output"] == f"pydantic=={version('pydantic')}"
    queries = [i["action"]["query"] for i in response["output"][1:3]]
    assert queries == ["graphs", "bm25"]
    assert sorted(search.queries) == ["bm25", "graphs"]  # ran in the ToolNode
    assert all(i["status"] == "completed" for i in response["output"])
    answer = answer_of(response)
    assert f"pydantic=={version('pydantic')}" in answer["text"]
    assert check_citations(answer, search.urls()) == 4


async def test_streaming_events(env: Env) -> None:
    events = await stream(
        env,
        input="Show the deep-research topology and search: subgraphs",
        tools=ALL,
    )
    types = [e["type"] for e in events]
    assert types.count("response.custom_tool_call_input.delta") == 1
    assert types.count("response.custom_tool_call_input.done") == 1
    for kind in ("in_progress", "searching", "completed"):
        assert types.count(f"response.web_search_call.{kind}") == 1
    assert types.index("response.web_search_call.completed") < types.index(
        "response.output_text.delta"
    )
    assert "response.output_text.annotation.added" in types
    delta = next(
        e for e in events if e["type"] == "response.custom_tool_call_input.delta"
    )
    assert delta["delta"] == "deep-research"
    final = events[-1]
    assert final["type"] == "response.completed"
    output = final["response"]["output"]
    topology = next(i for i in output if i["type"] == "custom_tool_call_output")
    assert "subgraph researcher" in topology["output"]
    assert "scope\\3atriage" in topology["output"]


async def test_tool_choice_required_forces_a_search(
    env: Env, search: ScriptedSearch
) -> None:
    response = await create(
        env, input="Hello there", tools=[SEARCH], tool_choice="required"
    )
    assert [i["type"] for i in response["output"]] == ["web_search_call", "message"]
    assert search.queries == ["hello"]


async def test_named_custom_choice_calls_that_tool(env: Env) -> None:
    response = await create(
        env,
        input="Hello there",
        tools=ALL,
        tool_choice={"type": "custom", "name": "lgos_graph_topology"},
    )
    kinds = [i["type"] for i in response["output"]]
    assert kinds == ["custom_tool_call", "custom_tool_call_output", "message"]
    assert response["output"][0]["input"] == "server-tools"
    assert "select" in response["output"][1]["output"]


async def test_no_tools_none_choice_and_unselected_tools(
    env: Env, search: ScriptedSearch
) -> None:
    plain = await create(env, input="Which version? search: x")
    assert [i["type"] for i in plain["output"]] == ["message"]
    assert "No tool ran" in answer_of(plain)["text"]
    none = await create(
        env, input="Which version? search: x", tools=ALL, tool_choice="none"
    )
    assert [i["type"] for i in none["output"]] == ["message"]
    only_version = await create(env, input="Which version? search: x", tools=[VERSION])
    assert [i["type"] for i in only_version["output"]] == [
        "custom_tool_call",
        "custom_tool_call_output",
        "message",
    ]
    assert search.queries == []


async def test_without_a_tool_to_run_the_reply_names_the_ui_switches(
    env: Env,
) -> None:
    """The demo UI shows one switch per server tool, labelled "Web search",
    "lgos_package_version" and "lgos_graph_topology": the reply names those."""
    none = answer_of(await create(env, input="Hello there"))["text"]
    assert "No tool ran: none is selected." in none
    assert (
        "Turn on lgos_package_version, lgos_graph_topology or Web search in the "
        "chat settings"
    ) in none
    assert "ask for a package version, a graph topology or a search." in none

    search_only = answer_of(await create(env, input="Thanks!", tools=[SEARCH]))
    text = search_only["text"]
    assert "With Web search on, ask for a search (“Search: LangGraph streaming”)." in (
        text
    )
    assert (
        "lgos_package_version and lgos_graph_topology are off: turn them on in the "
        "chat settings."
    ) in text

    both = answer_of(await create(env, input="Thanks!", tools=[VERSION, SEARCH]))
    assert "With lgos_package_version and Web search on" in both["text"]
    assert "lgos_graph_topology is off: turn it on" in both["text"]
    every = answer_of(await create(env, input="Thanks!", tools=ALL))["text"]
    assert "(“Show the deep-research topology”)" in every
    assert "are off" not in every and "is off" not in every

    # Each suggested example runs its tool once that tool is on.
    for example, tool in (
        ("Which pydantic version is installed?", VERSION),
        ("Show the deep-research topology", TOPOLOGY),
        ("Search: LangGraph streaming", SEARCH),
    ):
        ran = await create(env, input=example, tools=[tool])
        assert ran["output"][0]["type"] != "message", example


async def test_parallel_tool_calls_false_runs_one_call(
    env: Env, search: ScriptedSearch
) -> None:
    response = await create(
        env, input="search: a, b, c", tools=[SEARCH], parallel_tool_calls=False
    )
    assert [i["type"] for i in response["output"]] == ["web_search_call", "message"]
    assert search.queries == ["a"]


async def test_failed_search_is_a_failed_item(env: Env, search: ScriptedSearch) -> None:
    response = await create(env, input="search: fail here, ok", tools=[SEARCH])
    statuses = [(i["type"], i.get("status")) for i in response["output"]]
    assert statuses == [
        ("web_search_call", "failed"),
        ("web_search_call", "completed"),
        ("message", "completed"),
    ]
    assert response["status"] == "completed"
    text = answer_of(response)["text"]
    assert "The search for 'fail here' failed" in text
    assert check_citations(answer_of(response), search.urls()) == 2


async def test_replayed_history_is_not_emitted_again(env: Env) -> None:
    first = await env.openai.responses.create(
        model="server-tools", input="search: graphs", tools=[SEARCH]
    )
    ledger: list[Any] = [{"role": "user", "content": "search: graphs"}]
    ledger += [item.model_dump(exclude_none=True) for item in first.output]
    ledger.append({"role": "user", "content": "thanks"})
    second = await create(env, input=ledger, tools=[SEARCH])
    assert [i["type"] for i in second["output"]] == ["message"]


async def test_chat_completions_can_invoke_but_not_select(env: Env) -> None:
    completion = await env.openai.chat.completions.create(
        model="server-tools", messages=[{"role": "user", "content": "search: x"}]
    )
    validate(
        "CreateChatCompletionResponse",
        completion.model_dump(mode="json", exclude_unset=True),
    )
    assert "No tool ran" in (completion.choices[0].message.content or "")


async def test_discovery_lists_the_server_tools(env: Env) -> None:
    model = await env.openai.models.retrieve("server-tools")
    extension = model.model_extra["lgos"]  # type: ignore[index]
    assert sorted(extension["server_tools"]) == sorted(SERVER_TOOLS)
    assert "offline demo model" in extension["description"]
    # It names the tools as the UI's switches do, and where they are.
    description = extension["description"]
    assert "Turn them on in the chat settings" in description
    for label in ("lgos_package_version", "lgos_graph_topology", "Web search"):
        assert label in description


def test_package_versions() -> None:
    assert package_versions("pydantic") == f"pydantic=={version('pydantic')}"
    assert package_versions("no-such-package-lgos") == (
        "no-such-package-lgos is not installed"
    )
    assert package_versions("../etc") == "'../etc' is not a valid package name"
    assert package_versions("  ") == "No package name given."
    lines = package_versions("httpx, openai").splitlines()
    assert lines == [f"httpx=={version('httpx')}", f"openai=={version('openai')}"]
    many = package_versions(",".join(["httpx"] * 12)).splitlines()
    assert len(many) == 11 and "first 10" in many[-1]


def test_graph_topology() -> None:
    chart = graph_topology(" 'server-tools' ")
    assert "select" in chart and "tools" in chart and "answer" in chart
    assert "Unknown model 'chat'" in graph_topology("chat")
