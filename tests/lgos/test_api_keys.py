"""API keys in process: parsing, the 401 envelope, exemptions, tenants, reloads."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from langgraph.checkpoint.memory import InMemorySaver
from openai import AsyncOpenAI, OpenAI

from langgraph_openai_serve import (
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    GraphRequest,
    InMemoryBackgroundBackend,
    InMemoryRunCoordinator,
    LanggraphOpenaiServe,
)
from langgraph_openai_serve.api.api_keys import ApiKeyError, ApiKeys, parse_key_entries
from langgraph_openai_serve.api.auth import api_key_tenant, bearer_token
from langgraph_openai_serve.server.api_keys import (
    api_keys_from_settings,
    is_loopback,
    open_api_warning,
)
from langgraph_openai_serve.server.app import create_app, load_scope_resolver
from langgraph_openai_serve.server.server_settings import ServerSettings
from langgraph_openai_serve.testing import OfflineChatModel
from tests.contract.openapi import validate
from tests.lgos.graphs import echo_responder, make_registry, model_graph
from tests.lgos.interrupt_graphs import interrupt_registry
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

ALPHA = "sk-alpha-0123456789"  # tenant acme
BETA = "sk-beta-0123456789"  # tenant globex
SHARED = "sk-shared-012345678"  # no tenant


def keyed_app(keys: ApiKeys, **options: Any) -> FastAPI:
    app = FastAPI()
    registry = interrupt_registry(InMemorySaver(), InMemoryRunCoordinator())
    registry.graphs.update(make_registry().graphs)
    LanggraphOpenaiServe(registry, app, api_keys=keys, **options).bind_openai_api()
    return app


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    keys = ApiKeys({ALPHA: "acme", BETA: "globex", SHARED: None})
    transport = httpx.ASGITransport(app=keyed_app(keys))
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as c:
        yield c


def sdk(http: httpx.AsyncClient, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(
        base_url="http://lgos/v1", api_key=key, http_client=http, max_retries=0
    )


# --- the format ------------------------------------------------------------


def test_entries_of_the_setting_and_of_a_file() -> None:
    assert parse_key_entries(f" {ALPHA} acme , {SHARED}\n{BETA}  globex,") == {
        ALPHA: "acme",
        SHARED: None,
        BETA: "globex",
    }
    text = f"# ops keys\n\n{ALPHA} acme\n  {SHARED}  \n# {BETA} globex\n"
    assert parse_key_entries(text, file=True) == {ALPHA: "acme", SHARED: None}
    # The same key twice with the same tenant is one key.
    assert parse_key_entries(f"{ALPHA} acme,{ALPHA} acme") == {ALPHA: "acme"}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f"{ALPHA} acme extra", "LGOS_API_KEYS entry 1"),
        (f"{SHARED},{ALPHA} acm\u00e9", "LGOS_API_KEYS entry 2"),
        (f"{ALPHA} acme,{ALPHA} globex", "LGOS_API_KEYS entry 2"),
        (f"{ALPHA} acme,{ALPHA}", "LGOS_API_KEYS entry 2"),
    ],
)
def test_a_bad_entry_is_named_by_position_not_by_text(text: str, where: str) -> None:
    with pytest.raises(ApiKeyError) as raised:
        parse_key_entries(text)
    assert str(raised.value).startswith(where)
    assert ALPHA not in str(raised.value)
    assert SHARED not in str(raised.value)


def test_a_bad_key_file_line_is_named_by_number(tmp_path: Path) -> None:
    path = tmp_path / "keys.txt"
    path.write_text(f"# comment\n{ALPHA} acme\n{BETA} globex and more\n")
    with pytest.raises(ApiKeyError) as raised:
        ApiKeys(key_file=path)
    assert str(raised.value).startswith(f"{path} line 3:")
    assert BETA not in str(raised.value)
    with pytest.raises(ApiKeyError, match="Cannot read the API key file"):
        ApiKeys(key_file=tmp_path / "missing.txt")


def test_match_and_bearer() -> None:
    keys = ApiKeys({ALPHA: "acme", SHARED: None})
    assert keys.match(ALPHA) is not None
    assert keys.match(ALPHA).tenant == "acme"  # type: ignore[union-attr]
    assert keys.match(SHARED).tenant is None  # type: ignore[union-attr]
    assert keys.match(ALPHA + "x") is None
    assert keys.match(ALPHA[:-1]) is None
    assert keys.match("") is None
    assert ALPHA not in repr(keys)
    assert bearer_token(f"Bearer {ALPHA}") == ALPHA
    assert bearer_token(f"bearer   {ALPHA} ") == ALPHA
    for value in (None, "", "Bearer", "Bearer ", f"Basic {ALPHA}", ALPHA):
        assert bearer_token(value) is None


def test_settings_turn_keys_on(tmp_path: Path) -> None:
    assert api_keys_from_settings(ServerSettings()) is None
    keys = api_keys_from_settings(ServerSettings(api_keys=f"{ALPHA} acme"))
    assert keys is not None
    assert keys.match(ALPHA).tenant == "acme"  # type: ignore[union-attr]
    # An empty key file is authentication with no key yet: nothing gets in.
    empty = tmp_path / "keys.txt"
    empty.write_text("# no keys yet\n")
    keys = api_keys_from_settings(ServerSettings(api_key_file=empty))
    assert keys is not None
    assert len(keys) == 0
    # Both sources together; one key cannot name two tenants across them.
    empty.write_text(f"{BETA} globex\n")
    keys = api_keys_from_settings(
        ServerSettings(api_keys=f"{ALPHA} acme", api_key_file=empty)
    )
    assert keys is not None
    assert len(keys) == 2
    empty.write_text(f"{ALPHA} globex\n")
    with pytest.raises(ApiKeyError, match="another tenant"):
        api_keys_from_settings(ServerSettings(api_keys=f"{ALPHA}", api_key_file=empty))
    assert ALPHA not in repr(ServerSettings(api_keys=ALPHA))


# --- the routes ------------------------------------------------------------

ROUTES = [
    ("GET", "/v1/models"),
    ("GET", "/v1/models/approval"),
    ("POST", "/v1/responses"),
    ("POST", "/v1/chat/completions"),
    ("GET", "/v1/responses/resp_abc"),
    ("POST", "/v1/responses/resp_abc/cancel"),
    ("GET", "/v1/no-such-route"),
    ("GET", "/v1/"),
    ("GET", "/v1/healthz"),
]
BAD = [
    (None, "You didn't provide an API key"),
    ("", "You didn't provide an API key"),
    ("Bearer", "You didn't provide an API key"),
    (f"Basic {ALPHA}", "You didn't provide an API key"),
    (ALPHA, "You didn't provide an API key"),
    ("Bearer wrong-key", "Incorrect API key provided."),
    (f"Bearer {ALPHA}x", "Incorrect API key provided."),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_route_needs_a_key(
    http: httpx.AsyncClient, method: str, path: str
) -> None:
    body = {"model": "echo", "input": "hi", "messages": []}
    for authorization, says in BAD:
        headers = {} if authorization is None else {"Authorization": authorization}
        reply = await http.request(
            method, path, headers=headers, json=body if method == "POST" else None
        )
        assert reply.status_code == 401, (path, authorization)
        assert reply.headers["www-authenticate"] == "Bearer"
        assert reply.headers["x-request-id"].startswith("req_")
        envelope = reply.json()
        validate("ErrorResponse", envelope)
        assert envelope["error"]["type"] == "invalid_request_error"
        assert envelope["error"]["code"] == "invalid_api_key"
        assert envelope["error"]["param"] is None
        assert envelope["error"]["message"].startswith(says)
        assert ALPHA not in reply.text


async def test_health_probes_need_no_key(http: httpx.AsyncClient) -> None:
    assert (await http.get("/v1/health")).status_code == 200
    # Every path under /health is exempt (the probes' routes): without a
    # route there it is the mount's ordinary 404, not a 401.
    for path in ("/v1/health/live", "/v1/health/ready"):
        reply = await http.get(path)
        assert reply.status_code in (200, 404, 503), path


async def get_raw(app: Any, path: str) -> tuple[int, bytes]:
    """GET ``path`` exactly as sent (httpx would resolve a ``..`` first)."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"lgos")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    await app(scope, receive, send)
    body = b"".join(
        m.get("body", b"") for m in sent if m["type"] == "http.response.body"
    )
    return sent[0]["status"], body


