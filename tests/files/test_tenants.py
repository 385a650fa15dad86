"""Tenants of the Files service: each key sees only its tenant's files.

Tenant keys (`DEMO_FILES_API_KEYS`) are confined to their tenant; the service
key (`DEMO_FILES_API_KEY`) acts for the tenant its `OpenAI-Project` header
names, else for `default`. Another tenant's file is answered exactly as a
missing one. Run on PostgreSQL and SQLite.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import openai
import psycopg
import pytest
from pydantic import ValidationError

from lgos_demo_files import FilesSettings
from tests.contract.openapi import validate
from tests.files.conftest import API_KEY, BASE_URL, FilesStack, StackFactory

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

ACME = "files-acme-0123456789"
GLOBEX = "files-globex-0123456789"
PLAIN = "files-plain-0123456789"  # a tenant key without a tenant: `default`
TENANT_KEYS = f"{ACME} acme,{GLOBEX} globex\n{PLAIN}"


@asynccontextmanager
async def sdk(
    stack: FilesStack, key: str, project: str | None = None
) -> AsyncIterator[openai.AsyncOpenAI]:
    """The unmodified SDK on the stack's app with `key` (and `project`)."""
    transport = httpx.ASGITransport(app=stack.app)
    async with httpx.AsyncClient(transport=transport) as http:
        yield openai.AsyncOpenAI(
            base_url=f"{BASE_URL}/v1",
            api_key=key,
            project=project,
            http_client=http,  # pyright: ignore[reportArgumentType]
            max_retries=0,
        )


