"""Generation controls: honoured for graphs that declare them, refused for others.

A graph declares the controls it honours in ``GraphConfig.generation_controls``;
their validated values reach it in ``GraphRequest.generation`` (here, as its
runtime context) and it binds them to its model call, which the offline model
records. Every case goes over the wire (ASGI): Responses and Chat
Completions, streamed and not; every error is checked against OpenAI's
``ErrorResponse`` schema.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from openai import AsyncOpenAI
from pydantic import ValidationError

from langgraph_openai_serve import (
    GenerationControl,
    GenerationSettings,
    GraphConfig,
    GraphRegistry,
    GraphRequest,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.testing import (
    OfflineChatModel,
    RecordingResponder,
    parse_sse,
)
from tests.contract.openapi import validate
from tests.lgos.graphs import echo_responder, model_graph

pytestmark = pytest.mark.anyio

RESPONSES = {"model": "tuned", "input": "controls"}
CHAT = {"model": "tuned", "messages": [{"role": "user", "content": "controls"}]}


def tuned_graph(model: OfflineChatModel) -> Any:
    """Binds the request's generation controls (its runtime context) to the model."""

    async def respond(
        state: MessagesState, runtime: Runtime[GenerationSettings]
    ) -> dict[str, Any]:
        generation = runtime.context or GenerationSettings()
        answer = await model.ainvoke(
            state["messages"], **generation.chat_model_kwargs()
        )
        return {"messages": [answer]}

    builder = StateGraph(MessagesState, context_schema=GenerationSettings)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile()


def generation_context(
    request: GraphRequest, settings: object = None
) -> GenerationSettings:
    return request.generation


@pytest.fixture
def recorder() -> RecordingResponder:
    return RecordingResponder(inner=echo_responder)


@pytest.fixture
def app(recorder: RecordingResponder) -> FastAPI:
    model = OfflineChatModel(responder=recorder)
    registry = GraphRegistry(
        graphs={
            "tuned": GraphConfig(
                graph=tuned_graph(model),
                description="Honours every generation control.",
                context_factory=generation_context,
                generation_controls=frozenset(GenerationControl),
            ),
            "sampled": GraphConfig(
                graph=tuned_graph(model),
                description="Honours temperature only.",
                context_factory=generation_context,
                generation_controls=frozenset({"temperature"}),  # type: ignore[arg-type]
            ),
            "plain": GraphConfig(graph=model_graph(model), description="Honours none."),
        }
    )
    host = FastAPI()
    LanggraphOpenaiServe(registry, host).bind_openai_api()
    return host


