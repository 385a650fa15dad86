"""The `citations` graph: retrieval, marker citations with valid spans, refusals."""

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from langgraph_openai_serve.api.answer import read_answer
from langgraph_openai_serve.graph.citations import citation_slice
from lgos_demo_api.graphs.citations import (
    NO_SOURCES_REFUSAL,
    CitationsSettings,
    build_citations_graph,
    citations_responder,
    cite_markers,
    format_passages,
)
from lgos_demo_api.offline import OfflineChatModel, RecordingResponder
from lgos_demo_api.passages import PASSAGES, Passage, retrieve, terms

TWO_SOURCES = "Compare Chat Completions and the Responses API"


def by_title(title: str) -> Passage:
    return next(p for p in PASSAGES if p.title == title)


def test_corpus_is_small_linked_and_distinct() -> None:
    assert 5 <= len(PASSAGES) <= 10
    assert len({p.url for p in PASSAGES}) == len(PASSAGES)
    assert all(p.url.startswith("https://") for p in PASSAGES)


def test_terms_stem_and_drop_stop_words() -> None:
    assert terms("What is the streaming of Graphs?") == {"stream", "graph"}


@pytest.mark.parametrize(
    ("question", "titles"),
    [
        ("What is LangGraph streaming?", ["LangGraph streaming"]),
        ("How does function calling work?", ["OpenAI function calling"]),
        ("What does a checkpointer do?", ["LangGraph persistence and checkpointers"]),
        (TWO_SOURCES, ["OpenAI Chat Completions", "OpenAI Responses API"]),
        ("What is the capital of France?", []),
        # Everyday words in passing ("runs next", "time travel") match nothing.
        ("How do background runs work?", []),
        ("What time is it in Tokyo?", []),
        ("Run lgos serve my_module:create_registry", []),
    ],
)
def test_retrieve_finds_the_relevant_passages(question: str, titles: list[str]) -> None:
    assert [p.title for p in retrieve(question)] == titles


def test_retrieve_honours_the_limit() -> None:
    assert len(retrieve(TWO_SOURCES, limit=1)) == 1


def test_cite_markers_spans_each_marker_and_validates() -> None:
    passages = [by_title("OpenAI Chat Completions"), by_title("OpenAI Responses API")]
    text = "Chat is older [1]. Responses is newer [2][1]. Nothing [3] or [x]."

    citations = cite_markers(text, passages)

    assert [(c["url"], c["cited_text"]) for c in citations] == [
        (passages[0].url, "[1]"),
        (passages[1].url, "[2]"),
        (passages[0].url, "[1]"),
    ]
    for citation in citations:
        span = citation_slice(citation["start_index"], citation["end_index"], text)
        assert text[span] == citation["cited_text"]
        assert citation["type"] == "citation"


def test_offline_responder_cites_every_passage_it_was_given() -> None:
    passages = [by_title("OpenAI Chat Completions"), by_title("OpenAI Responses API")]
    prompt = SystemMessage(f"Passages:\n\n{format_passages(passages)}")

    answer = citations_responder([prompt, HumanMessage(TWO_SOURCES)], [], None)

    assert isinstance(answer, str)
    assert answer.startswith(
        "This is the offline demo model, answering from 2 bundled passages."
    )
    assert "returns choices holding the assistant message [1]." in answer
    assert answer.endswith("such as assistant messages and function calls [2].")


@pytest.mark.anyio
async def test_graph_answers_with_valid_citations_offline() -> None:
    graph = build_citations_graph(OfflineChatModel(responder=citations_responder))

    result = await graph.ainvoke({"messages": [HumanMessage(TWO_SOURCES)]})

    message = result["messages"][-1]
    assert isinstance(message, AIMessage)
    # LGOS reads (and validates) the citations exactly as it will serve them.
    answer = read_answer(message)
    assert [c.url for c in answer.citations] == [
        by_title("OpenAI Chat Completions").url,
        by_title("OpenAI Responses API").url,
    ]
    assert [
        answer.text[citation_slice(c.start_index, c.end_index, answer.text)]
        for c in answer.citations
    ] == ["[1]", "[2]"]
    assert answer.refusal is None


