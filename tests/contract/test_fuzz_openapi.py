"""Schemathesis drives the API and the Files service from their own OpenAPI documents.

Every operation each server documents is called with the examples
Schemathesis generates from the document (valid and invalid bodies, query and
path parameters, wrong methods), with a fixed seed and a bounded number of
examples, so a run is repeatable and takes well under a minute. For every
call: no 5xx, and every error (4xx) is OpenAI's error envelope. Successful
Responses and Chat Completions bodies must also match OpenAI's schemas.

The LGOS API runs in process (ASGI) on the test registry without the two
models that fail on purpose; the Files service is the real process the docs
tests use (``tests/demo_services.py``), called over HTTP with its API key.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings

from langgraph_openai_serve import GraphRegistry, LanggraphOpenaiServe, LgosSettings
from lgos_demo_files import FilesSettings, create_app
from tests.contract.openapi import validate
from tests.demo_services import DEMO_FILES
from tests.lgos.graphs import make_registry

pytestmark = [pytest.mark.integration]

FUZZ = settings(
    max_examples=12,
    derandomize=True,  # a fixed seed: the same examples every run
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _api() -> FastAPI:
    graphs = make_registry().graphs
    registry = GraphRegistry(
        graphs={k: v for k, v in graphs.items() if k not in {"failing", "mismatch"}}
    )
    app = FastAPI()
    LanggraphOpenaiServe(
        registry, app, settings=LgosSettings(openai_api_docs_enabled=True)
    ).bind_openai_api()
    return app


def _check(case: Any, response: Any) -> None:
    where = f"{case.method} {case.formatted_path}\n{case.as_curl_command()}"
    assert response.status_code < 500, f"{where}\n{response.text[:2000]}"
    if response.status_code >= 400:
        validate("ErrorResponse", response.json())
    elif "json" in response.headers.get("content-type", ""):
        body = response.json()
        if body.get("object") == "response":
            validate("Response", body)
        elif body.get("object") == "chat.completion":
            validate("CreateChatCompletionResponse", body)


api = schemathesis.openapi.from_asgi("/v1/openapi.json", _api())


@api.parametrize()
@FUZZ
def test_the_api_answers_every_generated_request(case: Any) -> None:
    body = case.body
    model = body.get("model") if isinstance(body, dict) else None
    # Half the generated names become registered models, so graphs run.
    if isinstance(model, str) and len(model) % 2 == 0:
        body["model"] = "echo" if "input" in body else "tools"
    _check(case, case.call())


def _files_document() -> dict[str, Any]:
    # The service serves no document; it builds the same one it would serve.
    app = create_app(
        FilesSettings(
            _env_file=None,  # type: ignore[call-arg]
            storage_url="/nonexistent/unused",
            database_url="/nonexistent/unused.sqlite3",
        )
    )
    return app.openapi()


files = schemathesis.openapi.from_dict(_files_document())


@pytest.fixture(scope="module")
def files_url(demo_url_map: dict[str, str]) -> str:
    return demo_url_map[DEMO_FILES]


@files.parametrize()
@FUZZ
def test_the_files_service_answers_every_generated_request(
    case: Any, files_url: str
) -> None:
    key = FilesSettings(_env_file=None).api_key.get_secret_value()  # type: ignore[call-arg]
    response = case.call(
        base_url=files_url, headers={"Authorization": f"Bearer {key}"}, timeout=30
    )
    _check(case, response)
