"""Bad input gets the OpenAI error envelope with the right status and param."""

from __future__ import annotations

import httpx
import openai
import pytest
from dirty_equals import IsStr
from inline_snapshot import snapshot
from openai import AsyncOpenAI

from tests.contract.openapi import validate
from tests.matchers import an_id

pytestmark = pytest.mark.anyio


async def _error(http: httpx.AsyncClient, path: str, **kwargs) -> tuple[int, dict]:
    reply = await http.post(path, **kwargs)
    validate("ErrorResponse", reply.json())
    return reply.status_code, reply.json()["error"]


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        (
            {"model": "echo", "input": "x", "temperature": 0.1},
            "temperature",
            "unsupported_parameter",
        ),
        (
            {
                "model": "echo",
                "input": "x",
                "include": ["message.output_text.logprobs"],
            },
            "include",
            "unsupported_parameter",
        ),
        (
            {"model": "echo", "input": [{"role": "user", "content": "x", "foo": 1}]},
            "input[0].foo",
            "unknown_parameter",
        ),
        ({"input": "x"}, "model", "missing_required_parameter"),
        ({"model": "echo"}, "input", "missing_required_parameter"),
        (
            {"model": "echo", "input": [{"role": "robot", "content": "x"}]},
            "input[0].role",
            "invalid_value",
        ),
        ({"model": "echo", "input": "x", "stream": "yes"}, "stream", "invalid_type"),
        ({"model": "echo", "input": "x", "store": True}, "store", None),
        (
            {"model": "echo", "input": "x", "metadata": {"lgos_secret": "1"}},
            "metadata.lgos_secret",
            None,
        ),
        (
            {"model": "echo", "input": "x", "metadata": {"k": "v" * 513}},
            "metadata.k",
            None,
        ),
        (
            {
                "model": "echo",
                "input": "x",
                "metadata": {f"k{i}": "v" for i in range(17)},
            },
            "metadata",
            "invalid_value",
        ),
        (
            {
                "model": "echo",
                "input": [
                    {"type": "function_call_output", "call_id": "c", "output": "o"}
                ],
            },
            "input",
            None,
        ),
        (
            {"model": "echo", "input": "x", "previous_response_id": "resp_1"},
            "previous_response_id",
            None,
        ),
    ],
)
async def test_responses_rejects(http: httpx.AsyncClient, body, param, code) -> None:
    status, error = await _error(http, "/v1/responses", json=body)
    assert status == 400
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert error["code"] == code


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (
            {"model": "echo", "messages": [{"role": "user", "content": "x"}], "n": 2},
            "n",
        ),
        (
            {
                "model": "echo",
                "messages": [{"role": "user", "content": "x"}],
                "functions": [],
            },
            "functions",
        ),
        (
            {
                "model": "echo",
                "messages": [{"role": "function", "content": "x", "name": "f"}],
            },
            "messages[0]",
        ),
        (
            {
                "model": "echo",
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "image_url", "image_url": {"url": "http://x"}}
                        ],
                    }
                ],
            },
            "messages[0].content[0]",
        ),
        (
            {
                "model": "echo",
                "messages": [{"role": "user", "content": "x"}],
                "stream_options": {"include_usage": True},
            },
            "stream_options",
        ),
        ({"model": "echo", "messages": []}, "messages"),
    ],
)
async def test_chat_rejects(http: httpx.AsyncClient, body, param) -> None:
    status, error = await _error(http, "/v1/chat/completions", json=body)
    assert status == 400
    assert error["param"] == param


async def test_malformed_json(http: httpx.AsyncClient) -> None:
    for path in ("/v1/responses", "/v1/chat/completions"):
        cut_off = await _error(
            http,
            path,
            content=b'{"model": ',
            headers={"content-type": "application/json"},
        )
        not_an_object = await _error(http, path, json=["not", "an", "object"])
        assert (cut_off, not_an_object) == snapshot(
            (
                (
                    400,
                    {
                        # The JSON parser's words follow the colon.
                        "message": IsStr(
                            regex=r"The request body is not valid JSON: .+\."
                        ),
                        "type": "invalid_request_error",
                        "param": None,
                        "code": "invalid_json",
                    },
                ),
                (
                    400,
                    {
                        "message": "The request body must be a JSON object.",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": "invalid_type",
                    },
                ),
            )
        ), path


