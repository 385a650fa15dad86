"""The Python code in the docs and the README runs, as written.

Each page's ``python`` blocks run in order in a fresh subprocess and working
directory (``tests.docs.runner``); pages that address the demo API or Files
service get real ones, offline (``conftest.py``). Conventions are described
in ``tests/docs/markdown_blocks.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.demo_services import DEMO_API, DEMO_FILES, clean_env
from tests.docs.markdown_blocks import ROOT, Block, blocks, pages, python_blocks

PAGE_TIMEOUT = 150

RUNNABLE = [p for p in pages() if any(b.skip is None for b in python_blocks(p))]


def _runs(block: Block) -> bool:
    return block.skip is None and block.module is None


@pytest.mark.timeout(PAGE_TIMEOUT + 30)
@pytest.mark.parametrize(
    "page", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE]
)
def test_page_code_runs(
    page: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    code = "".join(b.code for b in python_blocks(page) if _runs(b))
    env = clean_env() | {
        "PYTHONPATH": str(ROOT),
        # Examples that build a ChatOpenAI need a key to construct it; nothing
        # may reach a real provider.
        "OPENAI_API_KEY": "sk-docs-test-unused",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    if DEMO_API in code or DEMO_FILES in code:
        env["LGOS_DOCS_URL_MAP"] = json.dumps(request.getfixturevalue("demo_url_map"))
    if "LGOS_POSTGRES_URI" in code:  # a fresh database (just test starts PostgreSQL)
        env["LGOS_POSTGRES_URI"] = request.getfixturevalue("postgres_uri")
    result = subprocess.run(
        [sys.executable, "-m", "tests.docs.runner", str(page)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT,
    )
    if result.returncode != 0:
        pytest.fail(result.stdout[-4000:] + result.stderr[-8000:], pytrace=False)


def test_every_page_parses_and_skips_are_justified() -> None:
    skipped = []
    for page in pages():
        for block in blocks(page):  # raises on a malformed marker
            if block.skip is not None:
                assert block.lang in {"python", "py"}, (
                    f"{block.where}: only Python blocks run, no marker needed"
                )
                skipped.append(block.where)
    # Skips stay rare: each one is a block that cannot run by itself.
    assert len(skipped) <= 6, skipped


def test_python_blocks_are_valid_python() -> None:
    import ast

    for page in pages():
        for block in python_blocks(page):
            try:
                ast.parse(block.code)
            except SyntaxError as exc:  # pragma: no cover - the failure message
                pytest.fail(f"{block.where}: {exc}")


def test_runner_reports_the_markdown_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n```python\nvalue = 1\n```\n\n"
        "<!-- docs-test: skip (shows a failure) -->\n```python\nraise SystemExit(3)\n```\n\n"
        "```python\n# helper.py\nANSWER = 42\n```\n\n"
        "```python\nfrom helper import ANSWER\n\nassert ANSWER == value\n```\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "tests.docs.runner", str(page)],
        cwd=tmp_path,
        env=clean_env() | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f'File "{page}", line 20' in result.stderr
    assert "assert ANSWER == value" in result.stderr
    assert (tmp_path / "helper.py").read_text() == "# helper.py\nANSWER = 42\n"


def test_top_level_await_shares_one_loop(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nimport asyncio\n\nloop = asyncio.get_running_loop()\n"
        "await asyncio.sleep(0)\n```\n\n"
        "```python\nassert asyncio.get_running_loop() is loop\n"
        "await asyncio.sleep(0)\n```\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "tests.docs.runner", str(page)],
        cwd=tmp_path,
        env=clean_env() | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_markers_must_precede_a_fence(tmp_path: Path) -> None:
    from tests.docs.markdown_blocks import MarkerError

    page = tmp_path / "page.md"
    page.write_text("<!-- docs-test: skip (why) -->\nText.\n", encoding="utf-8")
    with pytest.raises(MarkerError):
        blocks(page)
    page.write_text("<!-- docs-test: skip -->\n```python\n```\n", encoding="utf-8")
    with pytest.raises(MarkerError):
        blocks(page)


def test_environment_is_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    monkeypatch.setenv("DEMO_API_OPENAI_API_KEY", "sk-real")
    monkeypatch.setenv("LGOS_POSTGRES_URI", "postgresql://elsewhere/db")
    env = clean_env()
    assert not {"OPENAI_API_KEY", "DEMO_API_OPENAI_API_KEY", "LGOS_POSTGRES_URI"} & set(
        env
    )
    assert env["PATH"] == os.environ["PATH"]
