"""Simon Willison's ``llm`` CLI (PyPI ``llm``), unmodified, against the demo API.

``llm`` reaches OpenAI-compatible servers through ``extra-openai-models.yaml``
in its user folder (``LLM_USER_PATH``): each entry names a graph as
``model_name`` with the demo API as ``api_base``; ``responses: true`` makes
it use the Responses API, and ``supports_tools: true`` lets it offer the
Python functions of ``--functions``, which it runs itself. No key is needed
(with ``api_base`` set, llm sends a dummy one).

``scripts/ensure-cli-clients.sh`` installs it, pinned
(``tests/clients/cli/llm.txt``), into a virtual environment of its own; it
runs in the network namespace of ``cli_harness``, and its first request of
each API is recorded in ``bodies/llm-chat.json`` and ``bodies/llm-responses.json``.
"""

from __future__ import annotations

from pathlib import Path

import tests.clients.matrix as m
from tests.clients.cli_harness import (
    BASE_URL,
    Ran,
    WireProxy,
    check_first_body,
    installed_version,
    python_cli,
    run_cli,
)
from tests.procs import ROOT

LLM_VERSION = "0.36"
MODELS = f"""\
- model_id: lgos-chat
  model_name: chat
  api_base: {BASE_URL}
- model_id: lgos-chat-responses
  model_name: chat
  api_base: {BASE_URL}
  responses: true
- model_id: lgos-functions
  model_name: functions
  api_base: {BASE_URL}
  supports_tools: true
"""
"""``extra-openai-models.yaml``: the graphs as llm models."""
TIME_FUNCTION = f'''\
def {m.TIME_FUNCTION}(timezone: str) -> str:
    """{m.TIME_DESCRIPTION}"""
    return "{m.TIME_RESULT}"
'''
"""The ``--functions`` code: llm offers it as a tool and runs it itself."""


def llm() -> str:
    """The pinned ``llm`` executable."""
    return str(python_cli("llm") / "bin" / "llm")


def run_llm(proxy: WireProxy, folder: Path, *args: str) -> Ran:
    """``llm -n ARGS`` with the demo's models in a fresh user folder."""
    user = folder / "llm-user"
    user.mkdir()
    (user / "extra-openai-models.yaml").write_text(MODELS)
    return run_cli(
        [llm(), "prompt", "--no-log", *args],
        proxy,
        cwd=folder,
        env={"LLM_USER_PATH": str(user)},
    )


def test_llm_is_the_pinned_version() -> None:
    assert (ROOT / "tests" / "clients" / "cli" / "llm.in").read_text().split() == [
        f"llm=={LLM_VERSION}"
    ]
    assert installed_version(python_cli("llm"), "llm") == LLM_VERSION


def test_chat_completions_answer(cli_proxy: WireProxy, tmp_path: Path) -> None:
    ran = run_llm(cli_proxy, tmp_path, "-m", "lgos-chat", m.CHAT_PROMPT)
    [post] = cli_proxy.posts("/chat/completions")
    check_first_body("llm-chat", post.body, {})
    assert post.body == {
        "model": "chat",
        "stream": True,
        "messages": [{"role": "user", "content": m.CHAT_PROMPT}],
        "stream_options": {"include_usage": True},
    }
    assert post.status == 200
    assert (ran.returncode, ran.stdout) == (0, m.chat_answer() + "\n")


def test_responses_answer(cli_proxy: WireProxy, tmp_path: Path) -> None:
    ran = run_llm(
        cli_proxy,
        tmp_path,
        "-m",
        "lgos-chat-responses",
        "-s",
        "Be brief.",
        m.CHAT_PROMPT,
    )
    [post] = cli_proxy.posts("/responses")
    check_first_body("llm-responses", post.body, {})
    assert post.body["store"] is False
    assert post.status == 200
    assert (ran.returncode, ran.stdout) == (
        0,
        m.chat_answer(m.CHAT_PROMPT, "Be brief.") + "\n",
    )


def test_function_round_trip(cli_proxy: WireProxy, tmp_path: Path) -> None:
    """llm offers its Python function, runs the graph's call, sends the result."""
    ran = run_llm(
        cli_proxy,
        tmp_path,
        "-m",
        "lgos-functions",
        "--functions",
        TIME_FUNCTION,
        m.TIME_PROMPT,
    )
    first, second = cli_proxy.posts("/chat/completions")
    [tool] = first.body["tools"]
    assert tool["function"]["name"] == m.TIME_FUNCTION
    assert tool["function"]["parameters"]["properties"] == {
        "timezone": {"type": "string"}
    }
    assert first.status == second.status == 200
    call, result = second.body["messages"][-2:]
    [tool_call] = call["tool_calls"]
    assert tool_call["function"]["name"] == m.TIME_FUNCTION
    assert (result["role"], result["content"]) == ("tool", m.TIME_RESULT)
    assert (ran.returncode, ran.stdout) == (0, m.TIME_ANSWER + "\n")