async def test_unknown_model_is_404(
    openai_client: AsyncOpenAI, http: httpx.AsyncClient
) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        await openai_client.responses.create(model="missing", input="x")
    assert raised.value.code == "model_not_found"
    assert raised.value.param == "model"
    with pytest.raises(openai.NotFoundError):
        await openai_client.chat.completions.create(
            model="missing", messages=[{"role": "user", "content": "x"}]
        )
    with pytest.raises(openai.NotFoundError):
        await openai_client.models.retrieve("missing")
    reply = await http.get("/v1/nowhere")
    assert reply.status_code == 404
    validate("ErrorResponse", reply.json())


@pytest.mark.parametrize(
    "settings",
    [
        '{"tone":"shouty"}',
        '{"unknown":1}',
        "not json",
        '["list"]',
        '{"name": 5}',
        '{"name":"' + "x" * 30 + '"}',
    ],
)
async def test_invalid_settings(openai_client: AsyncOpenAI, settings: str) -> None:
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as raised:
            await openai_client.responses.create(
                model="greeting",
                input="hi",
                stream=stream,
                metadata={"lgos_settings": settings},
            )
        assert raised.value.param == "metadata.lgos_settings"
    with pytest.raises(openai.BadRequestError) as raised:
        await openai_client.chat.completions.create(
            model="greeting",
            messages=[{"role": "user", "content": "hi"}],
            metadata={"lgos_settings": settings},
        )
    assert raised.value.param == "metadata.lgos_settings"


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"temperature": 1}, "temperature", "unsupported_parameter"),
        ({"max_output_tokens": 100}, "max_output_tokens", "unsupported_parameter"),
        ({"max_output_tokens": 10}, "max_output_tokens", "invalid_value"),  # < 16
        (
            {"reasoning": {"effort": "low"}},
            "reasoning.effort",
            "unsupported_parameter",
        ),
        ({"conversation": "conv_1"}, "conversation", "unsupported_parameter"),
        ({"prompt_cache_key": 1}, "prompt_cache_key", "invalid_type"),
        ({"service_tier": "flex"}, "service_tier", "unsupported_parameter"),
        ({"truncation": "auto"}, "truncation", "unsupported_parameter"),
        ({"prompt": {"id": "p"}}, "prompt", "unsupported_parameter"),
        (
            {"stream": True, "stream_options": {"include_obfuscation": True}},
            "stream_options.include_obfuscation",
            "unsupported_parameter",
        ),
        (
            {"stream_options": {"include_usage": True}},
            "stream_options.include_usage",
            "unknown_parameter",
        ),
        (
            {"text": {"format": {"type": "json_schema", "name": "x", "schema": {}}}},
            "text.format",
            "unsupported_parameter",
        ),
        (
            {
                "input": [
                    {
                        "role": "user",
                        "content": [{"type": "input_image", "image_url": "u"}],
                    }
                ]
            },
            "input[0].content[0]",
            "unsupported_value",
        ),
        (
            {
                "input": [
                    {
                        "role": "user",
                        "content": [{"type": "input_audio", "input_audio": {}}],
                    }
                ]
            },
            "input[0].content[0]",
            "unsupported_value",
        ),
        (
            {"input": [{"type": "reasoning", "summary": []}]},
            "input[0]",
            "unsupported_value",
        ),
    ],
)
async def test_responses_rejects_unserved_openai_fields(
    http: httpx.AsyncClient, body, param, code
) -> None:
    status, error = await _error(
        http, "/v1/responses", json={"model": "echo", "input": "x", **body}
    )
    assert status == 400
    assert (error["param"], error["code"]) == (param, code)