async def test_a_dot_dot_path_does_not_escape_the_exemption() -> None:
    """``/v1/health/../models`` is exempt, but it is no route: a 404, no models."""
    app = keyed_app(ApiKeys([ALPHA]))
    status, body = await get_raw(app, "/v1/health/../models")
    assert status == 404, body
    assert b"approval" not in body
    assert (await get_raw(app, "/v1/health/%2E%2E/models"))[0] == 404
    assert (await get_raw(app, "/v1/health"))[0] == 200
    assert (await get_raw(app, "/v1/models"))[0] == 401


async def test_a_known_key_is_served(http: httpx.AsyncClient) -> None:
    for key in (ALPHA, BETA, SHARED):
        client = sdk(http, key)
        assert [m.id async for m in client.models.list()]
        answer = await client.responses.create(model="echo", input="with a key")
        assert answer.output_text == "Echo: with a key"
    reply = await http.get("/v1/models", headers={"Authorization": f"bearer {ALPHA}"})
    assert reply.status_code == 200


async def test_the_sdk_raises_authentication_error(http: httpx.AsyncClient) -> None:
    with pytest.raises(openai.AuthenticationError) as raised:
        await sdk(http, "not-a-key").responses.create(model="echo", input="x")
    assert raised.value.code == "invalid_api_key"
    assert raised.value.status_code == 401


