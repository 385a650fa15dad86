"""The corpus server renders every offline search result's page and anchor."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx
import pytest

from lgos_demo_api.corpus_server import create_app, main
from lgos_demo_api.search.corpus import (
    Corpus,
    CorpusPage,
    OfflineSearchBackend,
    default_corpus,
)

pytestmark = pytest.mark.anyio

BASE = "http://corpus.test"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        yield client


def ids_in(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


async def test_index_lists_every_page(http: httpx.AsyncClient) -> None:
    reply = await http.get("/")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/html")
    for page_id in default_corpus().pages:
        assert f"href='/pages/{page_id}'" in reply.text
    assert (await http.get("/healthz")).text == "ok"


async def test_pages_render_with_their_section_anchors(
    http: httpx.AsyncClient,
) -> None:
    corpus = default_corpus()
    for page_id in corpus.pages:
        reply = await http.get(f"/pages/{page_id}")
        assert reply.status_code == 200, page_id
        anchors = ids_in(reply.text)
        for passage in corpus.passages:
            if passage.page.page_id == page_id and passage.anchor:
                assert passage.anchor in anchors, (page_id, passage.anchor)


async def test_search_result_urls_open(http: httpx.AsyncClient) -> None:
    backend = OfflineSearchBackend(BASE)
    for query in ("pause for approval", "server tools web search", "BM25 ranking"):
        results = await backend.search(query, max_results=5)
        assert results, query
        for result in results:
            url = urlsplit(result.url)
            reply = await http.get(url.path)
            assert reply.status_code == 200, result.url
            if url.fragment:
                assert url.fragment in ids_in(reply.text), result.url


async def test_md_suffix_links_and_missing_pages(http: httpx.AsyncClient) -> None:
    with_suffix = await http.get("/pages/docs/how-to/server-tools.md")
    assert with_suffix.status_code == 200
    readme = (await http.get("/pages/readme")).text
    # Relative .md links lose the extension, so they resolve on this server.
    assert 'href="docs/getting-started"' in readme
    assert '.md"' not in readme
    missing = await http.get("/pages/../../etc/passwd")
    assert missing.status_code == 404
    assert (await http.get("/pages/nope")).status_code == 404


async def test_custom_corpus_and_html_escaping() -> None:
    page = CorpusPage("library/x", "<Title>", "# <Title>\n\nBody & more.\n")
    app = create_app(Corpus([page]))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=BASE
    ) as client:
        index = await client.get("/")
        assert "&lt;Title&gt;" in index.text
        shown = await client.get("/pages/library/x")
        assert "<title>&lt;Title&gt;</title>" in shown.text
        assert "Body &amp; more." in shown.text


def test_cli_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    seen: dict[str, object] = {}
    monkeypatch.setattr(
        uvicorn, "run", lambda app, **kwargs: seen.update(app=app, **kwargs)
    )
    main(["--host", "0.0.0.0", "--port", "9123"])
    assert seen["host"] == "0.0.0.0"
    assert seen["port"] == 9123
