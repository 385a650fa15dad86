"""The Codex CLI (``@openai/codex`` on npm), unmodified, against the demo API.

``codex exec --json`` runs one turn non-interactively and prints its events as
JSON lines; a temporary ``CODEX_HOME`` holds a ``config.toml`` whose custom
model provider is the demo API (``wire_api = "responses"``). Codex runs in a
network namespace that reaches only the recording proxy in front of the demo
API (``cli_harness``), so each test sees every request Codex sent and fails
if Codex tried to go anywhere else.

What Codex does here, each shown by a test below:

- Its first request carries what a Codex turn always sends:
  ``reasoning: {"summary": "auto"}``, ``include: ["reasoning.encrypted_content"]``,
  ``prompt_cache_key``, ``client_metadata``, ``store: false``, its developer
  instructions and its own tools (``exec_command``, ``write_stdin``, ...).
  The recorded copy is ``bodies/codex.json``.
- ``[agents] enabled = false`` removes its multi-agent tool, a
  ``{"type": "namespace"}`` tool of sub-agent functions
  (``[features] multi_agent = false`` also does, but Codex calls that flag
  deprecated). ``web_search = "disabled"`` removes its ``web_search`` tool,
  ``[features] plugins = false`` its plugin sync (requests to github.com and
  chatgpt.com), ``[analytics]``/``[feedback] enabled = false`` and
  ``check_for_update_on_startup = false`` the rest of its traffic.
- A ``function_call`` of the `functions` graph runs as Codex's own tool: Codex
  executes ``exec_command`` in its sandbox and sends the output back.
- An interrupt (``lgos_interrupt``) is a function Codex does not know: it
  answers the call itself with ``unsupported call: lgos_interrupt`` and sends
  the history again without ``previous_response_id``, which LGOS refuses
  (400, ``param: "previous_response_id"``), so the turn fails: Codex cannot
  answer an interrupt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tests.clients.matrix as m
from tests.clients.cli_harness import (
    BASE_URL,
    HERE,
    Exchange,
    Ran,
    WireProxy,
    check_first_body,
    demo_proxy,
    run_cli,
)
from tests.tiers import require

CODEX = HERE / "codex" / "node_modules" / ".bin" / "codex"
CODEX_VERSION = "0.171.0"
COMMAND_PROMPT = "echo command ran 42"
"""A prompt the `functions` graph answers with a call to Codex's ``exec_command``.

The offline model calls the functions whose name words the question uses
(``command``) and fills every string argument with the question, numbers
with its numbers: ``cmd`` and ``workdir`` are the prompt, ``max_output_tokens``
is 42. So the prompt is a shell command, and the test makes a folder of that
name for ``workdir``.
"""

PROVIDER = f"""\
[model_providers.lgos]
name = "LGOS"
base_url = "{BASE_URL}"
env_key = "LGOS_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""
CONFIG = f"""\
model = "chat"
model_provider = "lgos"
web_search = "disabled"
check_for_update_on_startup = false

{PROVIDER}
[agents]
enabled = false

[features]
plugins = false

[analytics]
enabled = false

[feedback]
enabled = false
"""
"""The test's ``config.toml``: docs/clients.md's smallest config, plus no
retries (every request is one exchange) and every network habit off."""
WITH_AGENTS = CONFIG.replace("[agents]\nenabled = false\n\n", "")
"""The same, with Codex's multi-agent tool (a ``namespace`` tool) left on."""
WITH_WEB_SEARCH = CONFIG.replace('web_search = "disabled"\n', "")
"""The same, with Codex's hosted ``web_search`` tool left on."""


def codex() -> str:
    """The Codex CLI installed from ``tests/clients/codex/package-lock.json``."""
    require("clients")
    if not CODEX.exists():
        pytest.fail(
            "the Codex tests need tests/clients/codex/node_modules: run "
            "`bash scripts/ensure-node-clients.sh` (just test does)",
            pytrace=False,
        )
    return str(CODEX)


@dataclass(frozen=True)
class Turn:
    """One ``codex exec`` run: what it printed and every request it sent."""

    ran: Ran
    proxy: WireProxy
    home: Path
    work: Path

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.ran.jsonl()

    def items(self, kind: str) -> list[dict[str, Any]]:
        """The completed items of ``kind`` (``agent_message``, ``command_execution``)."""
        return [
            e["item"]
            for e in self.events
            if e["type"] == "item.completed" and e["item"]["type"] == kind
        ]

    @property
    def posts(self) -> list[Exchange]:
        return self.proxy.posts("/responses")

    def paths(self) -> dict[str, str]:
        """The machine paths in its requests, and their placeholders."""
        return {str(self.work): "<cwd>", str(self.home): "<codex-home>"}


