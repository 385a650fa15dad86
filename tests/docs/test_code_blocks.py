"""The Python and JavaScript code in the docs and the README runs, as written.

Each page's ``python`` blocks run in order in a fresh subprocess and working
directory (``tests.docs.runner``); its ``js`` blocks run as one ES module with
Node, resolving the client packages of ``tests/clients/js``. Pages that
address the demo API, Files service or MCP server get real ones, offline
(``tests/demo_services.py``). Conventions are described in
``tests/docs/markdown_blocks.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.node_cells import JS as JS_CLIENTS
from tests.clients.node_cells import node
from tests.demo_services import DEMO_API, DEMO_FILES, DEMO_MCP, clean_env
from tests.docs.markdown_blocks import (
    JS,
    PYTHON,
    ROOT,
    Block,
    blocks,
    js_blocks,
    pages,
    python_blocks,
)
from tests.docs.runner import js_module

PAGE_TIMEOUT = 150

RUNNABLE = [p for p in pages() if any(b.skip is None for b in python_blocks(p))]
JS_RUNNABLE = [p for p in pages() if any(b.skip is None for b in js_blocks(p))]
# Examples that build a client need a key to construct it; nothing may reach a
# real provider.
OFFLINE = {
    "OPENAI_API_KEY": "sk-docs-test-unused",
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
}


def _runs(block: Block) -> bool:
    return block.skip is None and block.module is None


@pytest.mark.timeout(PAGE_TIMEOUT + 30)
@pytest.mark.parametrize(
    "page", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE]
)
@pytest.mark.integration
def test_page_code_runs(
    page: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    code = "".join(b.code for b in python_blocks(page) if _runs(b))
    env = clean_env() | OFFLINE | {"PYTHONPATH": str(ROOT)}
    if any(origin in code for origin in (DEMO_API, DEMO_FILES, DEMO_MCP)):
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


def _run_js(
    page: Path, cwd: Path, url_map: dict[str, str], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run the page's JS blocks as ``<page>.mjs`` in ``cwd``, beside the packages."""
    (cwd / "node_modules").symlink_to(JS_CLIENTS / "node_modules")
    script = cwd / f"{page.stem}.mjs"
    script.write_text(js_module(page, url_map), encoding="utf-8")
    return subprocess.run(
        [node(), script.name],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT,
    )


@pytest.mark.timeout(PAGE_TIMEOUT + 30)
@pytest.mark.parametrize(
    "page", JS_RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in JS_RUNNABLE]
)
@pytest.mark.clients
def test_page_js_runs(
    page: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    code = "".join(b.code for b in js_blocks(page) if b.skip is None)
    url_map: dict[str, str] = {}
    if any(origin in code for origin in (DEMO_API, DEMO_FILES, DEMO_MCP)):
        url_map = request.getfixturevalue("demo_url_map")
    result = _run_js(page, tmp_path, url_map, clean_env() | OFFLINE)
    if result.returncode != 0:
        pytest.fail(
            f"the JS blocks of {page} failed (line numbers are the page's)\n"
            + result.stdout[-4000:]
            + result.stderr[-8000:],
            pytrace=False,
        )


COMPLETE_FILES = [
    (page, block)
    for page in pages()
    for block in python_blocks(page)
    if block.module is not None and block.skip is None
]


@pytest.mark.timeout(PAGE_TIMEOUT + 30)
@pytest.mark.parametrize(
    ("page", "block"),
    COMPLETE_FILES,
    ids=[block.where for _, block in COMPLETE_FILES],
)
@pytest.mark.integration
def test_complete_file_runs_as_a_file(page: Path, block: Block, tmp_path: Path) -> None:
    """A block that is a whole file (first line ``# name.py``) works the way
    an author pastes it: saved beside the page's other files in an empty
    folder, then run with ``python name.py`` (``pytest name.py`` for a test
    file), with no page namespace and no top-level ``await`` to lean on."""
    for other in python_blocks(page):
        if other.module is not None and other.skip is None:
            (tmp_path / other.module).write_text(other.code, encoding="utf-8")
    assert block.module is not None
    command = [sys.executable, block.module]
    if block.module.startswith("test_"):
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            block.module,
        ]
    result = subprocess.run(
        command,
        cwd=tmp_path,
        env=clean_env() | OFFLINE,
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT,
    )
    if result.returncode != 0:
        pytest.fail(
            f"{block.where} ({' '.join(command[1:])}) failed as a file:\n"
            + result.stdout[-4000:]
            + result.stderr[-8000:],
            pytrace=False,
        )


