"""`web_search` through a private upstream Responses call with OpenAI's tool."""

from __future__ import annotations

import re
from typing import Any

import openai
from openai import AsyncOpenAI

from lgos_demo_api.search.base import SearchError, SearchResult

__all__ = ["SEARCH_INSTRUCTIONS", "OpenAIWebSearchBackend", "extract_sources"]

SEARCH_INSTRUCTIONS = (
    "Search the web for the user's query and summarise what the best sources "
    "say, citing every source you use."
)

_SENTENCE_END = re.compile(r"[.!?]\s+")
_LINK_PREFIX = re.compile(r"^\(?\[[^\]]*\]\([^)]*\)\)?\s*")


class OpenAIWebSearchBackend:
    """Search with OpenAI's built-in `web_search` tool in a private call.

    Each search is one `responses.create` call (`store=False`,
    `tools=[{"type": "web_search"}]`, `tool_choice="required"`); the pages the
    answer cites through `url_citation` annotations become the results. The
    upstream response itself (its search items and text) stays inside the
    tool.

    Attributes:
        name: `"openai"`.
        model: The upstream model.

    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        client: AsyncOpenAI | None = None,
    ) -> None:
        """Configure the backend.

        Args:
            model: The upstream model that runs the searches.
            api_key: The provider key (ignored when `client` is given).
            base_url: Any OpenAI-compatible base URL; None means OpenAI.
            timeout: Seconds one search may take.
            client: A client to use instead (tests pass one whose
                `http_client` has an `httpx.MockTransport`).

        """
        self.model = model
        self._client = client or AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=1
        )

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Run one upstream search and return the cited pages.

        Raises:
            SearchError: The upstream call failed.

        """
        try:
            response = await self._client.responses.create(
                model=self.model,
                instructions=SEARCH_INSTRUCTIONS,
                input=query,
                tools=[{"type": "web_search"}],
                tool_choice="required",
                store=False,
            )
        except openai.OpenAIError as exc:
            msg = f"The upstream web search failed: {type(exc).__name__}"
            raise SearchError(msg) from exc
        return extract_sources(response.model_dump(mode="json"))[:max_results]


def _cited_sentence(text: str, start: int) -> str:
    """Return the sentence that ends where a citation starts."""
    before = text[:start].rstrip()
    head = before[:-1] if before.endswith((".", "!", "?")) else before
    boundary = max((m.end() for m in _SENTENCE_END.finditer(head)), default=0)
    sentence = _LINK_PREFIX.sub("", before[boundary:])
    return " ".join(sentence.split())


def extract_sources(response: dict[str, Any]) -> list[SearchResult]:
    """Collect the `url_citation` annotations of a Responses object.

    Args:
        response: The Response as JSON.

    Returns:
        One result per distinct cited URL, in order of first citation; the
        title is the annotation's title (else the URL), the snippet the
        sentence the citation follows.

    """
    results: list[SearchResult] = []
    seen: set[str] = set()
    for item in response.get("output") or []:
        if item.get("type") != "message":
            continue
        for part in item.get("content") or []:
            if part.get("type") != "output_text":
                continue
            text = part.get("text") or ""
            for annotation in part.get("annotations") or []:
                if annotation.get("type") != "url_citation":
                    continue
                url = annotation.get("url")
                if not isinstance(url, str) or not url or url in seen:
                    continue
                seen.add(url)
                title = annotation.get("title") or url
                start = annotation.get("start_index")
                snippet = _cited_sentence(text, start) if isinstance(start, int) else ""
                results.append(SearchResult(url, str(title), snippet))
    return results
