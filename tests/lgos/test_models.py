"""Model discovery: GET /v1/models and /v1/models/{model} with the lgos extension."""

from __future__ import annotations

import httpx
import pytest
from openai import AsyncOpenAI

from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio


async def test_list_carries_small_extension(
    openai_client: AsyncOpenAI, http: httpx.AsyncClient
) -> None:
    page = await openai_client.models.list()
    ids = [model.id for model in page.data]
    assert ids[:3] == ["echo", "greeting", "tools"]
    echo = page.data[0]
    assert echo.owned_by == "langgraph-openai-serve"
    assert echo.model_extra["lgos"] == {
        "schema_version": 1,
        "description": "Echoes the last user message.",
        "features": [],
    }
    raw = (await http.get("/v1/models")).json()
    validate("ListModelsResponse", raw)
    assert all("client_settings" not in entry["lgos"] for entry in raw["data"])


async def test_retrieve_carries_full_extension(
    openai_client: AsyncOpenAI, http: httpx.AsyncClient
) -> None:
    model = await openai_client.models.retrieve("greeting")
    lgos = model.model_extra["lgos"]
    assert lgos["schema_version"] == 1
    assert lgos["server_tools"] == [] and lgos["client_tools"] == []
    settings = lgos["client_settings"]
    assert settings["schema_version"] == 1
    assert settings["defaults"] == {"name": "world", "tone": "plain"}
    schema = settings["json_schema"]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert schema["properties"]["tone"]["enum"] == ["plain", "excited"]
    assert schema["properties"]["name"]["maxLength"] == 20
    validate("Model", (await http.get("/v1/models/greeting")).json())

    plain = (await openai_client.models.retrieve("echo")).model_extra["lgos"]
    assert plain == {
        "schema_version": 1,
        "description": "Echoes the last user message.",
        "features": [],
        "client_settings": None,
        "server_tools": [],
        "client_tools": [],
        "generation_controls": [],
    }


async def test_health(http: httpx.AsyncClient) -> None:
    reply = await http.get("/v1/health")
    assert reply.json() == {"status": "ok", "models": 10}


async def test_docs_are_off_by_default(http: httpx.AsyncClient) -> None:
    for path in ("/v1/docs", "/v1/openapi.json", "/v1/redoc"):
        assert (await http.get(path)).status_code == 404
