"""The UI behind a LiteLLM gateway: discovery from ``/model/info``, wrapped errors.

The bodies here were recorded from a real LiteLLM proxy (1.108.7, no database,
``litellm --config``) in front of the demo API (``lgos serve`` with the demo
registry, offline model): ``recorded/litellm_model_info.json`` is its
``GET /v1/model/info`` (trimmed to three deployments and a few of the ~190
``model_info`` keys; the ``chat`` deployment's ``model_info.lgos`` is LGOS's
own ``GET /v1/models/chat`` extension, as the LGOS model sync puts it there),
and the error envelopes are what the OpenAI SDK read from the gateway's
``/v1/responses`` for the requests named in each case.

The session tests serve those recorded bodies through ``httpx2.MockTransport``
to check the UI's requests and fallbacks; the real proxy is exercised by
``tests/e2e/test_chainlit_gateway.py``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from chainlit.input_widget import Select, Switch
from pydantic import ValidationError

from lgos_chainlit.model_catalog import (
    discover_models,
    first_model_id,
    load_session,
)
from lgos_chainlit.session import (
    ChatSession,
    chat_profiles_for,
)
from lgos_chainlit.settings import ChainlitSettings
from lgos_client.api_errors import (
    GatewayError,
    api_error_code,
    error_text,
    format_api_error,
    unwrap_gateway_error,
)
from lgos_client.gateway_models import (
    NO_GATEWAY_EXTENSION,
    ModelInfoError,
    find_model,
    gateway_models,
    with_fallback_reason,
)

MODEL_INFO: dict[str, Any] = json.loads(
    (Path(__file__).parent / "recorded" / "litellm_model_info.json").read_text()
)
BASE_URL = "http://gateway.test/v1"

# /v1/models of the same gateway: LiteLLM rebuilds it from standard fields.
GATEWAY_MODELS = {
    "data": [
        {"id": "chat", "object": "model", "created": 1677610602, "owned_by": "openai"},
        {
            "id": "writer",
            "object": "model",
            "created": 1677610602,
            "owned_by": "openai",
        },
    ],
    "object": "list",
}
GATEWAY_CHAT = {
    "id": "chat",
    "object": "model",
    "created": 1677610602,
    "owned_by": "openai",
}
# GET /v1/model/info without a key, on a proxy without a database.
NO_DB = {
    "error": {
        "message": "No connected db.",
        "type": "no_db_connection",
        "param": None,
        "code": "400",
    }
}

# -- recorded error envelopes (the SDK's exc.body) ---------------------------

# responses.create(model="chat", metadata={"lgos_settings": '{"audience": "alien"}'})
WRAPPED_BAD_SETTING = {
    "message": "litellm.BadRequestError: OpenAIException - "
    '{"error":{"message":"Invalid runtime setting \'audience\': Input should be '
    "'general', 'beginner' or 'expert'\",\"type\":\"invalid_request_error\","
    '"param":"metadata.lgos_settings","code":null}}\n\n'
    "LiteLLM: model group 'chat' failed with the error above. "
    "No fallback was attempted.",
    "type": "invalid_request_error",
    "param": None,
    "code": "400",
}
# responses.create(model="ghost"): a gateway model LGOS does not serve.
WRAPPED_NOT_FOUND = {
    "message": "litellm.NotFoundError: OpenAIException - "
    '{"error":{"message":"The model \'ghost\' does not exist.",'
    '"type":"invalid_request_error","param":"model","code":"model_not_found"}}\n\n'
    "LiteLLM: model group 'ghost' failed with the error above. "
    "No fallback was attempted.",
    "type": "invalid_request_error",
    "param": None,
    "code": "404",
}
# chat.completions.create(model="ghost"): the upstream message as plain text.
WRAPPED_PLAIN = {
    "message": "litellm.NotFoundError: NotFoundError: OpenAIException - "
    "The model 'ghost' does not exist.\n\n"
    "LiteLLM: model group 'ghost' failed with the error above. "
    "No fallback was attempted.",
    "type": "invalid_request_error",
    "param": None,
    "code": "404",
}
# responses.retrieve("resp_lg_0123456789abcdef"): LiteLLM's own error.
GATEWAY_OWN = {
    "message": "litellm.BadRequestError: You passed in model=None. "
    "There are no healthy deployments for this model",
    "type": "invalid_request_error",
    "param": None,
    "code": "400",
}
# A second streamed request to "ghost": the deployment is cooling down.
COOLDOWN = {
    "message": "No deployments available for selected model, Try again in 5 "
    "seconds. All deployments for selected model are in cooldown. Passed "
    "model=ghost. pre-call-checks=False, cooldown_list=['a70af5532ad6908daedc94f6"
    "71b00fa292398e989760ff289c63e6d97496d898']",
    "type": "all_deployments_in_cooldown",
    "param": None,
    "code": "429",
}


def status_error(status: int, body: dict[str, Any]) -> openai.APIStatusError:
    """The SDK's error for a gateway answer (it unwraps the envelope itself)."""
    request = httpx2.Request("POST", f"{BASE_URL}/responses")
    response = httpx2.Response(status, request=request, json={"error": body})
    client = openai.OpenAI(base_url=BASE_URL, api_key="k")
    return client._make_status_error_from_response(response)