async def error_of(call: Any, *args: Any, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    with pytest.raises(openai.APIStatusError) as raised:
        await call(*args, **kwargs)
    body = raised.value.response.json()
    validate("ErrorResponse", body)
    return raised.value.status_code, body


async def test_a_tenant_sees_only_its_own_files(make_stack: StackFactory) -> None:
    async with (
        make_stack(api_keys=TENANT_KEYS) as stack,
        sdk(stack, ACME) as acme,
        sdk(stack, GLOBEX) as globex,
        sdk(stack, API_KEY, project="acme") as for_acme,
        sdk(stack, API_KEY) as service,
    ):
        mine = await acme.files.create(
            file=("plan.md", b"# Acme plan\n"), purpose="user_data"
        )
        missing = mine.id[:-4] + ("0000" if mine.id[-4:] != "0000" else "1111")

        # The other tenant: no list entry, and 404s word for word as for a
        # file that does not exist.
        assert [f.id async for f in globex.files.list()] == []
        for call in (
            globex.files.retrieve,
            globex.files.content,
            globex.files.delete,
        ):
            theirs = await error_of(call, mine.id)
            nobodys = await error_of(call, missing)
            assert theirs[0] == nobodys[0] == 404
            assert (
                theirs[1]["error"]["message"].replace(mine.id, missing)
                == (nobodys[1]["error"]["message"])
            )
            assert {**theirs[1]["error"], "message": ""} == {
                **nobodys[1]["error"],
                "message": "",
            }
        # Nor can a cursor be borrowed from another tenant's list.
        cursor_theirs = await error_of(globex.files.list, after=mine.id)
        cursor_nobodys = await error_of(globex.files.list, after=missing)
        assert cursor_theirs[0] == cursor_nobodys[0] == 400
        assert (
            cursor_theirs[1]["error"]["message"].replace(mine.id, missing)
            == (cursor_nobodys[1]["error"]["message"])
        )
        # The default tenant (the service key alone, a key without a tenant)
        # is a tenant like the others.
        assert [f.id async for f in service.files.list()] == []
        async with sdk(stack, PLAIN) as plain:
            assert (await error_of(plain.files.retrieve, mine.id))[0] == 404

        # The owner, and the service key acting for it, still have the file.
        assert [f.id async for f in acme.files.list()] == [mine.id]
        assert (await acme.files.content(mine.id)).content == b"# Acme plan\n"
        assert (await for_acme.files.retrieve(mine.id)).filename == "plan.md"
        assert stack.stored_keys() == [mine.id]

        # A file the service key uploads for globex is globex's.
        theirs_file = await (
            for_acme.with_options(default_headers={"OpenAI-Project": "globex"})
        ).files.create(file=("chart.png", b"png"), purpose="user_data")
        assert [f.id async for f in globex.files.list()] == [theirs_file.id]
        assert [f.id async for f in acme.files.list()] == [mine.id]

        assert (await acme.files.delete(mine.id)).deleted is True
        assert stack.stored_keys() == [theirs_file.id]


async def test_a_tenant_key_cannot_act_for_another_tenant(
    make_stack: StackFactory,
) -> None:
    async with (
        make_stack(api_keys=TENANT_KEYS) as stack,
        sdk(stack, ACME, project="globex") as claims_globex,
        sdk(stack, ACME, project="acme") as names_itself,
        sdk(stack, PLAIN, project="acme") as plain_claims_acme,
    ):
        for client in (claims_globex, plain_claims_acme):
            status, body = await error_of(client.files.list)
            assert status == 401
            assert body["error"]["code"] == "mismatched_project"
        assert [f async for f in names_itself.files.list()] == []

        bad = {"Authorization": f"Bearer {API_KEY}", "OpenAI-Project": "a b"}
        reply = await stack.http.get("/v1/files", headers=bad)
        assert reply.status_code == 400
        validate("ErrorResponse", reply.json())
        assert "OpenAI-Project" in reply.json()["error"]["message"]


def test_tenant_keys_are_checked_at_start() -> None:
    def settings(api_keys: str) -> FilesSettings:
        return FilesSettings(
            _env_file=None,  # type: ignore[call-arg]
            api_key=API_KEY,  # type: ignore[arg-type]
            api_keys=api_keys,  # type: ignore[arg-type]
        )

    assert settings(TENANT_KEYS).tenant_keys() == {
        ACME: "acme",
        GLOBEX: "globex",
        PLAIN: "default",
    }
    with pytest.raises(ValidationError, match="DEMO_FILES_API_KEYS entry 2") as bad:
        settings(f"{ACME} acme,{GLOBEX} globex extra")
    assert GLOBEX not in str(bad.value)
    with pytest.raises(ValidationError, match="must not list the service key"):
        settings(f"{ACME} acme,{API_KEY} globex")


# The table as the service created it before files had owners.
_OLD_POSTGRES = """
    create table demo_files (
        id text primary key,
        seq bigint generated always as identity unique,
        filename text not null,
        purpose text not null,
        bytes bigint not null,
        content_type text not null,
        created_at bigint not null,
        expires_at bigint
    )
"""
_OLD_SQLITE = """
    create table demo_files (
        seq integer primary key autoincrement,
        id text not null unique,
        filename text not null,
        purpose text not null,
        bytes integer not null,
        content_type text not null,
        created_at integer not null,
        expires_at integer
    )
"""
_OLD_ROW = (
    "insert into demo_files (id, filename, purpose, bytes, content_type, "
    "created_at, expires_at) values ('file-OldOne', 'old.txt', 'user_data', 3, "
    "'text/plain', 1700000000, null)"
)


async def test_files_stored_before_tenants_belong_to_the_default_tenant(
    make_stack: StackFactory, database_url: str
) -> None:
    if database_url.startswith("postgresql://"):
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(_OLD_POSTGRES)
            conn.execute(_OLD_ROW)
    else:
        from pathlib import Path

        Path(database_url).parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(database_url) as conn:
            conn.execute(_OLD_SQLITE)
            conn.execute(_OLD_ROW)
        conn.close()
    async with make_stack(api_keys=TENANT_KEYS) as stack:
        stack.storage.mkdir(parents=True, exist_ok=True)
        (stack.storage / "file-OldOne").write_bytes(b"old")
        async with sdk(stack, ACME) as acme, sdk(stack, PLAIN) as plain:
            assert [f.id async for f in stack.client.files.list()] == ["file-OldOne"]
            assert (await stack.client.files.content("file-OldOne")).content == b"old"
            assert (await plain.files.retrieve("file-OldOne")).filename == "old.txt"
            assert (await error_of(acme.files.retrieve, "file-OldOne"))[0] == 404
            new = await acme.files.create(file=("new.txt", b"new"), purpose="user_data")
            assert [f.id async for f in acme.files.list()] == [new.id]
    # Opening the upgraded table again changes nothing.
    async with make_stack(api_keys=TENANT_KEYS) as stack:
        assert [f.id async for f in stack.client.files.list()] == ["file-OldOne"]
