"""Test doubles shared by the demo graph tests."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from fastapi import FastAPI
from openai import AsyncOpenAI

from langgraph_openai_serve import GraphConfig, GraphRegistry, LanggraphOpenaiServe
from lgos_demo_api.search import SearchError, SearchResult


class ScriptedSearch:
    """A `SearchBackend` answering from a script, recording every query.

    - a query for which `fail_when` is true (default: containing "fail")
      raises `SearchError`;
    - a query containing "nothing" finds no results;
    - any other query finds `per_query` pages whose URLs and titles derive from
      the query (so tests know exactly which URLs may be cited).

    `delay` seconds pass inside each search; `in_flight`/`max_in_flight`
    count concurrent searches, to prove they ran in parallel.
    """

    name = "scripted"

    def __init__(
        self,
        *,
        per_query: int = 2,
        delay: float = 0.0,
        fail_when: Callable[[str], bool] = lambda query: "fail" in query,
    ) -> None:
        self.per_query = per_query
        self.fail_when = fail_when
        self.delay = delay
        self.queries: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0

    @staticmethod
    def slug(query: str) -> str:
        return re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")

    def results_for(self, query: str) -> list[SearchResult]:
        slug = self.slug(query)
        return [
            SearchResult(
                url=f"https://search.test/{slug}/{n}",
                title=f"{query.title()} — page {n}",
                snippet=f"Finding {n} about {query}. More text follows.",
            )
            for n in range(1, self.per_query + 1)
        ]

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        self.queries.append(query)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        if self.fail_when(query):
            raise SearchError(f"search backend unavailable for {query!r}")
        if "nothing" in query:
            return []
        return self.results_for(query)[:max_results]

    def urls(self) -> set[str]:
        return {
            result.url
            for query in self.queries
            if not self.fail_when(query) and "nothing" not in query
            for result in self.results_for(query)
        }


async def sdk_client(
    graphs: dict[str, GraphConfig], run_coordinator: Any = None
) -> AsyncIterator[tuple[AsyncOpenAI, httpx.AsyncClient]]:
    """Serve graphs in-process; yield the OpenAI SDK client and a raw client."""
    app = FastAPI()
    registry = GraphRegistry(graphs=graphs, run_coordinator=run_coordinator)
    LanggraphOpenaiServe(registry, app).bind_openai_api()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        yield (
            AsyncOpenAI(
                base_url="http://lgos/v1",
                api_key="test",
                http_client=http,
                max_retries=0,
            ),
            http,
        )