async def test_a_refusal_logs_no_key(
    http: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await http.get("/v1/models", headers={"Authorization": f"Bearer {ALPHA}x"})
    await http.get("/v1/models", headers={"Authorization": f"Bearer {ALPHA}"})
    assert ALPHA not in caplog.text


# --- tenants ---------------------------------------------------------------


def calls_of(response: Any) -> list[Any]:
    return [i for i in response.output if i.type == "function_call"]


def answers(response: Any, value: str) -> list[dict[str, str]]:
    return [
        {"type": "function_call_output", "call_id": c.call_id, "output": value}
        for c in calls_of(response)
    ]


async def resume_error(client: AsyncOpenAI, paused: Any) -> dict[str, Any]:
    with pytest.raises(openai.APIStatusError) as raised:
        await client.responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers(paused, "approve"),  # type: ignore[arg-type]
        )
    return {"status": raised.value.status_code, **raised.value.body}  # type: ignore[dict-item]


async def test_another_tenants_key_cannot_reach_the_pause(
    http: httpx.AsyncClient,
) -> None:
    acme, globex = sdk(http, ALPHA), sdk(http, BETA)
    shared = sdk(http, SHARED)
    paused = await acme.responses.create(model="approval", input="Refund 42")
    assert calls_of(paused)
    # A pause that does not exist: one acme itself finished.
    done = await acme.responses.create(model="approval", input="Refund 43")
    finished = await acme.responses.create(
        model="approval", previous_response_id=done.id, input=answers(done, "approve")
    )  # type: ignore[arg-type]
    assert finished.status == "completed"
    missing = await resume_error(acme, done)
    assert missing["status"] == 409
    assert missing["code"] == "interrupt_state_conflict"
    # globex's key, and a key without a tenant, find nothing at acme's address:
    # the very error of a pause that does not exist.
    assert await resume_error(globex, paused) == missing
    assert await resume_error(shared, paused) == missing
    # acme's own key resumes it.
    resumed = await acme.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=answers(paused, "approve"),  # type: ignore[arg-type]
    )
    assert resumed.status == "completed"


