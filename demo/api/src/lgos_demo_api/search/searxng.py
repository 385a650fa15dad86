"""`web_search` through a SearXNG instance's JSON API."""

from __future__ import annotations

from typing import Any

import httpx

from lgos_demo_api.search.base import SearchError, SearchResult

__all__ = ["SearxngBackend"]


class SearxngBackend:
    """Search with SearXNG (`GET <base>/search?q=...&format=json`).

    The instance must allow the JSON format (`search.formats` in its
    `settings.yml` includes `json`); otherwise it answers 403. Any compatible
    endpoint works, for example a Degoog instance exposing the same API.

    Attributes:
        name: `"searxng"`.
        base_url: The instance's base URL.
        timeout: Seconds one search may take.

    """

    name = "searxng"

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        """Configure the backend.

        Args:
            base_url: The instance's base URL, e.g. `http://127.0.0.1:8888`.
            timeout: Seconds one search may take.
            http_client: A client to reuse (tests pass one with an
                `httpx.MockTransport`); a new one per search when None.

        """
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._http_client = http_client

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Run one query and keep the first `max_results` results with a URL.

        Raises:
            SearchError: The instance is unreachable, answers an error status,
                or its body is not SearXNG's JSON.

        """
        url = f"{self.base_url}/search"
        params = {"q": query, "format": "json"}
        try:
            if self._http_client is not None:
                reply = await self._http_client.get(
                    url, params=params, timeout=self.timeout
                )
            else:
                async with httpx.AsyncClient(timeout=self.timeout) as client:
                    reply = await client.get(url, params=params)
        except httpx.HTTPError as exc:
            msg = f"SearXNG is unreachable: {type(exc).__name__}"
            raise SearchError(msg) from exc
        if reply.status_code == 403:
            msg = "SearXNG refused the JSON format (enable it in settings.yml)."
            raise SearchError(msg)
        if reply.status_code != 200:
            msg = f"SearXNG answered HTTP {reply.status_code}."
            raise SearchError(msg)
        try:
            payload: Any = reply.json()
        except ValueError as exc:
            raise SearchError("SearXNG answered something other than JSON.") from exc
        items = payload.get("results") if isinstance(payload, dict) else None
        if not isinstance(items, list):
            raise SearchError("SearXNG's answer has no results list.")
        return parse_results(items, max_results)


def parse_results(items: list[Any], max_results: int) -> list[SearchResult]:
    """Turn SearXNG result objects into `SearchResult`s.

    Results without an `http(s)` URL are skipped, as are repeated URLs; a
    missing title falls back to the URL, the snippet is SearXNG's `content`.
    """
    results: list[SearchResult] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        url = item.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            continue
        if url in seen:
            continue
        seen.add(url)
        title = item.get("title")
        content = item.get("content")
        results.append(
            SearchResult(
                url=url,
                title=" ".join(title.split())
                if isinstance(title, str) and title.strip()
                else url,
                snippet=" ".join(content.split()) if isinstance(content, str) else "",
            )
        )
        if len(results) == max_results:
            break
    return results
