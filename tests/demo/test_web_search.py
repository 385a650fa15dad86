"""The `web_search` tool and its backends: offline corpus, SearXNG, OpenAI.

SearXNG and OpenAI are exercised through `httpx.MockTransport`: no network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from openai import AsyncOpenAI
from pydantic import ValidationError

from lgos_demo_api.search import (
    SearchError,
    SearchResult,
    format_results,
    search_backend,
    web_search_tool,
)
from lgos_demo_api.search.corpus import (
    Corpus,
    CorpusPage,
    OfflineSearchBackend,
    default_corpus,
    load_pages,
    plain_text,
    repository_root,
    split_passages,
)
from lgos_demo_api.search.openai_search import OpenAIWebSearchBackend, extract_sources
from lgos_demo_api.search.searxng import SearxngBackend
from lgos_demo_api.settings import DemoApiSettings

pytestmark = pytest.mark.anyio

BASE = "http://corpus.test"

PAGE = CorpusPage(
    "library/sample",
    "Sample page",
    """# Sample page

Intro text about graphs.

## Pausing with `interrupt()`

LangGraph pauses a run when a node calls interrupt and resumes with Command.

```python
# not a heading
interrupt({"question": "ok?"})
```

## Pausing with `interrupt()`

A second section with the same heading, about approvals.

### Tables

| a | b |
| --- | --- |
| 1 | 2 |

