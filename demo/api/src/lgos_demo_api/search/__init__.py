"""Web search for the demo graphs: one LangChain tool, three backends.

`web_search_tool(search_backend(settings))` is the `web_search` tool the
`server-tools` and `deep-research` graphs bind. `DEMO_API_WEB_SEARCH_BACKEND`
picks where it searches: `offline` (default; BM25 over a bundled corpus served
by `python -m lgos_demo_api.corpus_server`), `searxng` or `openai`.
"""

from lgos_demo_api.search.base import (
    SearchBackend,
    SearchError,
    SearchResult,
    format_results,
    sources_artifact,
)
from lgos_demo_api.search.tool import backend_label, search_backend, web_search_tool

__all__ = [
    "SearchBackend",
    "SearchError",
    "SearchResult",
    "backend_label",
    "format_results",
    "search_backend",
    "sources_artifact",
    "web_search_tool",
]