async def test_plain_text_format_is_accepted(openai_client: AsyncOpenAI) -> None:
    response = await openai_client.responses.create(
        model="echo", input="fmt", text={"format": {"type": "text"}}
    )
    assert response.output_text == "Echo: fmt"


@pytest.mark.parametrize(
    "extra",
    [
        {"temperature": 0},
        {"max_tokens": 5},
        {"response_format": {"type": "json_object"}},
        {"function_call": "auto"},
        {"seed": 1},
        {"logprobs": True},
    ],
)
async def test_chat_rejects_generation_controls(http: httpx.AsyncClient, extra) -> None:
    body = {"model": "echo", "messages": [{"role": "user", "content": "x"}], **extra}
    status, error = await _error(http, "/v1/chat/completions", json=body)
    assert status == 400
    assert error["param"] == next(iter(extra))
    assert error["code"] == "unsupported_parameter"


def test_every_server_error_envelope_says_server_error() -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient
    from starlette.exceptions import HTTPException

    from langgraph_openai_serve.api.error_handlers import (
        configure_openai_error_handlers,
    )

    app = FastAPI()
    configure_openai_error_handlers(app)

    @app.get("/crash")
    def crash() -> None:
        raise RuntimeError("internal detail")

    @app.get("/unavailable")
    def unavailable() -> None:
        raise HTTPException(503, "Try again later.")

    client = TestClient(app, raise_server_exceptions=False)
    replies = {path: client.get(path) for path in ("/crash", "/unavailable")}
    for reply in replies.values():
        validate("ErrorResponse", reply.json())
    # No "internal detail" in the messages.
    assert {path: (r.status_code, r.json()) for path, r in replies.items()} == snapshot(
        {
            "/crash": (
                500,
                {
                    "error": {
                        "message": "The server had an error processing the request.",
                        "type": "server_error",
                        "param": None,
                        "code": "server_error",
                    }
                },
            ),
            "/unavailable": (
                503,
                {
                    "error": {
                        "message": "Try again later.",
                        "type": "server_error",
                        "param": None,
                        "code": "server_error",
                    }
                },
            ),
        }
    )


def _scoped_client(resolver):
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from langgraph_openai_serve import LanggraphOpenaiServe
    from tests.lgos.graphs import make_registry

    host = FastAPI()
    LanggraphOpenaiServe(
        make_registry(), host, checkpoint_scope=resolver
    ).bind_openai_api()
    return TestClient(host, raise_server_exceptions=False)


def test_a_scope_resolver_may_refuse_with_its_own_status() -> None:
    from fastapi import HTTPException

    def tenant(request) -> str:
        if "x-tenant" not in request.headers:
            raise HTTPException(
                401, "Sign in first.", headers={"WWW-Authenticate": "Bearer"}
            )
        return request.headers["x-tenant"]

    client = _scoped_client(tenant)
    for path, body in (
        ("/v1/responses", {"model": "echo", "input": "x"}),
        ("/v1/responses", {"model": "echo", "input": "x", "stream": True}),
        (
            "/v1/chat/completions",
            {"model": "echo", "messages": [{"role": "user", "content": "x"}]},
        ),
    ):
        reply = client.post(path, json=body)
        validate("ErrorResponse", reply.json())
        assert (reply.status_code, reply.json()) == snapshot(
            (
                401,
                {
                    "error": {
                        "message": "Sign in first.",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": None,
                    }
                },
            )
        ), path
        assert reply.headers["www-authenticate"] == "Bearer"
        assert reply.headers["x-request-id"] == an_id("req")
    ok = client.post(
        "/v1/responses", json={"model": "echo", "input": "x"}, headers={"x-tenant": "t"}
    )
    assert ok.status_code == 200


