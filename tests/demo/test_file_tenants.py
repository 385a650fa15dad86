"""Files belong to tenants, through the Files service and the demo API's graphs.

Real processes on loopback: the Files service with a service key and a key
per tenant, and `lgos serve` running the demo registry with an LGOS key per
tenant, reading files with the service key for its caller's tenant. Tenant
A's file is out of reach of tenant B everywhere: the Files routes answer 404
as for a missing file, and the `files` and `deep-research` graphs answer B
"file not found" on both the Responses and the Chat Completions APIs, while
A reads it. The demo as shipped (one key for each service) is one shared
tenant.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.demo_services import demo_api, files_service

pytestmark = [pytest.mark.integration]

SERVICE_KEY = "files-service-key-0123"
FILES_ACME = "files-acme-key-0123"
FILES_GLOBEX = "files-globex-key-0123"
LGOS_ACME = "sk-acme-key-0123"
LGOS_GLOBEX = "sk-globex-key-0123"
LGOS_STAFF = "sk-staff-key-0123"  # no tenant: the default scope

SECRET = "ZEBRA-7741"
MEMO = f"# Acme memo\n\nCodename {SECRET}: ship on Friday.\n".encode()
SALES = b"month,revenue\nJan,10\nFeb,20\nMar,30\n"
NOT_FOUND = "file not found"
DISPLAY_FILE_TOOL: Any = {
    "type": "function",
    "name": "display_file",
    "description": "Show a file to the user.",
    "strict": True,
    "parameters": {
        "type": "object",
        "properties": {
            "file_id": {"type": "string"},
            "filename": {"type": "string"},
            "mime_type": {"type": "string"},
        },
        "required": ["file_id", "filename", "mime_type"],
        "additionalProperties": False,
    },
}


@dataclass
class Stack:
    files: str
    api: str

    def files_client(self, key: str) -> openai.OpenAI:
        return openai.OpenAI(
            base_url=f"{self.files}/v1", api_key=key, max_retries=0, timeout=30
        )

    def api_client(self, key: str) -> openai.OpenAI:
        return openai.OpenAI(
            base_url=f"{self.api}/v1", api_key=key, max_retries=0, timeout=60
        )


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    cwd = tmp_path_factory.mktemp("file-tenants")
    files_env = {"DEMO_FILES_API_KEYS": f"{FILES_ACME} acme,{FILES_GLOBEX} globex"}
    api_env = {"LGOS_API_KEYS": f"{LGOS_ACME} acme,{LGOS_GLOBEX} globex,{LGOS_STAFF}"}
    with (
        files_service(cwd, api_key=SERVICE_KEY, env=files_env) as files,
        demo_api(cwd, files, files_key=SERVICE_KEY, env=api_env) as api,
    ):
        yield Stack(files, api)


def ask_responses(client: openai.OpenAI, model: str, text: str, file_id: str) -> str:
    response = client.responses.create(
        model=model,
        input=[
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": text},
                    {"type": "input_file", "file_id": file_id},
                ],
            }
        ],
    )
    assert response.status == "completed"
    return response.output_text


def ask_chat(client: openai.OpenAI, model: str, text: str, file_id: str) -> str:
    completion = client.chat.completions.create(
        model=model,
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": text},
                    {"type": "file", "file": {"file_id": file_id}},
                ],
            }
        ],
    )
    return completion.choices[0].message.content or ""


def test_another_tenants_file_is_not_found_on_the_files_routes(tenants: Stack) -> None:
    acme = tenants.files_client(FILES_ACME)
    globex = tenants.files_client(FILES_GLOBEX)
    memo = acme.files.create(file=("memo.md", MEMO), purpose="user_data")

    assert memo.id not in [f.id for f in globex.files.list()]
    for call in (globex.files.retrieve, globex.files.content, globex.files.delete):
        with pytest.raises(openai.NotFoundError) as theirs:
            call(memo.id)
        with pytest.raises(openai.NotFoundError) as nobodys:
            call("file-NoSuchFile000000000000")
        assert theirs.value.message.replace(memo.id, "file-NoSuchFile000000000000") == (
            nobodys.value.message
        )
    # A tenant key cannot borrow another tenant's name.
    with pytest.raises(openai.AuthenticationError) as claimed:
        tenants.files_client(FILES_GLOBEX).with_options(
            default_headers={"OpenAI-Project": "acme"}
        ).files.retrieve(memo.id)
    assert claimed.value.code == "mismatched_project"

    assert acme.files.content(memo.id).content == MEMO
    assert memo.id in [f.id for f in acme.files.list()]
    assert acme.files.delete(memo.id).deleted is True


@pytest.mark.parametrize("ask", [ask_responses, ask_chat], ids=["responses", "chat"])
def test_the_files_graph_reads_only_the_callers_tenants_files(
    tenants: Stack, ask: Any
) -> None:
    memo = tenants.files_client(FILES_ACME).files.create(
        file=("memo.md", MEMO), purpose="user_data"
    )
    globex = ask(tenants.api_client(LGOS_GLOBEX), "files", "Summarise", memo.id)
    assert NOT_FOUND in globex
    assert SECRET not in globex
    # Keys without a tenant share the default tenant, not acme's files.
    staff = ask(tenants.api_client(LGOS_STAFF), "files", "Summarise", memo.id)
    assert NOT_FOUND in staff
    assert SECRET not in staff

    acme = ask(tenants.api_client(LGOS_ACME), "files", "Summarise", memo.id)
    assert SECRET in acme
    assert NOT_FOUND not in acme


def test_deep_research_reads_only_the_callers_tenants_files(tenants: Stack) -> None:
    memo = tenants.files_client(FILES_ACME).files.create(
        file=("memo.md", MEMO), purpose="user_data"
    )
    globex = ask_responses(
        tenants.api_client(LGOS_GLOBEX), "deep-research", "Summarise my memo", memo.id
    )
    acme = ask_responses(
        tenants.api_client(LGOS_ACME), "deep-research", "Summarise my memo", memo.id
    )
    assert acme.endswith("(Attachments I read: memo.md.)")
    assert "Attachments I read" not in globex
    assert (
        f"(Attachments I could not read: [attachment {memo.id}: not available — "
        in (globex)
    )
    assert NOT_FOUND in globex


def test_charts_read_and_land_in_the_callers_tenant(tenants: Stack) -> None:
    sales = tenants.files_client(FILES_ACME).files.create(
        file=("sales.csv", SALES), purpose="user_data"
    )

    def plot(key: str) -> Any:
        return tenants.api_client(key).responses.create(
            model="files",
            input=[
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Plot the revenue"},
                        {"type": "input_file", "file_id": sales.id},
                    ],
                }
            ],
            tools=[DISPLAY_FILE_TOOL],
        )

    # globex cannot chart acme's data: the graph finds none.
    refused = plot(LGOS_GLOBEX)
    assert "I found no data" in refused.output_text
    # acme's chart is uploaded for acme, where acme's client downloads it.
    (call,) = [item for item in plot(LGOS_ACME).output if item.type == "function_call"]
    chart_id = json.loads(call.arguments)["file_id"]
    acme_files = tenants.files_client(FILES_ACME)
    assert acme_files.files.content(chart_id).content.startswith(b"\x89PNG")
    with pytest.raises(openai.NotFoundError):
        tenants.files_client(FILES_GLOBEX).files.content(chart_id)


def test_the_single_key_demo_is_one_shared_tenant(tmp_path: Path) -> None:
    """As shipped: one Files key (the UI uploads with it) and one LGOS key."""
    with (
        files_service(tmp_path) as files,
        demo_api(tmp_path, files, env={"LGOS_API_KEYS": "lgos-demo"}) as api,
    ):
        stack = Stack(files, api)
        memo = stack.files_client("lgos-demo").files.create(
            file=("memo.md", MEMO), purpose="user_data"
        )
        for ask in (ask_responses, ask_chat):
            answer = ask(stack.api_client("lgos-demo"), "files", "Summarise", memo.id)
            assert SECRET in answer