async def _streamed_and_final(graph: Any, question: str) -> tuple[str, AIMessage]:
    """The text LangGraph's messages stream carried, and the final message."""
    streamed, final = "", None
    async for mode, part in graph.astream(
        {"messages": [HumanMessage(question)]}, stream_mode=["messages", "values"]
    ):
        if mode == "messages":
            streamed += part[0].text
        else:
            final = part["messages"][-1]
    assert isinstance(final, AIMessage)
    return streamed, final


@pytest.mark.anyio
async def test_the_streamed_text_is_the_cited_text() -> None:
    graph = build_citations_graph(OfflineChatModel(responder=citations_responder))
    streamed, final = await _streamed_and_final(
        graph, "How does function calling work?"
    )
    assert streamed == final.text
    assert streamed.endswith("[1].")


@pytest.mark.anyio
async def test_markers_are_renumbered_in_citation_order_as_they_stream() -> None:
    def responder(messages, tools, tool_choice):
        return "Responses is newer [2]. Chat is older [1]. Both [2][1]."

    graph = build_citations_graph(OfflineChatModel(responder=responder))
    streamed, final = await _streamed_and_final(graph, TWO_SOURCES)
    assert (
        streamed
        == final.text
        == "Responses is newer [1]. Chat is older [2]. Both [1][2]."
    )
    answer = read_answer(final)
    assert [
        (answer.text[c.start_index : c.end_index + 1], c.url) for c in answer.citations
    ] == [
        ("[1]", by_title("OpenAI Responses API").url),
        ("[2]", by_title("OpenAI Chat Completions").url),
        ("[1]", by_title("OpenAI Responses API").url),
        ("[2]", by_title("OpenAI Chat Completions").url),
    ]


@pytest.mark.anyio
async def test_model_gets_numbered_passages_and_the_latest_question() -> None:
    recorder = RecordingResponder(citations_responder)
    graph = build_citations_graph(OfflineChatModel(responder=recorder))

    await graph.ainvoke(
        {
            "messages": [
                HumanMessage("What is a checkpointer?"),
                AIMessage("An earlier answer."),
                HumanMessage(TWO_SOURCES),
            ]
        },
        context=CitationsSettings(sources=1),
    )

    (call,) = recorder.calls
    system, question = call.messages
    assert isinstance(system, SystemMessage)
    assert "[1] OpenAI Chat Completions (https://platform.openai.com/" in system.text
    assert "OpenAI Responses API" not in system.text  # sources=1
    assert question.text == TWO_SOURCES


@pytest.mark.anyio
async def test_unknown_markers_and_incomplete_answers_are_kept_honest() -> None:
    def responder(messages, tools, tool_choice):
        return AIMessage(
            content="Partly cited [1], invented [7]",
            response_metadata={"finish_reason": "length"},
        )

    graph = build_citations_graph(OfflineChatModel(responder=responder))
    result = await graph.ainvoke({"messages": [HumanMessage("LangGraph streaming")]})

    answer = read_answer(result["messages"][-1])
    assert len(answer.citations) == 1
    assert answer.text == "Partly cited [1], invented [7]"
    assert answer.incomplete_reason == "max_output_tokens"


@pytest.mark.anyio
async def test_no_matching_passage_is_a_refusal_without_a_model_call() -> None:
    recorder = RecordingResponder(citations_responder)
    graph = build_citations_graph(OfflineChatModel(responder=recorder))

    result = await graph.ainvoke(
        {"messages": [HumanMessage("What is the capital of France?")]}
    )

    answer = read_answer(result["messages"][-1])
    assert answer.refusal == NO_SOURCES_REFUSAL
    assert answer.text == ""
    assert recorder.calls == []