See [the docs](other.md) and <https://example.org/x>.
""",
)


# ------------------------------------------------------------------ offline


def test_pages_split_into_sections_with_the_renderer_anchors() -> None:
    passages = split_passages(PAGE)
    assert [(p.section, p.anchor) for p in passages] == [
        ("Sample page", ""),
        ("Pausing with interrupt()", "pausing-with-interrupt"),
        ("Pausing with interrupt()", "pausing-with-interrupt_1"),
        ("Tables", "tables"),
    ]
    assert passages[1].title == "Sample page — Pausing with interrupt()"
    assert passages[0].title == "Sample page"
    # The fenced comment stays text of its section, not a heading.
    assert "# not a heading" in passages[1].text
    assert passages[1].url(BASE + "/") == (
        f"{BASE}/pages/library/sample#pausing-with-interrupt"
    )
    assert passages[0].url(BASE) == f"{BASE}/pages/library/sample"


def test_snippets_are_plain_prose() -> None:
    section = split_passages(PAGE)[3]
    assert section.snippet() == "See the docs and https://example.org/x."
    assert plain_text("- **bold** `code` and [link](u)\n```\nx = 1\n```") == (
        "bold code and link"
    )
    long = CorpusPage("p", "P", "# P\n\n" + "word " * 200)
    snippet = split_passages(long)[0].snippet()
    assert len(snippet) <= 320
    assert snippet.endswith("...")


def test_bm25_ranks_passages_and_keeps_exact_urls_and_titles() -> None:
    corpus = Corpus(load_pages(None))  # the bundled pages only
    ranked = corpus.search("pause a graph for approval with interrupt", limit=3)
    assert ranked, "the bundled pages cover interrupts"
    scores = [score for _, score in ranked]
    assert scores == sorted(scores, reverse=True)
    assert all(score > 0 for score in scores)
    assert "interrupt" in ranked[0][0].text.lower()
    assert corpus.search("zzzz qqqq", limit=3) == []
    assert corpus.search("the and of", limit=3) == []  # stop words only


async def test_offline_backend_results() -> None:
    backend = OfflineSearchBackend(BASE, Corpus(load_pages(None)))
    results = await backend.search("BM25 document length", max_results=2)
    assert len(results) == 2
    top = results[0]
    passage = next(p for p in backend.corpus.passages if p.title == top.title)
    assert top.url == passage.url(BASE)
    assert top.url.startswith(f"{BASE}/pages/library/bm25-ranking")
    assert top.snippet


def test_default_corpus_includes_the_repository_docs() -> None:
    root = repository_root()
    assert root is not None and (root / "docs").is_dir()
    pages = default_corpus().pages
    assert "readme" in pages
    assert "docs/how-to/server-tools" in pages
    assert "library/langgraph-subgraphs" in pages
    assert repository_root(Path("/")) is None


# ------------------------------------------------------------------ SearXNG


def searxng_handler(seen: list[httpx.Request], payload: Any, status: int = 200):
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if isinstance(payload, str):
            return httpx.Response(status, text=payload)
        return httpx.Response(status, json=payload)

    return handle


async def test_searxng_request_shape_and_parsing() -> None:
    seen: list[httpx.Request] = []
    payload = {
        "query": "langgraph",
        "results": [
            {
                "url": "https://a.example/1",
                "title": "  First\n result ",
                "content": "About  LangGraph.",
                "engine": "x",
            },
            {"url": "https://a.example/1", "title": "Duplicate"},
            {"url": "ftp://files.example/2", "title": "Not the web"},
            {"title": "No URL"},
            {"url": "https://b.example/2"},
            {"url": "https://c.example/3", "title": "Third"},
        ],
    }
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(searxng_handler(seen, payload))
    ) as http:
        backend = SearxngBackend("http://searx.test:8888/", http_client=http)
        results = await backend.search("langgraph interrupts", max_results=2)
    assert results == [
        SearchResult("https://a.example/1", "First result", "About LangGraph."),
        SearchResult("https://b.example/2", "https://b.example/2", ""),
    ]
    [request] = seen
    assert request.method == "GET"
    assert request.url.host == "searx.test" and request.url.port == 8888
    assert request.url.path == "/search"
    assert dict(request.url.params) == {"q": "langgraph interrupts", "format": "json"}


@pytest.mark.parametrize(
    ("payload", "status", "message"),
    [
        ({"error": "x"}, 403, "JSON format"),
        ({"error": "x"}, 502, "HTTP 502"),
        ("<html>not json</html>", 200, "other than JSON"),
        ({"answers": []}, 200, "no results list"),
    ],
)
async def test_searxng_failures_raise_search_errors(
    payload: Any, status: int, message: str
) -> None:
    async with httpx.AsyncClient(
        transport=httpx.MockTransport(searxng_handler([], payload, status))
    ) as http:
        backend = SearxngBackend("http://searx.test", http_client=http)
        with pytest.raises(SearchError, match=message):
            await backend.search("q", max_results=3)


async def test_searxng_unreachable_is_a_search_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as http:
        backend = SearxngBackend("http://searx.test", http_client=http)
        with pytest.raises(SearchError, match="unreachable"):
            await backend.search("q", max_results=3)


# ------------------------------------------------------------------- OpenAI

UPSTREAM_TEXT = (
    "LangGraph pauses with interrupt(). ([docs](https://langchain.example/a)) "
    "Agents SDK tools can need approval. ([sdk](https://openai.example/b))"
)


def upstream_response() -> dict[str, Any]:
    first = UPSTREAM_TEXT.index("([docs]")
    second = UPSTREAM_TEXT.index("([sdk]")
    return {
        "id": "resp_upstream",
        "object": "response",
        "created_at": 1,
        "model": "gpt-test",
        "status": "completed",
        "parallel_tool_calls": True,
        "tool_choice": "required",
        "tools": [{"type": "web_search"}],
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "langgraph approval"},
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": UPSTREAM_TEXT,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "https://langchain.example/a",
                                "title": "LangGraph docs",
                                "start_index": first,
                                "end_index": first + 35,
                            },
                            {
                                "type": "url_citation",
                                "url": "https://openai.example/b",
                                "title": "Agents SDK",
                                "start_index": second,
                                "end_index": second + 33,
                            },
                            {
                                "type": "url_citation",
                                "url": "https://langchain.example/a",
                                "title": "again",
                                "start_index": first,
                                "end_index": first + 35,
                            },
                        ],
                    }
                ],
            },
        ],
    }


async def test_openai_backend_request_shape_and_sources() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=upstream_response())

    async with httpx.AsyncClient(transport=httpx.MockTransport(handle)) as http:
        client = AsyncOpenAI(
            api_key="sk-test",
            base_url="http://upstream.test/v1",
            http_client=http,
            max_retries=0,
        )
        backend = OpenAIWebSearchBackend("gpt-test", client=client)
        results = await backend.search("langgraph approval", max_results=5)
    assert results == [
        SearchResult(
            "https://langchain.example/a",
            "LangGraph docs",
            "LangGraph pauses with interrupt().",
        ),
        SearchResult(
            "https://openai.example/b",
            "Agents SDK",
            "Agents SDK tools can need approval.",
        ),
    ]
    [request] = seen
    assert (request.method, request.url.path) == ("POST", "/v1/responses")
    assert request.headers["authorization"] == "Bearer sk-test"
    body = json.loads(request.content)
    assert body["model"] == "gpt-test"
    assert body["input"] == "langgraph approval"
    assert body["store"] is False
    assert body["tools"] == [{"type": "web_search"}]
    assert body["tool_choice"] == "required"
    assert "stream" not in body or body["stream"] is False


def test_extract_sources_limits_and_ignores_other_items() -> None:
    response = upstream_response()
    response["output"].append({"type": "reasoning", "id": "rs_1", "summary": []})
    assert [r.url for r in extract_sources(response)] == [
        "https://langchain.example/a",
        "https://openai.example/b",
    ]
    assert extract_sources({"output": []}) == []


async def test_openai_backend_failure_is_a_search_error() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"error": {"message": "boom"}})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handle)) as http:
        client = AsyncOpenAI(
            api_key="k",
            base_url="http://upstream.test/v1",
            http_client=http,
            max_retries=0,
        )
        backend = OpenAIWebSearchBackend("gpt-test", client=client)
        with pytest.raises(SearchError, match="upstream web search failed"):
            await backend.search("q", max_results=3)


# --------------------------------------------------------------------- tool


class Scripted:
    name = "scripted"

    def __init__(self, results: list[SearchResult] | Exception) -> None:
        self.results = results
        self.queries: list[str] = []

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        self.queries.append(query)
        if isinstance(self.results, Exception):
            raise self.results
        return self.results[:max_results]


async def test_tool_returns_text_and_a_sources_artifact() -> None:
    backend = Scripted(
        [
            SearchResult("https://x.example/1", "One", "first"),
            SearchResult("https://x.example/2", "Two"),
        ]
    )
    tool = web_search_tool(backend, max_results=1)
    assert tool.name == "web_search"
    message = await tool.ainvoke(
        {
            "type": "tool_call",
            "name": "web_search",
            "args": {"query": " q "},
            "id": "c1",
        }
    )
    assert isinstance(message, ToolMessage)
    assert backend.queries == ["q"]
    assert message.artifact == {
        "sources": [{"url": "https://x.example/1", "title": "One", "snippet": "first"}]
    }
    assert message.content == format_results(" q ", backend.results[:1])  # type: ignore[index]
    assert "https://x.example/1" in str(message.content)
    assert format_results("q", []) == "No results for 'q'."


async def test_search_errors_become_error_results_in_a_tool_node() -> None:
    tool = web_search_tool(Scripted(SearchError("backend down")))
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode([tool], handle_tool_errors=True))
    builder.add_edge(START, "tools")
    call = {"name": "web_search", "args": {"query": "q"}, "id": "c1"}
    result = await builder.compile().ainvoke(
        {"messages": [AIMessage("", tool_calls=[call])]}
    )
    message = result["messages"][-1]
    assert message.status == "error"
    assert "backend down" in str(message.content)


# ----------------------------------------------------------------- settings


def test_backend_selection_and_validation() -> None:
    offline = DemoApiSettings(_env_file=None)  # type: ignore[call-arg]
    assert offline.web_search_backend == "offline"
    assert offline.corpus_base_url == "http://127.0.0.1:8002"
    backend = search_backend(offline)
    assert isinstance(backend, OfflineSearchBackend)
    assert backend.base_url == "http://127.0.0.1:8002"
    searx = DemoApiSettings(
        _env_file=None,  # type: ignore[call-arg]
        web_search_backend="searxng",
        searxng_url="http://searx.test",
    )
    assert isinstance(search_backend(searx), SearxngBackend)
    upstream = DemoApiSettings(
        _env_file=None,  # type: ignore[call-arg]
        web_search_backend="openai",
        openai_api_key="sk-x",  # type: ignore[arg-type]
        openai_responses_model="gpt-x",
    )
    openai_backend = search_backend(upstream)
    assert isinstance(openai_backend, OpenAIWebSearchBackend)
    assert openai_backend.model == "gpt-x"
    with pytest.raises(ValidationError, match="DEMO_API_SEARXNG_URL"):
        DemoApiSettings(_env_file=None, web_search_backend="searxng")  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="DEMO_API_OPENAI_API_KEY"):
        DemoApiSettings(_env_file=None, web_search_backend="openai")  # type: ignore[call-arg]


def test_environment_selects_the_backend(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEMO_API_WEB_SEARCH_BACKEND", "searxng")
    monkeypatch.setenv("DEMO_API_SEARXNG_URL", "http://searx.env")
    monkeypatch.setenv("DEMO_API_CORPUS_BASE_URL", "http://corpus.env")
    settings = DemoApiSettings()
    assert settings.web_search_backend == "searxng"
    assert settings.searxng_url == "http://searx.env"
    assert settings.corpus_base_url == "http://corpus.env"