@pytest.fixture
async def http(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as client:
        yield client


@pytest.fixture
async def openai_client(http: httpx.AsyncClient) -> AsyncOpenAI:
    return AsyncOpenAI(
        base_url="http://lgos/v1", api_key="test", http_client=http, max_retries=0
    )


async def _answer(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> str:
    """Run a request, streamed or not, and return the answer text."""
    reply = await http.post(path, json=body)
    assert reply.status_code == 200, reply.text
    chat = path.endswith("/chat/completions")
    if not body.get("stream"):
        data = reply.json()
        if chat:
            validate("CreateChatCompletionResponse", data)
            return data["choices"][0]["message"]["content"]
        validate("Response", data)
        return data["output"][0]["content"][0]["text"]
    events = parse_sse(reply.text)
    if chat:
        assert reply.text.endswith("data: [DONE]\n\n")
        return "".join(
            event["choices"][0]["delta"].get("content") or ""
            for event in events
            if event["choices"]
        )
    last = events[-1]
    assert last["type"] == "response.completed"
    return last["response"]["output"][0]["content"][0]["text"]


async def _error(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> dict:
    reply = await http.post(path, json=body)
    assert reply.status_code == 400, reply.text
    validate("ErrorResponse", reply.json())
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error"
    return error


# --- declared controls reach the graph ----------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_responses_controls_reach_the_model(
    http: httpx.AsyncClient, recorder: RecordingResponder, stream: bool
) -> None:
    body = {
        **RESPONSES,
        "stream": stream,
        "temperature": 0.5,
        "top_p": 0.9,
        "max_output_tokens": 64,
        "reasoning": {"effort": "low"},
    }
    assert await _answer(http, "/v1/responses", body) == "Echo: controls"
    [call] = recorder.calls
    # ChatOpenAI's names: the output-token limit is max_tokens.
    assert call.options == {
        "temperature": 0.5,
        "top_p": 0.9,
        "max_tokens": 64,
        "reasoning_effort": "low",
    }


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_chat_controls_reach_the_model(
    http: httpx.AsyncClient, recorder: RecordingResponder, stream: bool
) -> None:
    body = {
        **CHAT,
        "stream": stream,
        "temperature": 0,
        "top_p": 1,
        "max_completion_tokens": 1,
        "presence_penalty": -2,
        "frequency_penalty": 1.5,
        "seed": 42,
        "stop": "END",
        "reasoning_effort": "minimal",
    }
    assert await _answer(http, "/v1/chat/completions", body) == "Echo: controls"
    [call] = recorder.calls
    assert call.options == {
        "temperature": 0.0,
        "top_p": 1.0,
        "max_tokens": 1,
        "presence_penalty": -2.0,
        "frequency_penalty": 1.5,
        "seed": 42,
        "stop": ["END"],
        "reasoning_effort": "minimal",
    }


async def test_the_openai_sdk_sends_controls_a_graph_honours(
    openai_client: AsyncOpenAI, recorder: RecordingResponder
) -> None:
    response = await openai_client.responses.create(
        model="sampled", input="hi", temperature=0.2
    )
    chat = await openai_client.chat.completions.create(
        model="tuned",
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=30,
        stop=["\n\n", "END"],
    )
    assert response.output_text == chat.choices[0].message.content == "Echo: hi"
    assert [call.options for call in recorder.calls] == [
        {"temperature": 0.2},
        {"max_tokens": 30, "stop": ["\n\n", "END"]},
    ]


@pytest.mark.parametrize(
    ("limits", "param"),
    [
        ({"max_tokens": 7}, None),
        ({"max_completion_tokens": 7}, None),
        ({"max_tokens": 7, "max_completion_tokens": 7}, None),
        ({"max_tokens": None, "max_completion_tokens": 7}, None),
        ({"max_tokens": 8, "max_completion_tokens": 7}, "max_tokens"),
    ],
)
async def test_both_chat_token_limits_are_the_output_limit(
    http: httpx.AsyncClient,
    recorder: RecordingResponder,
    limits: dict[str, Any],
    param: str | None,
) -> None:
    if param is None:
        await _answer(http, "/v1/chat/completions", {**CHAT, **limits})
        assert recorder.calls[-1].options == {"max_tokens": 7}
        return
    error = await _error(http, "/v1/chat/completions", {**CHAT, **limits})
    assert error["param"] == param
    assert "deprecated name of max_completion_tokens" in error["message"]
    assert recorder.calls == []


# --- null is absence ----------------------------------------------------------

RESPONSES_NULLS = {
    "temperature": None,
    "top_p": None,
    "max_output_tokens": None,
    "reasoning": {"effort": None},
}
CHAT_NULLS = {
    "temperature": None,
    "top_p": None,
    "max_tokens": None,
    "max_completion_tokens": None,
    "presence_penalty": None,
    "frequency_penalty": None,
    "seed": None,
    "stop": None,
    "reasoning_effort": None,
}


@pytest.mark.parametrize("model", ["tuned", "plain"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_null_controls_are_absent(
    http: httpx.AsyncClient, recorder: RecordingResponder, model: str, stream: bool
) -> None:
    responses = {**RESPONSES, **RESPONSES_NULLS, "model": model, "stream": stream}
    chat = {**CHAT, **CHAT_NULLS, "model": model, "stream": stream}
    assert await _answer(http, "/v1/responses", responses) == "Echo: controls"
    assert await _answer(http, "/v1/chat/completions", chat) == "Echo: controls"
    # Empty shapes that ask for nothing are absence too.
    await _answer(http, "/v1/responses", {**responses, "reasoning": {}})
    await _answer(http, "/v1/chat/completions", {**chat, "stop": []})
    assert [call.options for call in recorder.calls] == [{}] * 4


# --- undeclared controls are refused --------------------------------------------

RESPONSES_CONTROLS = [
    ({"temperature": 0.2}, "temperature", "temperature"),
    ({"top_p": 0.5}, "top_p", "top_p"),
    ({"max_output_tokens": 100}, "max_output_tokens", "max_output_tokens"),
    ({"reasoning": {"effort": "high"}}, "reasoning.effort", "reasoning_effort"),
]
CHAT_CONTROLS = [
    ({"temperature": 1}, "temperature", "temperature"),
    ({"top_p": 0.5}, "top_p", "top_p"),
    ({"max_completion_tokens": 100}, "max_completion_tokens", "max_output_tokens"),
    ({"max_tokens": 100}, "max_tokens", "max_output_tokens"),
    ({"presence_penalty": 0.5}, "presence_penalty", "presence_penalty"),
    ({"frequency_penalty": 0.5}, "frequency_penalty", "frequency_penalty"),
    ({"seed": 1}, "seed", "seed"),
    ({"stop": ["\n"]}, "stop", "stop"),
    ({"reasoning_effort": "low"}, "reasoning_effort", "reasoning_effort"),
]


@pytest.mark.parametrize(
    ("path", "extra", "param", "control"),
    [
        *[("/v1/responses", *case) for case in RESPONSES_CONTROLS],
        *[("/v1/chat/completions", *case) for case in CHAT_CONTROLS],
    ],
)
@pytest.mark.parametrize("model", ["plain", "sampled"])
async def test_undeclared_controls_are_refused(
    http: httpx.AsyncClient,
    recorder: RecordingResponder,
    path: str,
    extra: dict[str, Any],
    param: str,
    control: str,
    model: str,
) -> None:
    if model == "sampled" and control == "temperature":
        return  # the one control "sampled" declares
    base = RESPONSES if path == "/v1/responses" else CHAT
    for stream in (False, True):
        body = {**base, **extra, "model": model, "stream": stream}
        error = await _error(http, path, body)
        assert (error["code"], error["param"]) == ("unsupported_parameter", param)
        assert error["message"].startswith(
            f"Unsupported parameter: '{param}' (the model '{model}' does not "
            f"declare the generation control '{control}'). Omit it, or send null"
        )
    assert recorder.calls == []


async def test_the_first_undeclared_control_is_named(http: httpx.AsyncClient) -> None:
    body = {**CHAT, "model": "sampled", "temperature": 0.1, "seed": 3, "top_p": 0.2}
    error = await _error(http, "/v1/chat/completions", body)
    assert error["param"] == "top_p"


async def test_a_refused_stop_says_an_empty_list_is_accepted(
    http: httpx.AsyncClient,
) -> None:
    error = await _error(
        http, "/v1/chat/completions", {**CHAT, "model": "plain", "stop": "x"}
    )
    assert error["message"].endswith("Omit it, or send null or [].")


# --- values out of OpenAI's ranges ------------------------------------------------


@pytest.mark.parametrize(
    ("path", "extra", "param", "code"),
    [
        ("/v1/responses", {"temperature": 2.01}, "temperature", "invalid_value"),
        ("/v1/responses", {"temperature": -0.1}, "temperature", "invalid_value"),
        ("/v1/responses", {"temperature": "hot"}, "temperature", "invalid_type"),
        ("/v1/responses", {"temperature": True}, "temperature", "invalid_type"),
        ("/v1/responses", {"top_p": 1.5}, "top_p", "invalid_value"),
        (
            "/v1/responses",
            {"max_output_tokens": 15},
            "max_output_tokens",
            "invalid_value",
        ),
        (
            "/v1/responses",
            {"max_output_tokens": 16.5},
            "max_output_tokens",
            "invalid_type",
        ),
        (
            "/v1/responses",
            {"reasoning": {"effort": "extreme"}},
            "reasoning.effort",
            "invalid_value",
        ),
        ("/v1/chat/completions", {"temperature": 3}, "temperature", "invalid_value"),
        ("/v1/chat/completions", {"top_p": -1}, "top_p", "invalid_value"),
        (
            "/v1/chat/completions",
            {"max_completion_tokens": 0},
            "max_completion_tokens",
            "invalid_value",
        ),
        ("/v1/chat/completions", {"max_tokens": -5}, "max_tokens", "invalid_value"),
        (
            "/v1/chat/completions",
            {"presence_penalty": 2.5},
            "presence_penalty",
            "invalid_value",
        ),
        (
            "/v1/chat/completions",
            {"frequency_penalty": -3},
            "frequency_penalty",
            "invalid_value",
        ),
        ("/v1/chat/completions", {"seed": 2**63}, "seed", "invalid_value"),
        (
            "/v1/chat/completions",
            {"stop": ["a", "b", "c", "d", "e"]},
            "stop",
            "invalid_value",
        ),
        ("/v1/chat/completions", {"stop": 5}, "stop", "invalid_type"),
        (
            "/v1/chat/completions",
            {"reasoning_effort": "extreme"},
            "reasoning_effort",
            "invalid_value",
        ),
    ],
)
async def test_values_out_of_range_are_invalid(
    http: httpx.AsyncClient,
    recorder: RecordingResponder,
    path: str,
    extra: dict[str, Any],
    param: str,
    code: str,
) -> None:
    base = RESPONSES if path == "/v1/responses" else CHAT
    error = await _error(http, path, {**base, **extra})
    assert (error["code"], error["param"]) == (code, param)
    assert error["message"].startswith("Invalid ")
    assert recorder.calls == []


async def test_the_boundaries_are_accepted(
    http: httpx.AsyncClient, recorder: RecordingResponder
) -> None:
    await _answer(
        http,
        "/v1/responses",
        {**RESPONSES, "temperature": 2, "top_p": 0, "max_output_tokens": 16},
    )
    await _answer(
        http,
        "/v1/chat/completions",
        {
            **CHAT,
            "temperature": 2.0,
            "presence_penalty": 2,
            "frequency_penalty": -2,
            "seed": -(2**63),
            "stop": ["a", "b", "c", "d"],
            "reasoning_effort": "max",
        },
    )
    assert [call.options for call in recorder.calls] == [
        {"temperature": 2.0, "top_p": 0.0, "max_tokens": 16},
        {
            "temperature": 2.0,
            "presence_penalty": 2.0,
            "frequency_penalty": -2.0,
            "seed": -(2**63),
            "stop": ["a", "b", "c", "d"],
            "reasoning_effort": "max",
        },
    ]


# --- discovery and registration ---------------------------------------------------


async def test_model_retrieval_publishes_the_declared_controls(
    http: httpx.AsyncClient, openai_client: AsyncOpenAI
) -> None:
    tuned = await openai_client.models.retrieve("tuned")
    assert tuned.model_extra is not None
    assert tuned.model_extra["lgos"]["generation_controls"] == sorted(
        control.value for control in GenerationControl
    )
    raw = (await http.get("/v1/models/sampled")).json()
    validate("Model", raw)
    assert raw["lgos"]["generation_controls"] == ["temperature"]
    plain = (await http.get("/v1/models/plain")).json()
    assert plain["lgos"]["generation_controls"] == []
    # The list stays small: schema version, description and features.
    listed = (await http.get("/v1/models")).json()["data"]
    assert all("generation_controls" not in entry["lgos"] for entry in listed)


def test_controls_are_declared_by_name_or_member() -> None:
    config = GraphConfig(
        graph=tuned_graph(OfflineChatModel()),
        description="x",
        context_factory=generation_context,
        generation_controls=["top_p", GenerationControl.SEED],  # type: ignore[arg-type]
    )
    assert config.generation_controls == {
        GenerationControl.TOP_P,
        GenerationControl.SEED,
    }
    assert config.honours(GenerationControl.SEED)
    assert not config.honours(GenerationControl.TEMPERATURE)
    with pytest.raises(ValidationError, match="generation_controls"):
        GraphConfig(
            graph=tuned_graph(OfflineChatModel()),
            description="x",
            context_factory=generation_context,
            generation_controls=frozenset({"creativity"}),  # type: ignore[arg-type]
        )


def test_declaring_controls_needs_an_adapter_to_receive_them() -> None:
    with pytest.raises(ValidationError, match=r"GraphRequest\.generation"):
        GraphConfig(
            graph=model_graph(OfflineChatModel()),
            description="x",
            generation_controls=frozenset({GenerationControl.TEMPERATURE}),
        )
    GraphConfig(
        graph=model_graph(OfflineChatModel()),
        description="x",
        request_to_input=lambda request, messages: {"messages": messages},
        generation_controls=frozenset({GenerationControl.TEMPERATURE}),
    )


def test_generation_settings_name_what_was_sent() -> None:
    assert GenerationSettings().sent() == ()
    assert GenerationSettings().chat_model_kwargs() == {}
    settings = GenerationSettings(
        stop=("x",), temperature=0.0, max_output_tokens=5, reasoning_effort="high"
    )
    assert settings.sent() == (
        GenerationControl.TEMPERATURE,
        GenerationControl.MAX_OUTPUT_TOKENS,
        GenerationControl.REASONING_EFFORT,
        GenerationControl.STOP,
    )
    assert settings.chat_model_kwargs() == {
        "temperature": 0.0,
        "max_tokens": 5,
        "reasoning_effort": "high",
        "stop": ["x"],
    }
    assert GraphRequest(model="m").generation == GenerationSettings()