def codex_turn(
    proxy: WireProxy,
    folder: Path,
    model: str,
    prompt: str,
    *,
    config: str = CONFIG,
    folders: tuple[str, ...] = (),
) -> Turn:
    """Run ``codex exec --json`` with ``config`` on ``model`` in ``folder``/work."""
    home, work = folder / "codex-home", folder / "work"
    home.mkdir(parents=True)
    work.mkdir()
    for name in folders:
        (work / name).mkdir()
    (home / "config.toml").write_text(config)
    ran = run_cli(
        [
            codex(),
            "exec",
            "--json",
            "--ephemeral",
            "--strict-config",
            "--skip-git-repo-check",
            "--model",
            model,
            prompt,
        ],
        proxy,
        cwd=work,
        env={"CODEX_HOME": str(home), "LGOS_API_KEY": m.API_KEY},
    )
    return Turn(ran, proxy, home, work)


def developer_lines(body: dict[str, Any]) -> list[str]:
    """How the offline model quotes each developer message of ``body``."""
    return [
        m.quoted_line(
            "".join(part["text"] for part in item["content"]), first_line=True
        )
        for item in body["input"]
        if item.get("type") == "message" and item["role"] in ("developer", "system")
    ]


def function_calls(exchange: Exchange) -> list[dict[str, Any]]:
    """The function_call items LGOS streamed in ``exchange``."""
    return [
        event["item"]
        for event in exchange.events()
        if event["type"] == "response.output_item.done"
        and event["item"]["type"] == "function_call"
    ]


@pytest.fixture(scope="module")
def chat_turn(
    demo_api_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Turn]:
    """Codex asks `chat` one question (shared: its request and its answer)."""
    with demo_proxy(demo_api_url) as proxy:
        yield codex_turn(proxy, tmp_path_factory.mktemp("codex"), "chat", m.CHAT_PROMPT)


def test_codex_is_the_pinned_version() -> None:
    package = json.loads((HERE / "codex" / "package.json").read_text())
    assert package["dependencies"] == {"@openai/codex": CODEX_VERSION}
    installed = HERE / "codex" / "node_modules" / "@openai" / "codex" / "package.json"
    codex()
    assert json.loads(installed.read_text())["version"] == CODEX_VERSION