async def test_another_tenants_background_response_is_not_found() -> None:
    registry = GraphRegistry(
        graphs={
            "echo": GraphConfig(
                graph=model_graph(OfflineChatModel(responder=echo_responder)),
                description="Echoes in the background.",
                features=frozenset({GraphFeature.BACKGROUND}),
            )
        }
    )
    backend = InMemoryBackgroundBackend(registry)
    app = FastAPI()
    keys = ApiKeys({ALPHA: "acme", BETA: "globex"})
    LanggraphOpenaiServe(
        registry, app, background=backend, api_keys=keys
    ).bind_openai_api()
    transport = httpx.ASGITransport(app=app)
    async with (
        backend.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://lgos") as http,
    ):
        acme, globex = sdk(http, ALPHA), sdk(http, BETA)
        queued = await acme.responses.create(model="echo", input="bg", background=True)
        unknown = queued.id[:-4] + ("0000" if queued.id[-4:] != "0000" else "1111")
        for call in (globex.responses.retrieve, globex.responses.cancel):
            with pytest.raises(openai.NotFoundError) as theirs:
                await call(queued.id)
            with pytest.raises(openai.NotFoundError) as nobodys:
                await call(unknown)
            assert theirs.value.code == nobodys.value.code == "not_found"
            assert theirs.value.param == nobodys.value.param
            assert theirs.value.message.replace(queued.id, unknown) == (
                nobodys.value.message
            )
        assert (await acme.responses.retrieve(queued.id)).id == queued.id


async def test_the_applications_resolver_wins_and_can_read_the_tenant() -> None:
    seen: list[str | None] = []

    def by_team(request: Request) -> str:
        seen.append(api_key_tenant(request))
        return "one-scope-for-all"

    keys = ApiKeys({ALPHA: "acme", BETA: "globex"})
    transport = httpx.ASGITransport(app=keyed_app(keys, checkpoint_scope=by_team))
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:
        paused = await sdk(http, ALPHA).responses.create(model="approval", input="x")
        # The resolver puts both tenants in one scope: globex resumes it.
        resumed = await sdk(http, BETA).responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers(paused, "approve"),  # type: ignore[arg-type]
        )
    assert resumed.status == "completed"
    assert seen == ["acme", "globex"]


async def test_the_graph_sees_the_scope_and_no_request_field_can_set_it() -> None:
    seen: list[str] = []

    def context(request: GraphRequest, settings: Any) -> None:
        seen.append(request.scope)

    graph = model_graph(OfflineChatModel(responder=echo_responder))
    registry = GraphRegistry(
        graphs={
            "echo": GraphConfig(
                graph=graph,
                description="Echoes.",
                context_factory=context,
                features=frozenset({GraphFeature.BACKGROUND}),
            )
        }
    )
    backend = InMemoryBackgroundBackend(registry)
    app = FastAPI()
    keys = ApiKeys({ALPHA: "acme", BETA: "globex", SHARED: None})
    LanggraphOpenaiServe(
        registry, app, background=backend, api_keys=keys
    ).bind_openai_api()
    transport = httpx.ASGITransport(app=app)
    async with (
        backend.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://lgos") as http,
    ):
        claims: dict[str, Any] = {
            "metadata": {"scope": "globex"},
            "user": "globex",
        }
        await sdk(http, ALPHA).responses.create(model="echo", input="x", **claims)
        await sdk(http, SHARED).chat.completions.create(
            model="echo", messages=[{"role": "user", "content": "x"}]
        )
        # A background run gets its submitter's scope where the engine runs it.
        globex = sdk(http, BETA)
        queued = await globex.responses.create(model="echo", input="x", background=True)

        async def finished() -> Any:
            done = await globex.responses.retrieve(queued.id)
            return done if done.status == "completed" else None

        await eventually(finished, message="the background response to finish")
    assert seen == ["acme", "default", "globex"]


# --- rotation --------------------------------------------------------------