# -- gateway_models ------------------------------------------------------------


def test_model_info_gives_the_full_extension_by_model_name() -> None:
    models = gateway_models(MODEL_INFO)

    assert [model.model_id for model in models] == ["chat", "writer"]
    chat = models[0]
    assert not chat.limited
    assert chat.description.startswith("Chat that writes for a chosen audience")
    assert chat.client_settings is not None
    assert chat.client_settings.defaults == {
        "use_history": False,
        "audience": "general",
    }
    assert set(chat.client_settings.json_schema["properties"]) == {
        "use_history",
        "audience",
    }


def test_a_model_the_sync_did_not_reach_is_limited() -> None:
    writer = find_model(gateway_models(MODEL_INFO), "writer")

    assert writer is not None
    assert writer.limited
    assert writer.limitation == NO_GATEWAY_EXTENSION


def test_deployments_of_one_model_are_one_model_with_the_first_extension() -> None:
    payload = copy.deepcopy(MODEL_INFO)
    chat, writer = payload["data"]
    bare_chat = copy.deepcopy(chat)
    del bare_chat["model_info"]["lgos"]
    other = copy.deepcopy(chat)
    other["model_info"]["lgos"]["description"] = "second deployment"
    writer_with = copy.deepcopy(writer)
    writer_with["model_info"]["lgos"] = {
        "schema_version": 1,
        "description": "the writer",
        "features": ["client_events"],
    }
    payload["data"] = [bare_chat, writer, chat, other, writer_with]

    models = gateway_models(payload)

    assert [model.model_id for model in models] == ["chat", "writer"]
    assert models[0].description.startswith("Chat that writes")
    assert models[1].description == "the writer"
    assert models[1].features == ("client_events",)


@pytest.mark.parametrize(
    "entry",
    [
        "chat",
        {"litellm_params": {}},
        {"model_name": "", "model_info": {}},
        {"model_name": 7},
    ],
)
def test_entries_without_a_model_name_are_skipped(entry: object) -> None:
    models = gateway_models({"data": [entry, MODEL_INFO["data"][1]]})

    assert [model.model_id for model in models] == ["writer"]


def test_an_entry_without_model_info_is_limited() -> None:
    models = gateway_models({"data": [{"model_name": "chat"}]})

    assert models[0].limited
    assert models[0].limitation == NO_GATEWAY_EXTENSION


def test_an_unsupported_extension_version_is_limited_as_from_v1_models() -> None:
    payload = copy.deepcopy(MODEL_INFO)
    payload["data"][0]["model_info"]["lgos"]["schema_version"] = 2

    chat = gateway_models(payload)[0]

    assert chat.limited
    assert chat.limitation is not None and "schema_version 2" in chat.limitation


@pytest.mark.parametrize("payload", [[], {"data": {}}, {"models": []}, "x", None])
def test_a_body_that_is_not_litellms_is_an_error(payload: object) -> None:
    with pytest.raises(ModelInfoError):
        gateway_models(payload)


def test_fallback_reason_names_the_failure_only_for_limited_models() -> None:
    chat, writer = gateway_models(MODEL_INFO)

    assert with_fallback_reason(chat, "HTTP 500") is chat
    reason = with_fallback_reason(writer, "HTTP 500: boom").limitation
    assert reason == (
        "the gateway's `/model/info` failed (HTTP 500: boom), and `/v1/models` "
        "carries no `lgos` extension"
    )


