"""`deep-research` with attachments: triage, report and answer read them;
researchers never do."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.server import ServerResources
from lgos_demo_api.files_client import FilesClient
from lgos_demo_api.graphs.deep_research import (
    build_deep_research_graph,
    deep_research_graph_config,
)
from lgos_demo_api.graphs.deep_research_offline import offline_research_model
from lgos_demo_api.graphs.deep_research_prompts import (
    ANSWER_PROMPT,
    REPORT_PROMPT,
    RESEARCH_PROMPT,
    START_RESEARCH,
)
from lgos_demo_api.graphs.deep_research_state import (
    DeepResearchContext,
    DeepResearchSettings,
)
from lgos_demo_api.offline import OfflineChatModel, RecordingResponder
from lgos_demo_api.search import web_search_tool
from lgos_demo_api.settings import DemoApiSettings
from tests.contract.openapi import validate
from tests.demo.fake_files import FakeFiles, files_client
from tests.demo.stubs import ScriptedSearch, sdk_client

pytestmark = pytest.mark.anyio

SECRET = "ZEBRA-7741"
MEMO = f"# Internal memo\n\nCodename {SECRET}: approvals must pause for review.\n"
RESEARCH = "Compare how LangGraph and the OpenAI Agents SDK pause for approval"


@pytest.fixture
def fake() -> FakeFiles:
    return FakeFiles()


@pytest.fixture
async def files(fake: FakeFiles) -> AsyncIterator[FilesClient]:
    async with files_client(fake) as client:
        yield client


class Recorder:
    """The offline research model, recording every model input."""

    def __init__(self) -> None:
        base = offline_research_model()
        self.plain = RecordingResponder(inner=base.responder)
        self.triage: list[list[BaseMessage]] = []

        def triage(messages: list[BaseMessage], schema: Any) -> Any:
            self.triage.append(list(messages))
            return base.structured_responder(messages, schema)

        self.model = OfflineChatModel(responder=self.plain, structured_responder=triage)

    def calls(self, prompt: str) -> list[list[BaseMessage]]:
        return [
            call.messages
            for call in self.plain.calls
            if str(call.messages[0].text).startswith(prompt[:40])
        ]


def text_of(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.text) for m in messages)


def with_memo(text: str, file_id: str) -> HumanMessage:
    return HumanMessage(
        content=[
            {"type": "text", "text": text},
            {"type": "file", "file_id": file_id},
        ]
    )


async def test_researchers_never_see_attachments(
    fake: FakeFiles, files: FilesClient
) -> None:
    memo = fake.add("memo.md", MEMO.encode(), "text/markdown")
    recorder, search = Recorder(), ScriptedSearch()
    graph = build_deep_research_graph(
        recorder.model, web_search_tool(search), files=files
    )
    context = DeepResearchContext(
        settings=DeepResearchSettings(review_plan=False), web_search=True
    )
    result = await graph.ainvoke(
        {"messages": [with_memo(RESEARCH, memo)]}, context=context
    )

    (triage,) = recorder.triage
    assert "## Attachment: memo.md" in text_of(triage)
    assert SECRET in text_of(triage)

    research = recorder.calls(RESEARCH_PROMPT)
    assert len(research) >= len(result["plan"]) >= 3
    for messages in research:
        assert SECRET not in text_of(messages)
        assert "Attachment" not in text_of(messages)
        assert memo not in repr(messages)  # not even the file ID
    assert search.queries
    assert not any(SECRET in query for query in search.queries)

    (report,) = recorder.calls(REPORT_PROMPT)
    assert SECRET in text_of(report)
    assert "## Attachment: memo.md" in str(report[-1].text)

    # The state keeps the file ID, never the text; one download per run.
    assert SECRET not in repr(result["messages"])
    assert {"type": "file", "file_id": memo} in result["messages"][0].content
    assert fake.downloads[memo] == 1


async def test_a_direct_answer_reads_the_attachment(
    fake: FakeFiles, files: FilesClient
) -> None:
    memo = fake.add("memo.md", MEMO.encode())
    recorder = Recorder()
    graph = build_deep_research_graph(
        recorder.model, web_search_tool(ScriptedSearch()), files=files
    )
    result = await graph.ainvoke(
        {"messages": [with_memo("Summarise my memo", memo)]},
        context=DeepResearchContext(web_search=True),
    )
    (answer,) = recorder.calls(ANSWER_PROMPT)
    assert SECRET in text_of(answer)
    assert recorder.calls(RESEARCH_PROMPT) == []
    assert fake.downloads[memo] == 1  # triage and answer share the download
    assert result["messages"][-1].text.endswith("(Attachments I read: memo.md.)")


async def test_attachments_through_the_responses_api(
    offline_settings: DemoApiSettings, fake: FakeFiles, files: FilesClient
) -> None:
    """input_file is accepted; the plan review pauses with file IDs only."""
    memo = fake.add("memo.md", MEMO.encode())
    saver, coordinator = InMemorySaver(), InMemoryRunCoordinator()
    search = ScriptedSearch()
    config = deep_research_graph_config(
        offline_settings,
        ServerResources(saver, InMemoryStore(), coordinator),
        search=web_search_tool(search),
        files=files,
    )
    async for client, _ in sdk_client({"deep-research": config}, coordinator):
        model = await client.models.retrieve("deep-research")
        assert "file_inputs" in model.model_extra["lgos"]["features"]  # type: ignore[index]
        tools: Any = [{"type": "web_search"}]
        paused = await client.responses.create(
            model="deep-research",
            input=[
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": RESEARCH},
                        {"type": "input_file", "file_id": memo},
                    ],
                }
            ],
            tools=tools,
        )
        validate("Response", paused.model_dump(mode="json", exclude_unset=True))
        (review,) = [o for o in paused.output if o.type == "function_call"]
        assert SECRET not in json.loads(review.arguments)["question"]
        # The paused checkpoint holds the file ID, not the memo's text.
        async for checkpoint in saver.alist(None):
            assert SECRET not in repr(checkpoint.checkpoint)
        report = await client.responses.create(
            model="deep-research",
            previous_response_id=paused.id,
            input=[
                {
                    "type": "function_call_output",
                    "call_id": review.call_id,
                    "output": START_RESEARCH,
                }
            ],
            tools=tools,
        )
        validate("Response", report.model_dump(mode="json", exclude_unset=True))
        assert report.status == "completed"
        assert "research report" in report.output_text
        assert report.output_text.endswith("(Attachments I read: memo.md.)")
        assert not any(SECRET in query for query in search.queries)
    # Triage in the first run, the report in the second: one download each.
    assert fake.downloads[memo] == 2