def test_every_page_parses_and_skips_are_justified() -> None:
    skipped = []
    for page in pages():
        for block in blocks(page):  # raises on a malformed marker
            if block.skip is not None:
                assert block.lang in PYTHON | JS, (
                    f"{block.where}: only Python and JS blocks run, no marker needed"
                )
                skipped.append(block.where)
    # Skips stay rare: each one is a block that cannot run by itself.
    assert len(skipped) <= 6, skipped


def _awaits_at_top_level(code: str) -> bool:
    try:
        compile(code, "<block>", "exec")
    except SyntaxError:
        return True  # valid with top-level await (the next test checks that)
    return False


def test_pages_with_top_level_await_say_where_it_runs() -> None:
    """A reader pasting a block with a top-level ``await`` into a script gets
    a SyntaxError; each such page says where the blocks run as written and
    points to the index's recipe for a script."""
    silent = []
    for page in pages():
        if any(
            _awaits_at_top_level(b.code)
            for b in python_blocks(page)
            if b.module is None and b.skip is None
        ):
            text = page.read_text(encoding="utf-8")
            if "python -m asyncio" not in text and "python -m\nasyncio" not in text:
                silent.append(str(page.relative_to(ROOT)))
    assert silent == [], f"say where top-level await runs on: {silent}"


def test_python_blocks_are_valid_python() -> None:
    import ast

    for page in pages():
        for block in python_blocks(page):
            try:
                ast.parse(block.code)
            except SyntaxError as exc:  # pragma: no cover - the failure message
                pytest.fail(f"{block.where}: {exc}")


@pytest.mark.integration
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


@pytest.mark.clients
def test_js_runner_fails_on_a_failing_block_at_its_markdown_line(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n```js\nconst value = 1;\n```\n\n"
        "<!-- docs-test: skip (shows a failure) -->\n"
        "```javascript\nthrow new Error('skipped');\n```\n\n"
        "```mjs\nawait Promise.resolve();\nconst url = 'http://127.0.0.1:8000/v1';\n"
        "if (value !== 2) throw new Error(`value is ${value} at ${url}`);\n```\n",
        encoding="utf-8",
    )
    result = _run_js(page, tmp_path, {DEMO_API: "http://127.0.0.1:9"}, clean_env())
    assert result.returncode == 1
    assert "Error: value is 1 at http://127.0.0.1:9/v1" in result.stderr
    assert "skipped" not in result.stderr
    assert "page.mjs:15" in result.stderr  # the Markdown line of the throw


@pytest.mark.clients
def test_js_runner_resolves_the_client_packages(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```js\nimport OpenAI from 'openai';\nimport { generateText } from 'ai';\n"
        "import { createOpenAI } from '@ai-sdk/openai';\n\n"
        "const client = new OpenAI({ baseURL: 'http://127.0.0.1:8000/v1', apiKey: 'x' });\n"
        "console.log(client.baseURL, typeof generateText, typeof createOpenAI);\n```\n",
        encoding="utf-8",
    )
    result = _run_js(page, tmp_path, {DEMO_API: "http://127.0.0.1:9"}, clean_env())
    assert result.returncode == 0, result.stderr
    assert result.stdout == "http://127.0.0.1:9/v1 function function\n"


@pytest.mark.integration
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
