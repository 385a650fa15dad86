"""The client core's ``lgos`` model is exactly what the API publishes.

``lgos_client.extension.LgosExtension`` (and its ``ClientSettingsDescriptor``)
is the one client-side model of the extension both chat UIs read; it does not
import the server. For every graph of the demo API, the list entry
(``GET /v1/models``) and the retrieved model (``GET /v1/models/{id}``) parse
with it without loss, and its field names are the keys the API publishes, in
both directions: a key the API adds that the client model lacks fails here,
and so does a client field the API does not publish.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from lgos_client.extension import (
    RETRIEVAL_KEYS,
    ClientSettingsDescriptor,
    LgosExtension,
    describe_model,
)
from tests.conftest import demo_app

pytestmark = pytest.mark.anyio

EXTENSION_FIELDS = set(LgosExtension.model_fields)
SETTINGS_FIELDS = set(ClientSettingsDescriptor.model_fields)


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def published() -> AsyncIterator[dict[str, tuple[dict, dict]]]:
    """Every demo graph's ``(list entry, retrieved model)`` as the API sends them."""
    transport = httpx.ASGITransport(app=demo_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        listed = (await http.get("/v1/models")).json()["data"]
        models = {}
        for entry in listed:
            detail = await http.get(f"/v1/models/{entry['id']}")
            assert detail.status_code == 200
            models[entry["id"]] = (entry, detail.json())
        yield models


async def test_the_demo_publishes_graphs(
    published: dict[str, tuple[dict, dict]],
) -> None:
    assert {"chat", "writer", "deep-research"} <= set(published)
    # At least one graph has settings, so their keys are compared too.
    assert any(
        detail["lgos"]["client_settings"] is not None
        for _, detail in published.values()
    )


async def test_the_client_fields_are_the_published_keys(
    published: dict[str, tuple[dict, dict]],
) -> None:
    for model_id, (entry, detail) in published.items():
        assert set(detail["lgos"]) == EXTENSION_FIELDS, model_id
        assert set(entry["lgos"]) == EXTENSION_FIELDS - RETRIEVAL_KEYS, model_id
        settings = detail["lgos"]["client_settings"]
        if settings is not None:
            assert set(settings) == SETTINGS_FIELDS, model_id


async def test_a_retrieved_model_parses_without_loss(
    published: dict[str, tuple[dict, dict]],
) -> None:
    for model_id, (_, detail) in published.items():
        extension = LgosExtension.model_validate(detail["lgos"])
        assert extension.settings_unsupported is None, model_id
        assert extension.model_dump(mode="json") == detail["lgos"], model_id
        capabilities = describe_model(detail)
        assert capabilities.model_id == model_id
        assert capabilities.extension == extension
        assert capabilities.limitation is None


async def test_a_listed_model_parses_without_the_retrieval_keys(
    published: dict[str, tuple[dict, dict]],
) -> None:
    for model_id, (entry, detail) in published.items():
        extension = LgosExtension.model_validate(entry["lgos"])
        dumped = extension.model_dump(mode="json")
        assert {key: dumped[key] for key in entry["lgos"]} == entry["lgos"], model_id
        assert extension.client_settings is None
        assert extension.client_tools == extension.server_tools == ()
        assert extension.generation_controls == ()
        listed = describe_model(entry)
        assert not listed.limited
        assert listed.description == describe_model(detail).description