# -- the session from gateway capabilities -------------------------------------


def test_a_session_from_model_info_has_the_settings_controls() -> None:
    chat = gateway_models(MODEL_INFO)[0]

    session = ChatSession.from_model(chat, conversation_id="thread-1")

    assert session.notice is None
    assert session.model_id == "chat"
    widgets = {widget.id: widget for widget in session.widgets}
    assert isinstance(widgets["audience"], Select)
    assert isinstance(widgets["use_history"], Switch)
    session.update_settings({"audience": "expert"})
    metadata = session.request_metadata()
    assert json.loads(metadata["lgos_settings"]) == {"audience": "expert"}
    assert metadata["conversation_id"] == "thread-1"


def test_profiles_from_model_info_describe_or_warn() -> None:
    profiles = chat_profiles_for(gateway_models(MODEL_INFO), "chat")

    assert [profile.name for profile in profiles] == ["chat", "writer"]
    assert profiles[0].default
    assert profiles[0].markdown_description.startswith("Chat that writes")
    assert "Limited functionality" in profiles[1].markdown_description
    assert "has the LGOS model sync run?" in profiles[1].markdown_description


# -- discover_models / load_session: the requests and the fallbacks ------------


class Gateway:
    """Serves recorded gateway bodies; records the requests' paths and keys."""

    def __init__(self, model_info: tuple[int, object]) -> None:
        self.model_info = model_info
        self.seen: list[tuple[str, str]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.seen.append((request.url.path, request.headers["authorization"]))
        path = request.url.path
        if path == "/v1/model/info":
            status, body = self.model_info
            return httpx2.Response(status, json=body)
        if path == "/v1/models":
            return httpx2.Response(200, json=GATEWAY_MODELS)
        if path == "/v1/models/chat":
            return httpx2.Response(200, json=GATEWAY_CHAT)
        return httpx2.Response(
            404,
            json={"detail": "The model `nope` does not exist or is not accessible"},
        )

    def client(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            base_url=BASE_URL,
            api_key="sk-master",
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(self)),
        )


@pytest.mark.anyio
async def test_litellm_discovery_reads_model_info_with_the_key() -> None:
    gateway = Gateway((200, MODEL_INFO))
    async with gateway.client() as client:
        models = await discover_models(client, "litellm")
        first = await first_model_id(client, "litellm")
        session = await load_session(client, "chat", discovery="litellm")

    assert [model.model_id for model in models] == ["chat", "writer"]
    assert first == "chat"
    assert session.notice is None
    assert [widget.id for widget in session.widgets] == ["use_history", "audience"]
    assert {path for path, _ in gateway.seen} == {"/v1/model/info"}
    assert {key for _, key in gateway.seen} == {"Bearer sk-master"}


@pytest.mark.anyio
async def test_lgos_discovery_never_asks_for_model_info() -> None:
    gateway = Gateway((200, MODEL_INFO))
    async with gateway.client() as client:
        models = await discover_models(client)
        session = await load_session(client, "chat")

    assert [model.model_id for model in models] == ["chat", "writer"]
    assert all(model.limited for model in models)  # LiteLLM's /v1/models
    assert session.notice is not None
    assert "/v1/model/info" not in {path for path, _ in gateway.seen}


@pytest.mark.anyio
async def test_failing_model_info_falls_back_to_v1_models_with_the_notice() -> None:
    gateway = Gateway((400, NO_DB))
    async with gateway.client() as client:
        models = await discover_models(client, "litellm")
        session = await load_session(client, "chat", discovery="litellm")

    assert [model.model_id for model in models] == ["chat", "writer"]
    expected = (
        # LiteLLM's code "400" only repeats the status: not shown.
        "the gateway's `/model/info` failed (HTTP 400: No connected db.), "
        "and `/v1/models` carries no `lgos` extension"
    )
    assert [model.limitation for model in models] == [expected, expected]
    assert session.capabilities.limitation == expected
    assert session.notice is not None and expected in session.notice
    assert session.widgets == []
    assert session.request_metadata() == {}
    assert [path for path, _ in gateway.seen] == [
        "/v1/model/info",
        "/v1/models",
        "/v1/model/info",
        "/v1/models/chat",
    ]


