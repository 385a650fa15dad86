"""aider (PyPI ``aider-chat``), unmodified, one-shot against the demo API.

``aider --message`` sends one Chat Completions request (streamed) through
LiteLLM with ``--model openai/<graph>`` and ``--openai-api-base``, prints the
answer and exits. What it needs from its configuration:

- ``use_temperature: false`` in a model settings file
  (``--model-settings-file``): aider sends ``temperature: 0`` by default,
  which LGOS refuses for a graph that does not declare it honours it
  (400 ``unsupported_parameter``, ``param: "temperature"``).
- A model metadata file (``--model-metadata-file``) for ``openai/chat`` and
  ``LITELLM_LOCAL_MODEL_COST_MAP=True``: without them aider and LiteLLM
  download LiteLLM's model price list from GitHub at start.
- ``--no-git --analytics-disable --no-check-update --no-show-release-notes``:
  no repository, no analytics, no version check, no question at start.

``--chat-mode ask`` makes it answer questions instead of proposing edits.
aider exits 0 even when the request fails, so the test reads its output.
``scripts/ensure-cli-clients.sh`` installs it, pinned
(``tests/clients/cli/aider.txt``), into a virtual environment of its own; its
first request is recorded in ``bodies/aider.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import tests.clients.matrix as m
from tests.clients.cli_harness import (
    BASE_URL,
    WireProxy,
    check_first_body,
    installed_version,
    python_cli,
    run_cli,
)
from tests.procs import ROOT

AIDER_VERSION = "0.86.2"
SETTINGS = """\
- name: openai/chat
  use_temperature: false
"""
METADATA = {
    "openai/chat": {
        "max_input_tokens": 128000,
        "max_output_tokens": 16384,
        "input_cost_per_token": 0,
        "output_cost_per_token": 0,
        "litellm_provider": "openai",
        "mode": "chat",
    }
}


def aider() -> str:
    """The pinned ``aider`` executable."""
    return str(python_cli("aider") / "bin" / "aider")


def test_aider_is_the_pinned_version() -> None:
    assert (ROOT / "tests" / "clients" / "cli" / "aider.in").read_text().split() == [
        f"aider-chat=={AIDER_VERSION}"
    ]
    assert installed_version(python_cli("aider"), "aider-chat") == AIDER_VERSION


def test_one_shot_answer(cli_proxy: WireProxy, tmp_path: Path) -> None:
    (tmp_path / "settings.yml").write_text(SETTINGS)
    (tmp_path / "metadata.json").write_text(json.dumps(METADATA))
    work = tmp_path / "work"
    work.mkdir()
    ran = run_cli(
        [
            aider(),
            "--model",
            "openai/chat",
            "--openai-api-base",
            BASE_URL,
            "--openai-api-key",
            m.API_KEY,
            "--model-settings-file",
            str(tmp_path / "settings.yml"),
            "--model-metadata-file",
            str(tmp_path / "metadata.json"),
            "--chat-mode",
            "ask",
            "--no-git",
            "--analytics-disable",
            "--no-check-update",
            "--no-show-release-notes",
            "--message",
            m.CHAT_PROMPT,
        ],
        cli_proxy,
        cwd=work,
        # aider keeps its analytics choice and caches under ~/.aider.
        env={"HOME": str(tmp_path), "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=90,
    )
    [post] = cli_proxy.posts("/chat/completions")
    body = post.body
    check_first_body("aider", body, {})
    assert (body["model"], body["stream"]) == ("chat", True)
    assert "temperature" not in body
    system, *_, question = body["messages"]
    assert system["role"] == "system"
    assert question["role"] == "user"
    assert question["content"].startswith(m.CHAT_PROMPT)
    assert post.status == 200, post.answer[:2000]
    # The graph quotes aider's last user message and its system prompt's first line.
    answer = m.chat_answer(
        m.quoted_line(question["content"]),
        m.quoted_line(system["content"], first_line=True),
    )
    assert answer in ran.stdout
    assert "Error" not in ran.stdout
