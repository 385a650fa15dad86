"""The demo's `web_search` LangChain tool and its backend selection."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, tool

from lgos_demo_api.search.base import (
    SearchBackend,
    format_results,
    sources_artifact,
)
from lgos_demo_api.search.corpus import OfflineSearchBackend
from lgos_demo_api.search.openai_search import OpenAIWebSearchBackend
from lgos_demo_api.search.searxng import SearxngBackend
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "WEB_SEARCH_DESCRIPTION",
    "backend_label",
    "search_backend",
    "web_search_tool",
]

WEB_SEARCH_DESCRIPTION = (
    "Search the web. Give a short keyword query; returns numbered results, "
    "each with a title, its exact URL and a snippet. Cite results by URL."
)


def web_search_tool(backend: SearchBackend, *, max_results: int = 5) -> BaseTool:
    """Build the `web_search` tool over a backend.

    The tool takes one `query` string. It returns the results as text for the
    model and, as its artifact, `{"sources": [{"url", "title", "snippet"}]}`
    (`response_format="content_and_artifact"`), which LGOS and the graphs read
    citations from. Backend failures (`SearchError`) propagate, so a
    `ToolNode(handle_tool_errors=True)` reports them as an error result.

    Args:
        backend: Where to search.
        max_results: The most results per search.

    Returns:
        The tool, named `web_search`.

    """

    @tool(
        "web_search",
        description=WEB_SEARCH_DESCRIPTION,
        response_format="content_and_artifact",
    )
    async def web_search(query: str) -> tuple[str, dict[str, Any]]:
        results = await backend.search(query.strip(), max_results=max_results)
        return format_results(query, results), sources_artifact(results)

    return web_search


def search_backend(settings: DemoApiSettings) -> SearchBackend:
    """Build the backend `DEMO_API_WEB_SEARCH_BACKEND` selects.

    Returns:
        `OfflineSearchBackend` (the bundled corpus, linking to
        `corpus_base_url`), `SearxngBackend` (`searxng_url`) or
        `OpenAIWebSearchBackend` (the provider and model of the demo's chat
        model).

    """
    if settings.web_search_backend == "searxng":
        assert settings.searxng_url is not None  # checked by the settings
        return SearxngBackend(settings.searxng_url, timeout=settings.web_search_timeout)
    if settings.web_search_backend == "openai":
        assert settings.openai_api_key is not None  # checked by the settings
        return OpenAIWebSearchBackend(
            settings.openai_responses_model,
            api_key=settings.openai_api_key.get_secret_value(),
            base_url=settings.openai_base_url,
            timeout=settings.web_search_timeout,
        )
    return OfflineSearchBackend(settings.corpus_base_url)


def backend_label(settings: DemoApiSettings) -> str:
    """Describe the search backend for model descriptions."""
    if settings.web_search_backend == "searxng":
        return "SearXNG"
    if settings.web_search_backend == "openai":
        return f"OpenAI web search ({settings.openai_responses_model})"
    return "the bundled offline corpus"