def test_first_request_body_is_the_recorded_one(chat_turn: Turn) -> None:
    """What Codex sends first, as ``bodies/codex.json`` records it (LGOS's
    answer does not matter here)."""
    first = chat_turn.posts[0]
    assert (first.method, first.path) == ("POST", "/v1/responses")
    body = first.body
    assert first.headers["authorization"] == f"Bearer {m.API_KEY}"
    assert first.headers["originator"] == "codex_exec"
    # What every Codex turn sends beside the model and input.
    assert body["model"] == "chat"
    assert (body["stream"], body["store"]) == (True, False)
    assert body["reasoning"] == {"summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert isinstance(body["prompt_cache_key"], str)
    assert isinstance(body["client_metadata"], dict)
    # The config turned off the multi-agent (namespace) and web_search tools.
    assert {tool["type"] for tool in body["tools"]} == {"function"}
    assert [tool["name"] for tool in body["tools"]][:2] == [
        "exec_command",
        "write_stdin",
    ]
    assert body["input"][-1] == {
        "type": "message",
        "id": body["input"][-1]["id"],
        "role": "user",
        "content": [{"type": "input_text", "text": m.CHAT_PROMPT}],
    }
    check_first_body("codex", body, chat_turn.paths())
    assert not chat_turn.proxy.left, chat_turn.proxy.left


def test_plain_answer_from_chat(chat_turn: Turn) -> None:
    [post] = chat_turn.posts
    assert post.status == 200, post.answer[:2000]
    assert chat_turn.ran.returncode == 0
    [message] = chat_turn.items("agent_message")
    # The graph quotes the first line of each of Codex's developer messages.
    assert message["text"] == m.chat_answer(m.CHAT_PROMPT, *developer_lines(post.body))
    assert chat_turn.events[-1]["type"] == "turn.completed"


def test_functions_turn_runs_codex_own_command(
    cli_proxy: WireProxy, tmp_path: Path
) -> None:
    """The `functions` graph calls ``exec_command``; Codex runs it in its
    sandbox and LGOS answers from the output."""
    turn = codex_turn(
        cli_proxy, tmp_path, "functions", COMMAND_PROMPT, folders=(COMMAND_PROMPT,)
    )
    first = turn.posts[0]
    assert first.status == 200, first.answer[:2000]
    [call] = function_calls(first)
    assert call["name"] == "exec_command"
    arguments = json.loads(call["arguments"])
    assert arguments["cmd"] == arguments["workdir"] == COMMAND_PROMPT
    assert arguments["max_output_tokens"] == 42
    # Codex ran it.
    [command] = turn.items("command_execution")
    assert (command["exit_code"], command["status"]) == (0, "completed")
    assert command["aggregated_output"] == "command ran 42\n"
    # And sent the output back with the call, as history (store: false).
    _, second = turn.posts
    assert "previous_response_id" not in second.body
    replayed, output = second.body["input"][-2:]
    assert (replayed["type"], replayed["call_id"]) == ("function_call", call["call_id"])
    assert (output["type"], output["call_id"]) == (
        "function_call_output",
        call["call_id"],
    )
    assert "Process exited with code 0" in output["output"]
    assert output["output"].endswith("Output:\ncommand ran 42\n")
    assert second.status == 200, second.answer[:2000]
    [message] = turn.items("agent_message")
    assert message["text"] == m.function_answer(
        COMMAND_PROMPT, "exec_command", arguments, output["output"]
    )
    assert turn.ran.returncode == 0


def test_interrupt_is_an_unknown_function_to_codex(
    cli_proxy: WireProxy, tmp_path: Path
) -> None:
    """Codex answers ``lgos_interrupt`` itself ("unsupported call") and resends
    the history without ``previous_response_id``; LGOS refuses that, so the
    turn fails and the question never reaches the person."""
    turn = codex_turn(cli_proxy, tmp_path, "approval", m.REFUND_PROMPT)
    first = turn.posts[0]
    assert first.status == 200, first.answer[:2000]
    [call] = function_calls(first)
    assert call["name"] == m.INTERRUPT_FUNCTION
    assert m.INTERRUPT_CALL_ID.fullmatch(call["call_id"])
    assert json.loads(call["arguments"]) == m.REFUND_INTERRUPT
    # Codex's own answer to a function it does not have.
    _, second = turn.posts
    assert "previous_response_id" not in second.body
    output = second.body["input"][-1]
    assert (output["type"], output["call_id"], output["output"]) == (
        "function_call_output",
        call["call_id"],
        "unsupported call: lgos_interrupt",
    )
    assert second.status == 400
    error = second.json()["error"]
    assert error["param"] == "previous_response_id"
    index = len(second.body["input"]) - 1
    assert error["message"].startswith(
        f"input[{index}] answers an interrupt (lgos_interrupt) without "
        "previous_response_id"
    )
    # Codex shows the refusal as the turn's failure; nothing else ran.
    assert turn.ran.returncode == 1
    assert turn.events[-1]["type"] == "turn.failed"
    assert "previous_response_id" in turn.events[-1]["error"]["message"]
    assert turn.items("agent_message") == turn.items("command_execution") == []
    assert len(turn.posts) == 2


def test_multi_agent_namespace_tool(cli_proxy: WireProxy, tmp_path: Path) -> None:
    """Without ``[agents] enabled = false`` Codex also sends its sub-agent
    functions as a ``namespace`` tool, which LGOS does not serve: the 400
    names the tool and the Codex setting that turns it off, and the turn
    fails (docs/clients.md)."""
    turn = codex_turn(cli_proxy, tmp_path, "chat", m.CHAT_PROMPT, config=WITH_AGENTS)
    [post] = turn.posts
    tools = post.body["tools"]
    [index] = [i for i, tool in enumerate(tools) if tool["type"] == "namespace"]
    namespace = tools[index]
    assert namespace["name"] == "multi_agent_v1"
    assert {tool["type"] for tool in namespace["tools"]} == {"function"}
    assert "spawn_agent" in {tool["name"] for tool in namespace["tools"]}
    assert post.status == 400, post.answer[:2000]
    error = post.json()["error"]
    assert (error["code"], error["param"]) == ("unsupported_value", f"tools[{index}]")
    assert "[agents] enabled = false" in error["message"]
    assert turn.ran.returncode == 1
    assert turn.events[-1]["type"] == "turn.failed"


def test_web_search_tool_is_refused(cli_proxy: WireProxy, tmp_path: Path) -> None:
    """Without ``web_search = "disabled"`` Codex offers its hosted web search
    with ``external_web_access: false``, a cached-only search LGOS does not
    offer: 400 ``unsupported_parameter`` naming that field and the Codex
    setting that removes the tool, and the turn fails (docs/clients.md)."""
    turn = codex_turn(
        cli_proxy, tmp_path, "chat", m.CHAT_PROMPT, config=WITH_WEB_SEARCH
    )
    [post] = turn.posts
    tools = post.body["tools"]
    [index] = [i for i, tool in enumerate(tools) if tool["type"] == "web_search"]
    assert tools[index] == {"type": "web_search", "external_web_access": False}
    assert post.status == 400, post.answer[:2000]
    error = post.json()["error"]
    param = f"tools[{index}].external_web_access"
    assert (error["code"], error["param"]) == ("unsupported_parameter", param)
    assert 'web_search = "disabled"' in error["message"]
    assert turn.ran.returncode == 1
    assert turn.events[-1]["type"] == "turn.failed"
