"""What every web-search backend returns, and how results become tool output."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "SearchBackend",
    "SearchError",
    "SearchResult",
    "format_results",
    "sources_artifact",
]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One page a search found.

    Attributes:
        url: The page's exact URL; citations link to it unchanged.
        title: The page's title.
        snippet: A short excerpt of the page (may be empty).

    """

    url: str
    title: str
    snippet: str = ""


class SearchError(Exception):
    """A search could not be carried out (backend unreachable, bad answer).

    The `web_search` tool lets it propagate, so LangGraph's `ToolNode` turns it
    into an error `ToolMessage` (a `failed` `web_search_call`) that the model
    can work around.
    """


class SearchBackend(Protocol):
    """Something that answers a web query with a ranked list of pages."""

    name: str
    """A short label for the backend (`offline`, `searxng`, `openai`)."""

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Search for `query`.

        Args:
            query: The query text.
            max_results: The most results to return.

        Returns:
            At most `max_results` results, best first; empty when nothing
            matched.

        Raises:
            SearchError: The backend failed.

        """
        ...


def format_results(query: str, results: Sequence[SearchResult]) -> str:
    """Render results as the text a model reads.

    Each result is a numbered block: title, URL, then the snippet (if any).

    Args:
        query: The query that was searched.
        results: The results, best first.

    Returns:
        The text, or a one-line note that nothing was found.

    """
    if not results:
        return f"No results for {query!r}."
    blocks = []
    for number, result in enumerate(results, start=1):
        lines = [f"[{number}] {result.title}", f"URL: {result.url}"]
        if result.snippet:
            lines.append(result.snippet)
        blocks.append("\n".join(lines))
    return f"Results for {query!r}:\n\n" + "\n\n".join(blocks)


def sources_artifact(results: Sequence[SearchResult]) -> dict[str, Any]:
    """Build the `ToolMessage` artifact LGOS and the graphs read sources from.

    Returns:
        `{"sources": [{"url", "title", "snippet"}, ...]}` in result order.

    """
    return {
        "sources": [
            {"url": r.url, "title": r.title, "snippet": r.snippet} for r in results
        ]
    }
