"""Fixtures: the Files service in process, reached through the unmodified OpenAI SDK."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from fastapi import FastAPI

from lgos_demo_files import FilesSettings, create_app

BASE_URL = "http://files.test"
API_KEY = "test-files-key"


class FakeClock:
    """A settable Unix clock, so expiry can be tested without waiting an hour."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class FilesStack:
    app: FastAPI
    client: openai.AsyncOpenAI
    http: httpx.AsyncClient
    clock: FakeClock
    storage: Path
    settings: FilesSettings

    def stored_keys(self) -> list[str]:
        """Every object in the storage directory, relative to it."""
        return sorted(
            str(p.relative_to(self.storage))
            for p in self.storage.rglob("*")
            if p.is_file()
        )


StackFactory = Callable[..., AbstractAsyncContextManager[FilesStack]]


# The PostgreSQL case is an integration test (tests/tiers.py), SQLite a unit one.
@pytest.fixture(
    params=[pytest.param("postgres", marks=pytest.mark.integration), "sqlite"]
)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh metadata database: PostgreSQL, then SQLite."""
    if request.param == "postgres":
        return request.getfixturevalue("postgres_uri")
    return str(tmp_path / "metadata" / "files.sqlite3")


@pytest.fixture
def pg_database_url(postgres_uri: str) -> str:
    """A fresh PostgreSQL database, for tests that need only one backend."""
    return postgres_uri


def _stack_factory(tmp_path: Path, default_database: str) -> StackFactory:
    @asynccontextmanager
    async def make(
        *,
        clock: FakeClock | None = None,
        database_url: str | None = None,
        name: str = "objects",
        **overrides: Any,
    ) -> AsyncIterator[FilesStack]:
        storage = tmp_path / name
        settings = FilesSettings(
            _env_file=None,  # type: ignore[call-arg]
            api_key=API_KEY,  # type: ignore[arg-type]
            storage_url=str(storage),
            database_url=database_url or default_database,
            **{"sweep_interval_seconds": 0, **overrides},
        )
        fake = clock or FakeClock()
        app = create_app(settings, clock=fake)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with (
                httpx.AsyncClient(transport=transport) as sdk_http,
                httpx.AsyncClient(
                    transport=transport,
                    base_url=BASE_URL,
                    headers={"Authorization": f"Bearer {API_KEY}"},
                ) as raw_http,
            ):
                client = openai.AsyncOpenAI(
                    base_url=f"{BASE_URL}/v1",
                    api_key=API_KEY,
                    http_client=sdk_http,  # pyright: ignore[reportArgumentType]
                    max_retries=0,
                )
                yield FilesStack(app, client, raw_http, fake, storage, settings)

    return make


@pytest.fixture
def make_stack(tmp_path: Path, database_url: str) -> StackFactory:
    """Start a Files service on each metadata backend (PostgreSQL and SQLite)."""
    return _stack_factory(tmp_path, database_url)


@pytest.fixture
def make_pg_stack(tmp_path: Path, pg_database_url: str) -> StackFactory:
    """Start a Files service on PostgreSQL only."""
    return _stack_factory(tmp_path, pg_database_url)


@pytest.fixture
async def stack(make_stack: StackFactory) -> AsyncIterator[FilesStack]:
    async with make_stack() as running:
        yield running


@pytest.fixture
async def pg_stack(make_pg_stack: StackFactory) -> AsyncIterator[FilesStack]:
    async with make_pg_stack() as running:
        yield running
