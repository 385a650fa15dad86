"""The `search_corpus` tool: the offline web-search corpus, as MCP results.

It searches the same bundled corpus (BM25 over the repository docs and the
bundled pages) as the demo's offline `web_search` backend, and links each
passage to the corpus server exactly as that backend does.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from lgos_demo_api.search.corpus import OfflineSearchBackend

__all__ = ["CorpusPassage", "CorpusResults", "search_corpus"]


class CorpusPassage(BaseModel):
    """One passage `search_corpus` found."""

    title: str = Field(description='"<page title> — <section>" of the passage.')
    url: str = Field(description="The section on the corpus server.")
    snippet: str = Field(description="The passage as plain text, about 320 chars.")


class CorpusResults(BaseModel):
    """The result of `search_corpus`."""

    query: str = Field(description="The query searched.")
    results: list[CorpusPassage] = Field(description="The passages, best first.")
    text: str = Field(description="A short summary naming the passages found.")


async def search_corpus(query: str, limit: int, base_url: str) -> CorpusResults:
    """Search the offline corpus.

    Args:
        query: Free text.
        limit: The most passages to return.
        base_url: Where the corpus server runs; URLs start with it.

    Returns:
        The passages (best first) and a summary; no passages when no word of
        the query is in the corpus.

    """
    backend = await asyncio.to_thread(OfflineSearchBackend, base_url)
    found = await backend.search(query, max_results=limit)
    results = [
        CorpusPassage(title=r.title, url=r.url, snippet=r.snippet) for r in found
    ]
    if results:
        # Markdown links, so an answer quoting the summary links the pages.
        titles = "; ".join(f"[{result.title}]({result.url})" for result in results)
        count = f"{len(results)} passage{'s' if len(results) != 1 else ''}"
        text = f"Found {count} for {query!r}: {titles}."
    else:
        text = f"Nothing in the corpus matches {query!r}."
    return CorpusResults(query=query, results=results, text=text)
