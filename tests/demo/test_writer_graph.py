"""The `writer` graph: visible steps as status events, only the answer streams."""

import time

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from pydantic import ValidationError

from langgraph_openai_serve import GraphRegistry, GraphRequest
from langgraph_openai_serve.graph.runner import TextChunk, run_langgraph_stream
from langgraph_openai_serve.graph.status import parse_status_event
from lgos_demo_api.graphs.writer import (
    DRAFT_INSTRUCTIONS,
    OUTLINE_INSTRUCTIONS,
    POLISH_INSTRUCTIONS,
    WriterSettings,
    build_writer_graph,
    parse_outline,
    writer_graph_config,
    writer_responder,
)
from lgos_demo_api.offline import OfflineChatModel, RecordingResponder
from lgos_demo_api.settings import DemoApiSettings

QUESTION = "What is a river delta?"
FAST = WriterSettings(pace=0.0)


def writer(recorder: RecordingResponder | None = None):
    responder = recorder or writer_responder
    return build_writer_graph(OfflineChatModel(responder=responder))


def test_settings_bounds_and_defaults() -> None:
    assert WriterSettings().model_dump() == {"sections": 3, "pace": 0.5}
    schema = WriterSettings.model_json_schema()["properties"]
    assert (schema["sections"]["minimum"], schema["sections"]["maximum"]) == (1, 5)
    assert (schema["pace"]["minimum"], schema["pace"]["maximum"]) == (0.0, 3.0)
    with pytest.raises(ValidationError):
        WriterSettings(sections=6)
    with pytest.raises(ValidationError):
        WriterSettings(pace=-1.0)


def test_parse_outline_strips_list_markup_and_keeps_count() -> None:
    reply = "1. First\n\n- **Second**\n### Third\n* Fourth\n"
    assert parse_outline(reply, 3) == ["First", "Second", "Third"]
    assert parse_outline("  \n", 2) == []


def test_offline_responder_plays_each_step() -> None:
    question = HumanMessage(QUESTION)
    from langchain_core.messages import SystemMessage

    outline = writer_responder(
        [SystemMessage(OUTLINE_INSTRUCTIONS.format(count=2)), question], [], None
    )
    assert outline == "A river delta: the basics\nHow it works"
    draft = writer_responder(
        [SystemMessage(DRAFT_INSTRUCTIONS.format(heading="Why it matters")), question],
        [],
        None,
    )
    assert isinstance(draft, str)
    assert draft.startswith('This section ("Why it matters") was drafted')
    polished = writer_responder(
        [SystemMessage(POLISH_INSTRUCTIONS.format(draft="### A\n\nText.")), question],
        [],
        None,
    )
    assert isinstance(polished, str)
    assert polished.startswith('Here is my answer to "What is a river delta?"')
    assert polished.endswith("### A\n\nText.")
    other = writer_responder([question], [], None)
    assert isinstance(other, str)
    assert other.startswith("This is the offline demo model.")


@pytest.mark.anyio
async def test_steps_publish_status_in_order_and_the_answer_comes_last() -> None:
    graph = writer()
    statuses: list[str] = []
    answer_nodes: set[str] = set()
    streamed = ""
    async for mode, part in graph.astream(
        {"messages": [HumanMessage(QUESTION)]},
        context=WriterSettings(pace=0.0, sections=2),
        stream_mode=["custom", "messages"],
    ):
        if mode == "custom":
            status = parse_status_event(part)
            assert status is not None
            assert not streamed, "a status arrived after the answer began"
            statuses.append(str(status))
        else:
            chunk, metadata = part
            assert isinstance(chunk, AIMessageChunk)
            answer_nodes.add(metadata["langgraph_node"])
            streamed += chunk.text

    assert statuses == [
        "Outlining the answer in 2 sections",
        "Drafting section 1 of 2: A river delta: the basics",
        "Drafting section 2 of 2: How it works",
        "Polishing the final answer",
    ]
    # The outline and drafts are private (TAG_NOSTREAM): only `polish` streams.
    assert answer_nodes == {"polish"}
    assert "### A river delta: the basics" in streamed
    # The outline's raw reply (one heading per line) never streamed.
    assert "A river delta: the basics\nHow it works" not in streamed


@pytest.mark.anyio
async def test_private_calls_do_not_reach_the_lgos_stream() -> None:
    registry = GraphRegistry(
        graphs={"writer": writer_graph_config(_offline(chunk_delay=0.0))}
    )
    request = GraphRequest(
        model="writer", metadata={"lgos_settings": '{"pace":0,"sections":3}'}
    )
    chunks: list[str] = []
    statuses: list[str] = []
    final: AIMessage | None = None
    async for event in run_langgraph_stream(
        request, [HumanMessage(QUESTION)], registry
    ):
        if isinstance(event, TextChunk):
            chunks.append(event.text)
        elif isinstance(event, AIMessage):
            final = event
        else:
            status = parse_status_event(event["data"])
            assert status is not None
            statuses.append(str(status))

    assert final is not None
    assert "".join(chunks) == final.text  # nothing private slipped in
    assert len(chunks) > 10  # word by word
    assert len(statuses) == 5
    assert final.text.count("### ") == 3


@pytest.mark.anyio
async def test_model_sees_one_call_per_step_with_the_question() -> None:
    recorder = RecordingResponder(writer_responder)
    result = await writer(recorder).ainvoke(
        {"messages": [HumanMessage("Tell me about tides")]},
        context=WriterSettings(pace=0.0, sections=3),
    )

    prompts = [str(call.messages[0].text) for call in recorder.calls]
    assert len(prompts) == 5  # outline, 3 drafts, polish
    assert prompts[0].startswith("You plan answers.")
    assert all(p.startswith("You draft one section") for p in prompts[1:4])
    assert prompts[4].startswith("You edit answers.")
    assert all(
        call.messages[-1].text == "Tell me about tides" for call in recorder.calls
    )
    assert result["outline"] == ["Tides: the basics", "How it works", "Why it matters"]
    assert len(result["sections"]) == 3
    # The polish prompt carries every drafted section.
    for heading in result["outline"]:
        assert f"### {heading}" in prompts[4]


@pytest.mark.anyio
async def test_pace_pauses_each_step() -> None:
    graph = writer()
    started = time.monotonic()
    await graph.ainvoke(
        {"messages": [HumanMessage(QUESTION)]},
        context=WriterSettings(pace=0.1, sections=1),
    )
    # outline, one draft, polish: three pauses.
    assert time.monotonic() - started >= 0.3


def _offline(chunk_delay: float) -> DemoApiSettings:
    return DemoApiSettings(
        _env_file=None,  # type: ignore[call-arg]
        openai_api_key=None,
        offline_chunk_delay=chunk_delay,
    )