@pytest.mark.parametrize("outcome", ["raises", "empty"])
def test_a_failing_scope_resolver_is_a_server_error(outcome: str) -> None:
    def broken(request) -> str:
        if outcome == "raises":
            raise RuntimeError("database down: secret detail")
        return ""

    client = _scoped_client(broken)
    reply = client.post("/v1/responses", json={"model": "echo", "input": "x"})
    validate("ErrorResponse", reply.json())
    # The same for both: no "secret detail" in the message.
    assert (reply.status_code, reply.json()) == snapshot(
        (
            500,
            {
                "error": {
                    "message": "The checkpoint scope could not be resolved.",
                    "type": "server_error",
                    "param": None,
                    "code": "server_error",
                }
            },
        )
    )


@pytest.mark.parametrize(
    "path",
    ["/v1/models/a%0Ab", "/v1/nowhere%0A/x", "/v1/responses/%0A", "/v1/", "/v1/%0D"],
)
async def test_every_path_under_the_prefix_answers_in_the_envelope(
    http: httpx.AsyncClient, path: str
) -> None:
    reply = await http.get(path)
    assert reply.status_code == 404
    validate("ErrorResponse", reply.json())
    assert reply.headers["x-request-id"].startswith("req_")


@pytest.mark.parametrize(
    ("path", "body", "param", "message"),
    [
        (
            "/v1/responses",
            {"model": "echo", "input": []},
            "input",
            "Invalid value for 'input': it must not be empty.",
        ),
        (
            "/v1/responses",
            {"model": "echo", "input": 5},
            "input",
            "Invalid type for 'input': expected a string or a list.",
        ),
        (
            "/v1/responses",
            {"model": "echo", "input": [{"role": "user", "content": 5}]},
            "input[0].content",
            "Invalid type for 'input[0].content': expected a string or a list.",
        ),
        (
            "/v1/chat/completions",
            {"model": "echo", "messages": []},
            "messages",
            "Invalid value for 'messages': it must not be empty.",
        ),
    ],
)
async def test_messages_name_the_real_problem(
    http: httpx.AsyncClient, path: str, body: dict, param: str, message: str
) -> None:
    status, error = await _error(http, path, json=body)
    assert status == 400
    assert (error["param"], error["message"]) == (param, message)


@pytest.mark.parametrize(
    ("method", "path", "param", "code"),
    [
        ("GET", "/v1/responses/resp_1?stream=true", "stream", "unsupported_parameter"),
        (
            "GET",
            "/v1/responses/resp_1?starting_after=3",
            "starting_after",
            "unsupported_parameter",
        ),
        ("GET", "/v1/responses/resp_1?include[]=x", "include", "unsupported_parameter"),
        ("GET", "/v1/responses/resp_1?colour=red", "colour", "unknown_parameter"),
        ("GET", "/v1/models?limit=2", "limit", "unknown_parameter"),
        ("POST", "/v1/responses?stream=true", "stream", "unknown_parameter"),
        (
            "POST",
            "/v1/chat/completions?api-version=2024",
            "api-version",
            "unknown_parameter",
        ),
    ],
)
async def test_query_parameters_are_refused_like_body_fields(
    http: httpx.AsyncClient, method: str, path: str, param: str, code: str
) -> None:
    reply = await http.request(method, path, json={"model": "echo", "input": "x"})
    assert reply.status_code == 400, reply.text
    validate("ErrorResponse", reply.json())
    error = reply.json()["error"]
    assert (error["param"], error["code"]) == (param, code)


async def test_a_query_asking_for_nothing_is_served(http: httpx.AsyncClient) -> None:
    # stream=false asks for what retrieval does anyway: the usual 404 follows.
    reply = await http.get("/v1/responses/resp_1?stream=false&include_obfuscation=0")
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == "not_found"


