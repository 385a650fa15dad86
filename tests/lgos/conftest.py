from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from openai import AsyncOpenAI

from langgraph_openai_serve import LanggraphOpenaiServe
from tests.lgos.graphs import make_registry


@pytest.fixture
def app() -> FastAPI:
    host = FastAPI()
    LanggraphOpenaiServe(make_registry(), host).bind_openai_api()
    return host


@pytest.fixture
async def http(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as client:
        yield client


@pytest.fixture
async def openai_client(app: FastAPI) -> AsyncIterator[AsyncOpenAI]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport) as http_client:
        yield AsyncOpenAI(
            base_url="http://lgos/v1",
            api_key="test",
            http_client=http_client,
            max_retries=0,
        )