async def test_the_key_file_is_read_again_when_it_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    path = tmp_path / "keys.txt"
    path.write_text(f"{ALPHA} acme\n")
    keys = ApiKeys(key_file=path, check_interval=0)
    transport = httpx.ASGITransport(app=keyed_app(keys))
    async with httpx.AsyncClient(transport=transport, base_url="http://lgos") as http:

        async def status(key: str) -> int:
            headers = {"Authorization": f"Bearer {key}"}
            return (await http.get("/v1/models", headers=headers)).status_code

        assert (await status(ALPHA), await status(BETA)) == (200, 401)
        # Rotated by replacing the file, as a Kubernetes Secret volume does.
        (tmp_path / "new.txt").write_text(f"{BETA} globex\n")
        os.replace(tmp_path / "new.txt", path)
        assert (await status(ALPHA), await status(BETA)) == (401, 200)
        # A broken file keeps the keys in force and says so, once.
        path.write_text(f"{SHARED} two tenants here\n")
        assert (await status(ALPHA), await status(BETA)) == (401, 200)
        assert await status(SHARED) == 401
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1
        assert f"{path} line 1" in errors[0].getMessage()
        # Fixed: read again.
        path.write_text(f"{SHARED}\n")
        assert (await status(BETA), await status(SHARED)) == (401, 200)
        # A deleted file keeps the keys too.
        path.unlink()
        assert await status(SHARED) == 200
    assert all(k not in caplog.text for k in (ALPHA, BETA, SHARED))


def test_reload_now_and_the_check_interval(tmp_path: Path) -> None:
    path = tmp_path / "keys.txt"
    path.write_text(f"{ALPHA}\n")
    keys = ApiKeys(key_file=path, check_interval=3600)
    path.write_text(f"{BETA}\n")
    # Within the interval the file is not looked at.
    assert keys.match(BETA) is None
    assert keys.reload("SIGHUP") is True
    assert keys.match(BETA) is not None
    assert keys.match(ALPHA) is None
    assert ApiKeys([ALPHA]).reload() is False  # no file


# --- the open-API warning --------------------------------------------------


def test_the_open_api_warning_rule() -> None:
    open_ = ServerSettings()
    for host in ("127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"):
        assert is_loopback(host), host
        assert open_api_warning(open_, host) is None
    for host in ("0.0.0.0", "::", "192.0.2.10"):
        assert not is_loopback(host), host
        warning = open_api_warning(open_, host)
        assert warning is not None
        assert "\n" not in warning
        assert warning.startswith("The API is open")
    assert open_api_warning(open_, None) is None  # a Unix socket
    for settings in (
        ServerSettings(api_keys=ALPHA),
        ServerSettings(api_key_file=Path("keys.txt")),
        ServerSettings(checkpoint_scope_resolver="my_app:scope"),
    ):
        assert open_api_warning(settings, "0.0.0.0") is None


# --- lgos serve's app factory ----------------------------------------------


def one_scope(request: Request) -> str:
    """A resolver for ``LGOS_CHECKPOINT_SCOPE_RESOLVER``: every tenant together."""
    return "everyone"


def test_the_app_factory_takes_keys_and_a_resolver_from_settings() -> None:
    settings = ServerSettings(
        api_keys=f"{ALPHA} acme,{BETA} globex",
        checkpoint_scope_resolver=f"{__name__}:one_scope",
    )
    app = create_app(
        "tests.lgos.interrupt_graphs:serve_interrupt_registry", settings=settings
    )
    with TestClient(app) as http:
        assert http.get("/v1/models").status_code == 401
        acme = OpenAI(base_url="http://testserver/v1", api_key=ALPHA, http_client=http)
        paused = acme.responses.create(model="approval", input="x")
        # The resolver, not the tenants, decides: globex reaches acme's pause.
        resumed = acme.with_options(api_key=BETA).responses.create(
            model="approval",
            previous_response_id=paused.id,
            input=answers(paused, "approve"),  # type: ignore[arg-type]
        )
        assert resumed.status == "completed"


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("tests.nowhere:scope", "Cannot import module"),
        (f"{__name__}:ALPHA", "is not callable"),
        (f"{__name__}:get_raw", "cannot take the one argument"),
    ],
)
def test_a_resolver_that_cannot_be_used_is_named(path: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        load_scope_resolver(path)