async def test_odd_requests_get_clean_messages(http: httpx.AsyncClient) -> None:
    # No pydantic class names; health ignores cache-busting query strings;
    # a wrong method says so; a query error does not offer null.
    assert (await http.get("/v1/health?nocache=123")).status_code == 200
    replies = {
        "text not an object": await http.post(
            "/v1/responses", json={"model": "echo", "input": "x", "text": "x"}
        ),
        "wrong method": await http.delete("/v1/models"),
        "stream query": await http.get("/v1/responses/resp_1?stream=true"),
    }
    for reply in replies.values():
        validate("ErrorResponse", reply.json())
    assert {name: (r.status_code, r.json()) for name, r in replies.items()} == snapshot(
        {
            "text not an object": (
                400,
                {
                    "error": {
                        "message": "Invalid value for 'text': Input should be a valid dictionary.",
                        "type": "invalid_request_error",
                        "param": "text",
                        "code": "invalid_type",
                    }
                },
            ),
            "wrong method": (
                405,
                {
                    "error": {
                        "message": "Method Not Allowed",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": "method_not_allowed",
                    }
                },
            ),
            "stream query": (
                400,
                {
                    "error": {
                        "message": "Unsupported parameter: 'stream' (background Responses are polled, not streamed). Omit it, or send stream=false.",
                        "type": "invalid_request_error",
                        "param": "stream",
                        "code": "unsupported_parameter",
                    }
                },
            ),
        }
    )


async def test_a_long_unknown_model_is_not_echoed_in_full(
    http: httpx.AsyncClient,
) -> None:
    reply = await http.post(
        "/v1/responses", json={"model": "m" * 100_000, "input": "x"}
    )
    error = reply.json()["error"]
    assert (reply.status_code, error["code"]) == (404, "model_not_found")
    assert error["message"].startswith(f"The model '{'m' * 100}…' does not exist.")
    assert "m" * 101 not in error["message"]


@pytest.mark.parametrize(
    ("asked", "hint"),
    [
        ("Echo", "Did you mean 'echo'?"),
        ("greting", "Did you mean 'greeting'?"),
        ("unheard-of", "This server serves 'echo', 'greeting', 'tools', "),
    ],
)
async def test_an_unknown_model_names_the_one_meant_or_those_served(
    http: httpx.AsyncClient, asked: str, hint: str
) -> None:
    reply = await http.post("/v1/responses", json={"model": asked, "input": "x"})
    error = reply.json()["error"]
    assert (reply.status_code, error["code"], error["param"]) == (
        404,
        "model_not_found",
        "model",
    )
    assert error["message"].startswith(f"The model '{asked}' does not exist. {hint}")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/responses/compact"),  # OpenAI routes LGOS does not serve
        ("POST", "/v1/responses/input_tokens"),
        ("GET", "/v1/responses/resp_1/input_items"),
        ("POST", "/v1/conversations"),
        ("GET", "/v1/files"),
        ("GET", "/v1/nothing/here"),
    ],
)
async def test_an_unserved_route_is_a_404(
    http: httpx.AsyncClient, method: str, path: str
) -> None:
    # /responses/compact is no Response ID: the retrieve route does not answer 405.
    reply = await http.request(method, path, json={"model": "echo", "input": "x"})
    assert reply.status_code == 404, reply.text
    assert "allow" not in reply.headers
    assert "x-request-id" in reply.headers
    validate("ErrorResponse", reply.json())
    assert reply.json()["error"] == {
        "message": f"Unknown route: {method} {path}.",
        "type": "invalid_request_error",
        "param": None,
        "code": "not_found",
    }


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", "/v1/responses/resp_1", "GET"),  # a Response, another method
        ("GET", "/v1/responses", "POST"),
        ("GET", "/v1/responses/resp_1/cancel", "POST"),
        ("POST", "/v1/models/echo", "GET"),
    ],
)
async def test_a_served_route_called_with_another_method_is_a_405(
    http: httpx.AsyncClient, method: str, path: str, allow: str
) -> None:
    reply = await http.request(method, path)
    assert (reply.status_code, reply.headers["allow"]) == (405, allow)
    assert reply.json()["error"]["code"] == "method_not_allowed"


async def test_an_unknown_route_is_not_echoed_in_full(http: httpx.AsyncClient) -> None:
    reply = await http.post("/v1/" + "x" * 5000)
    message = reply.json()["error"]["message"]
    assert reply.status_code == 404 and len(message) < 300