@pytest.mark.anyio
async def test_a_model_info_body_that_is_not_litellms_falls_back() -> None:
    gateway = Gateway((200, {"object": "list"}))
    async with gateway.client() as client:
        models = await discover_models(client, "litellm")

    assert all(model.limited for model in models)
    assert models[0].limitation is not None
    assert "answered no data list" in models[0].limitation


@pytest.mark.anyio
async def test_a_model_missing_from_model_info_is_retrieved_or_not_found() -> None:
    gateway = Gateway((200, {"data": [MODEL_INFO["data"][1]]}))
    async with gateway.client() as client:
        session = await load_session(client, "chat", discovery="litellm")
        with pytest.raises(openai.NotFoundError):
            await load_session(client, "nope", discovery="litellm")

    assert session.capabilities.limitation is not None
    assert "does not list this model" in session.capabilities.limitation


# -- settings ------------------------------------------------------------------


def test_discovery_setting_defaults_to_lgos(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEMO_CHAINLIT_DISCOVERY", raising=False)
    assert ChainlitSettings().discovery == "lgos"
    monkeypatch.setenv("DEMO_CHAINLIT_DISCOVERY", "litellm")
    assert ChainlitSettings().discovery == "litellm"
    monkeypatch.setenv("DEMO_CHAINLIT_DISCOVERY", "openrouter")
    with pytest.raises(ValidationError):
        ChainlitSettings()


# -- errors through the gateway --------------------------------------------------


def test_a_wrapped_lgos_error_reads_as_lgos_wrote_it() -> None:
    exc = status_error(400, WRAPPED_BAD_SETTING)

    assert format_api_error(exc) == (
        "HTTP 400: Invalid runtime setting 'audience': Input should be "
        "'general', 'beginner' or 'expert' (param: metadata.lgos_settings)"
    )
    assert api_error_code(exc) is None  # LGOS sent none; "400" is LiteLLM's


def test_a_wrapped_lgos_code_is_read_back() -> None:
    exc = status_error(404, WRAPPED_NOT_FOUND)

    assert isinstance(exc, openai.NotFoundError)
    assert format_api_error(exc) == (
        "HTTP 404: The model 'ghost' does not exist. "
        "(code: model_not_found, param: model)"
    )
    assert api_error_code(exc) == "model_not_found"


def test_a_wrapped_plain_message_loses_the_prefixes_and_the_note() -> None:
    assert unwrap_gateway_error(WRAPPED_PLAIN["message"]) == GatewayError(
        "The model 'ghost' does not exist."
    )
    assert format_api_error(status_error(404, WRAPPED_PLAIN)) == (
        "HTTP 404: The model 'ghost' does not exist."
    )


def test_litellms_own_errors_read_without_its_class_name() -> None:
    assert format_api_error(status_error(400, GATEWAY_OWN)) == (
        "HTTP 400: You passed in model=None. There are no healthy deployments "
        "for this model"
    )
    cooldown = status_error(429, COOLDOWN)
    assert format_api_error(cooldown).startswith(
        "HTTP 429: No deployments available for selected model"
    )
    assert api_error_code(cooldown) == "429"


def test_lgos_errors_without_a_gateway_are_unchanged() -> None:
    body = {
        "message": "No background response 'resp_lg_0123456789abcdef' exists; "
        "foreground responses are not stored.",
        "type": "invalid_request_error",
        "param": "response_id",
        "code": "not_found",
    }
    exc = status_error(404, body)

    assert unwrap_gateway_error(body["message"]) is None
    assert format_api_error(exc) == (
        f"HTTP 404: {body['message']} (code: not_found, param: response_id)"
    )
    assert api_error_code(exc) == "not_found"


def test_a_failed_event_message_is_unwrapped_too() -> None:
    assert error_text(WRAPPED_NOT_FOUND["message"], None) == (
        "The model 'ghost' does not exist. (model_not_found)"
    )
    assert error_text(WRAPPED_BAD_SETTING["message"], "server_error") == (
        "Invalid runtime setting 'audience': Input should be 'general', "
        "'beginner' or 'expert' (server_error)"
    )
    assert error_text("plain", "code") == "plain (code)"
