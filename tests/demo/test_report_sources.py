"""Research reports quote their sources faithfully and number them 1..n.

Snippets of the offline corpus keep identifiers whole (`LGOS_POSTGRES_URI`,
`psycopg_pool`, `get(run_id)`) and never end inside a word; the
`deep-research` report cites `[1]`, `[2]`, ... in reading order with no
gaps, streamed and final text alike, and its `url_citation` annotations
(hence any Sources list a client builds from them) follow the same numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.memory import InMemoryStore

from langgraph_openai_serve.graph.citations import citation_slice
from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
from langgraph_openai_serve.server import ServerResources
from langgraph_openai_serve.testing import parse_sse
from lgos_demo_api.graphs.deep_research import deep_research_graph_config
from lgos_demo_api.graphs.deep_research_offline import report_text
from lgos_demo_api.graphs.deep_research_prompts import START_RESEARCH
from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.search import web_search_tool
from lgos_demo_api.search.corpus import (
    CorpusPage,
    OfflineSearchBackend,
    default_corpus,
    plain_text,
    shorten,
    split_passages,
)
from lgos_demo_api.search.renumber import MarkerRenumbering, RenumberedChatModel
from lgos_demo_api.settings import DemoApiSettings
from tests.contract.openapi import validate
from tests.demo.stubs import sdk_client

pytestmark = pytest.mark.anyio

IDENTIFIERS = ("LGOS_POSTGRES_URI", "psycopg_pool", "get(run_id)")
CORPUS_URL = "http://corpus.test"
MARKERS = re.compile(r"\[(\d+)\]")


def in_inline_code(identifier: str, markdown: str) -> bool:
    """Whether prose (not a table or code block) has `identifier` in code."""
    prose, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and not line.lstrip().startswith("|"):
            prose.append(line)
    pattern = r"`[^`\n]*" + re.escape(identifier) + r"[^`\n]*`"
    return re.search(pattern, "\n".join(prose)) is not None


def is_whole_word_cut(snippet: str, plain: str) -> bool:
    """True when `snippet` is all of `plain`, or a prefix ending on a boundary."""
    if snippet == plain:
        return True
    body = snippet.removesuffix("...")
    if not plain.startswith(body.rstrip(" ,;:-—(")):
        return False
    rest = plain[len(body) :]
    if snippet.endswith("..."):
        # The cut falls between words: what follows starts with a space or
        # punctuation, never with more letters of the last word.
        return not rest[:1].isalnum()
    return body.endswith((".", "!", "?")) and rest[:1] == " "


# ------------------------------------------------------------------ snippets


def test_plain_text_keeps_identifiers_and_drops_emphasis() -> None:
    markdown = (
        "Set `LGOS_POSTGRES_URI`; `psycopg_pool.AsyncConnectionPool` and "
        "`get(run_id)` in `__init__`, for `DEMO_*` variables. A snake_case word, "
        "_emphasis_, __strong__ and **bold**."
    )
    assert plain_text(markdown) == (
        "Set LGOS_POSTGRES_URI; psycopg_pool.AsyncConnectionPool and get(run_id) "
        "in __init__, for DEMO_* variables. A snake_case word, emphasis, strong "
        "and bold."
    )


def test_corpus_snippets_keep_identifiers_whole() -> None:
    corpus = default_corpus()
    checked = set()
    for passage in corpus.passages:
        plain = plain_text(passage.text)
        for identifier in IDENTIFIERS:
            if in_inline_code(identifier, passage.text):
                assert identifier in plain, (passage.title, identifier)
                checked.add(identifier)
                squashed = identifier.replace("_", "")
                assert squashed not in passage.snippet(), passage.title
    assert checked == set(IDENTIFIERS), "the docs mention each identifier"


async def test_search_results_quote_identifiers_verbatim() -> None:
    backend = OfflineSearchBackend(CORPUS_URL)
    results = await backend.search("psycopg_pool AsyncConnectionPool", max_results=5)
    assert any("psycopg_pool.AsyncConnectionPool" in r.snippet for r in results)


def test_snippets_never_end_inside_a_word() -> None:
    for passage in default_corpus().passages:
        snippet, plain = passage.snippet(), plain_text(passage.text)
        assert len(snippet) <= 320
        assert is_whole_word_cut(snippet, plain), (passage.title, snippet[-40:])


def test_shorten_prefers_a_sentence_then_a_whole_word() -> None:
    words = shorten("One short sentence here. " + "word " * 80, 60)
    assert words == "One short sentence here. word word word word word word..."
    assert shorten("First full sentence. Second " + "x" * 100, 36) == (
        "First full sentence."
    )
    page = CorpusPage("p", "P", "# P\n\n" + "connection " * 60)
    snippet = split_passages(page)[0].snippet()
    assert snippet.endswith("connection...")


# --------------------------------------------------------------- numbering


def test_renumbering_follows_first_citation_order_across_chunks() -> None:
    text = "A [4]. B [18] and [4]. C [2][18]. Not sources: [0] [99] [x]."
    expected = "A [1]. B [2] and [1]. C [3][2]. Not sources: [0] [99] [x]."
    whole = MarkerRenumbering(sources=20)
    assert whole.renumber(text) == expected
    assert whole.cited == [4, 18, 2]
    assert whole.reorder(list(range(1, 21))) == [4, 18, 2]
    for cut in range(len(text) + 1):  # any chunking gives the same text
        chunked = MarkerRenumbering(sources=20)
        out = chunked.feed(text[:cut]) + chunked.feed(text[cut:]) + chunked.flush()
        assert out == expected, cut


def test_renumbered_model_streams_and_answers_alike() -> None:
    def text(messages: Any, tools: Any, tool_choice: Any) -> str:
        return "See [3] and [1], then [3] again [2"

    def blocks(messages: Any, tools: Any, tool_choice: Any) -> AIMessage:
        return AIMessage(content=[{"type": "text", "text": "A [2] b [2]"}])

    def model(responder: Any) -> RenumberedChatModel:
        inner = OfflineChatModel(responder=responder)
        return RenumberedChatModel(inner=inner, renumbering=MarkerRenumbering(3))

    assert model(text).invoke("x").text == "See [1] and [2], then [1] again [2"
    streamed = "".join(chunk.text for chunk in model(text).stream("x"))
    assert streamed == "See [1] and [2], then [1] again [2"
    assert model(blocks).invoke("x").text == "A [1] b [1]"


def test_offline_report_quotes_identifiers_and_whole_words() -> None:
    snippet = (
        "PostgresRunCoordinator(pool, max_concurrent_leases=N) holds one pooled "
        + "connection per lease " * 20
    )
    system = (
        "Research questions and search results:\n\n"
        "Question 1: What holds a lease?\n"
        "[7] Postgres <http://c/p>\n"
        f"    {snippet}\n"
        "[9] Other <http://c/o>\n"
        "    See `LGOS_POSTGRES_URI` in the e.g. settings. More text.\n\n"
        "Question 2: Again?\n"
        "[7] Postgres <http://c/p>\n"
        f"    {snippet}"
    )
    report = report_text(system)
    assert "max_concurrent_leases=N" in report
    assert "See `LGOS_POSTGRES_URI` in the e.g. settings [9]." in report
    assert "connection per... [7]" in report  # cut after a whole word
    assert report.count("PostgresRunCoordinator") == 1  # quoted once
    assert "The sources quoted above cover this question too [7]." in report


# ---------------------------------------------------- the report end to end


@pytest.fixture
async def research(
    offline_settings: DemoApiSettings,
) -> AsyncIterator[Any]:
    coordinator = InMemoryRunCoordinator()
    resources = ServerResources(InMemorySaver(), InMemoryStore(), coordinator)
    config = deep_research_graph_config(
        offline_settings,
        resources,
        search=web_search_tool(OfflineSearchBackend(CORPUS_URL), max_results=5),
    )
    assert isinstance(config.graph, CompiledStateGraph)
    async for _, http in sdk_client({"deep-research": config}, coordinator):
        yield http


async def streamed_report(http: Any, question: str) -> tuple[str, str, list[dict]]:
    """Plan, start the research, stream the report: (streamed, final, notes)."""
    paused = (
        await http.post(
            "/v1/responses",
            json={
                "model": "deep-research",
                "input": question,
                "tools": [{"type": "web_search"}],
            },
        )
    ).json()
    [call] = [i for i in paused["output"] if i.get("name") == "lgos_interrupt"]
    reply = await http.post(
        "/v1/responses",
        json={
            "model": "deep-research",
            "stream": True,
            "previous_response_id": paused["id"],
            "tools": [{"type": "web_search"}],
            "input": [
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": START_RESEARCH,
                }
            ],
        },
    )
    events = parse_sse(reply.text)
    for event in events:
        validate("ResponseStreamEvent", event)
    assert events[-1]["type"] == "response.completed", events[-1]
    [message] = [
        e["item"]
        for e in events
        if e["type"] == "response.output_item.done"
        and e["item"]["type"] == "message"
        and e["item"].get("phase") == "final_answer"
    ]
    streamed = "".join(
        e["delta"]
        for e in events
        if e["type"] == "response.output_text.delta" and e["item_id"] == message["id"]
    )
    [part] = message["content"]
    return streamed, part["text"], part["annotations"]


@pytest.mark.parametrize(
    "question",
    [
        "Research how LGOS uses PostgreSQL connection pools",
        "Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
    ],
)
async def test_report_numbers_sources_in_citation_order(
    research: Any, question: str
) -> None:
    streamed, text, notes = await streamed_report(research, question)
    assert streamed == text
    numbers = [int(n) for n in MARKERS.findall(text)]
    first_seen = list(dict.fromkeys(numbers))
    assert first_seen == list(range(1, len(first_seen) + 1)), first_seen
    assert len(first_seen) >= 3
    # One annotation per marker, each spanning it; one URL per number.
    assert len(notes) == len(numbers)
    url_of: dict[int, str] = {}
    for note in notes:
        cited = text[citation_slice(note["start_index"], note["end_index"], text)]
        number = int(cited.strip("[]"))
        assert url_of.setdefault(number, note["url"]) == note["url"]
        assert note["url"].startswith(CORPUS_URL)
    assert len(set(url_of.values())) == len(url_of)
    # The Sources list a client builds from the annotations: 1..n in order.
    sources = list(
        dict.fromkeys(
            (int(text[n["start_index"] + 1 : n["end_index"]]), n["url"]) for n in notes
        )
    )
    assert [number for number, _ in sources] == first_seen
    # Quoted sentences end on whole words, identifiers intact.
    plain = " ".join(plain_text(p.text) for p in default_corpus().passages)
    for before in re.findall(r"(\S+) \[\d+\]", text):
        word = re.sub(r"[^\w)]+$", "", before.removesuffix("..."))
        if word:
            assert re.search(rf"(?<!\w){re.escape(word)}(?!\w)", plain), word
    assert "LGOSPOSTGRESURI" not in text and "psycopgpool" not in text
    json.dumps(notes)  # plain JSON
