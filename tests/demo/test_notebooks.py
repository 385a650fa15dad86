"""The marimo notebooks in demo/api/notebooks and the `just demo/marimo` recipe.

Each notebook runs as a plain script (`python notebook.py --flags`), offline,
with a configured upstream key in the environment that it must ignore, and
writes a JSON summary the tests check. The recipe is checked twice: its exact
command lines with a stand-in `uv`, and for real, serving the notebook gallery
(and, in a browser, one notebook's results).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from lgos_demo_api.settings import DemoApiSettings
from tests.browsers import launch
from tests.demo.notebooks import JUST, NOTEBOOKS, ROOT, load_notebook, offline_env

pytestmark = [pytest.mark.integration]

PYTHON = sys.executable
SCRIPT_TIMEOUT = 240

FOREGROUND_MODES = [
    "run_langgraph",
    "run_langgraph_stream",
    "responses.create",
    "responses.create(stream=True)",
]
BACKGROUND_MODE = "responses.create(background=True)"


def run_notebook(name: str, tmp_path: Path, *args: str) -> dict[str, Any]:
    summary = tmp_path / f"{name}.json"
    result = subprocess.run(
        [PYTHON, str(NOTEBOOKS / f"{name}.py"), *args, "--summary", str(summary)],
        cwd=tmp_path,
        env=offline_env(),
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return json.loads(summary.read_text())


@pytest.mark.timeout(SCRIPT_TIMEOUT + 30)
def test_graph_runner_times_every_mode_on_deep_research(tmp_path: Path) -> None:
    figure = tmp_path / "timings.png"
    summary = run_notebook(
        "graph_runner", tmp_path, "--runs", "2", "--figure", str(figure)
    )

    assert summary["model"] == "deep-research"
    rows = {row["mode"]: row for row in summary["modes"]}
    assert list(rows) == [*FOREGROUND_MODES, BACKGROUND_MODE]
    for mode, row in rows.items():
        assert row["runs"] == 2, mode
        assert 0 < row["fastest (ms)"] <= row["total (ms)"], mode
        # The offline model is deterministic: every path gives the same answer.
        assert row["same answer"] is True, mode
    for mode in ("run_langgraph_stream", "responses.create(stream=True)"):
        first = rows[mode]["first text (ms)"]
        assert 0 < first <= rows[mode]["total (ms)"], mode
    # The JSON keeps missing times as null; only the table shows them as n/a.
    for mode in ("run_langgraph", "responses.create", BACKGROUND_MODE):
        assert rows[mode]["first text (ms)"] is None, mode
    for mode in FOREGROUND_MODES:
        assert rows[mode]["queued (ms)"] is None, mode
    queued = rows[BACKGROUND_MODE]["queued (ms)"]
    assert 0 < queued < rows[BACKGROUND_MODE]["total (ms)"]
    assert figure.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.timeout(SCRIPT_TIMEOUT + 30)
def test_wire_events_shows_commentary_and_citations_on_both_routes(
    tmp_path: Path,
) -> None:
    summary = run_notebook("wire_events", tmp_path)

    assert summary["model"] == "citations"
    responses, chat = summary["responses"], summary["chat"]
    assert responses["error"] is None and chat["error"] is None
    assert responses["terminal"] == "response.completed"
    assert chat["finish_reason"] == "stop"
    # Commentary is a Responses-only message; Chat carries just the answer.
    assert responses["commentary"]
    assert responses["event_types"]["response.output_text.delta"] > len(
        responses["commentary"]
    )
    assert chat["answer"] == responses["answer"]
    assert not any(note in chat["answer"] for note in responses["commentary"])
    # Same citations, same offsets, on both wire formats.
    assert len(responses["citations"]) >= 2
    assert chat["citations"] == responses["citations"]
    assert responses["event_types"]["response.output_text.annotation.added"] == len(
        responses["citations"]
    )
    for note in responses["citations"]:
        marker = responses["answer"][note["start_index"] : note["end_index"] + 1]
        assert marker.startswith("[") and marker.endswith("]"), note


# --- the notebooks' top-level functions, imported (marimo files are modules) ---


@pytest.fixture(scope="module")
def graph_runner() -> ModuleType:
    return load_notebook("graph_runner")


@pytest.fixture(scope="module")
def wire_events() -> ModuleType:
    return load_notebook("wire_events")


@pytest.mark.anyio
async def test_graph_runner_leaves_out_background_for_foreground_graphs(
    graph_runner: ModuleType, offline_settings: DemoApiSettings
) -> None:
    timings = await graph_runner.compare(
        "chat", graph_runner.Preset("What is LangGraph?"), offline_settings, runs=2
    )

    assert [t.mode for t in timings] == FOREGROUND_MODES * 2
    assert [t.run for t in timings] == [1] * 4 + [2] * 4
    rows = graph_runner.summarize(timings)
    assert [row["mode"] for row in rows] == FOREGROUND_MODES
    assert all(row["same answer"] for row in rows)
    assert "offline demo model" in timings[0].answer


def table_rows(table: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows a `mo.ui.table` sends the browser: as shown, and unformatted."""
    found: dict[str, str | None] = {}

    class Attributes(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]):
            if tag == "marimo-table":
                found.update(attrs)

    Attributes().feed(table.text)
    shown, raw = found["data-data"], found["data-raw-data"]
    assert shown is not None and raw is not None, found
    return json.loads(json.loads(shown)), json.loads(json.loads(raw))


def test_graph_runner_table_shows_missing_times_as_not_applicable(
    graph_runner: ModuleType,
) -> None:
    def timing(mode: str, run: int, total: float, **marks: float) -> Any:
        return graph_runner.Timing(
            mode=mode,
            run=run,
            total_s=total,
            first_text_s=marks.get("first"),
            queued_s=marks.get("queued"),
            answer="same",
        )

    timings = [
        *(timing("run_langgraph", run, 0.0312) for run in (1, 2)),
        *(timing("run_langgraph_stream", run, 0.04, first=0.066) for run in (1, 2)),
        *(timing(BACKGROUND_MODE, run, 0.08, queued=0.0149) for run in (1, 2)),
    ]
    summary = graph_runner.summarize(timings)
    shown, raw = table_rows(graph_runner.summary_table(summary))

    # Sorting and the JSON summary use the numbers, missing ones as None...
    assert raw == summary
    assert [row["first text (ms)"] for row in raw] == [None, 66.0, None]
    assert [row["queued (ms)"] for row in raw] == [None, None, 14.9]
    assert all(isinstance(row["total (ms)"], float) for row in raw)
    # ...while the reader sees why a time is missing, never a bare None.
    assert [row["first text (ms)"] for row in shown] == [
        "n/a (not streamed)",
        "66.0",
        "n/a (not streamed)",
    ]
    assert [row["queued (ms)"] for row in shown] == [
        "n/a (foreground)",
        "n/a (foreground)",
        "14.9",
    ]
    assert not [
        (row["mode"], column)
        for row in shown
        for column, value in row.items()
        if value is None or value == "None"
    ]


@pytest.mark.anyio
async def test_wire_events_deep_research_is_responses_only(
    wire_events: ModuleType, offline_settings: DemoApiSettings
) -> None:
    preset = wire_events.Preset(
        "Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
        {"review_plan": False, "research_rounds": 1},
        ("web_search",),
    )
    responses, chat = await wire_events.capture_both(
        offline_settings, "deep-research", preset.prompt, preset
    )

    facts = wire_events.responses_facts(responses)
    assert facts["terminal"] == "response.completed"
    assert facts["server_tool_calls"] >= 3
    assert facts["citations"] and facts["commentary"]
    refused = wire_events.chat_facts(chat)
    assert refused["chunks"] == 0
    assert "Error code: 400" in refused["error"]
    assert "Responses API" in refused["error"]
    # Merged rows: one per run of deltas, adding up to the same text.
    rows = wire_events.response_rows(responses.events, merge=True)
    assert len(rows) < len(responses.events)
    assert len(wire_events.response_rows(responses.events, merge=False)) == len(
        responses.events
    )
    merged = [row for row in rows if "×" in row["event"]]
    assert merged and all(
        row["event"].startswith("response.output_text.delta ×") for row in merged
    )
    assert wire_events.chat_rows(chat.events, merge=True) == []


def test_marimo_check_accepts_the_notebooks() -> None:
    result = subprocess.run(
        [
            str(Path(PYTHON).with_name("marimo")),
            "check",
            "--strict",
            *sorted(str(p) for p in NOTEBOOKS.glob("*.py")),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(list(NOTEBOOKS.glob("*.py"))) >= 2


@pytest.mark.timeout(SCRIPT_TIMEOUT + 30)
def test_the_documented_export_writes_the_page_and_prints_no_alarm(
    tmp_path: Path,
) -> None:
    """The export command of docs/demo/notebooks.md, as a reader pastes it
    (one run instead of five): it writes the HTML and says nothing alarming
    (marimo's "leaked semaphore" warning at exit is what its setting hides)."""
    page = (ROOT / "docs" / "demo" / "notebooks.md").read_text(encoding="utf-8")
    block = page.split("export it:\n\n```bash\n", 1)[1].split("```", 1)[0]
    command = block.replace("\\\n", " ").replace("--runs 5", "--runs 1")
    assert "marimo export html" in command
    out = tmp_path / "timings.html"
    result = subprocess.run(
        ["bash", "-c", command.replace("-o timings.html", f"-o {out}")],
        cwd=ROOT,
        env=offline_env(),
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert out.stat().st_size > 10_000
    assert "leaked" not in result.stderr and "Warning" not in result.stderr, (
        result.stderr
    )


# --- the `just demo/marimo` recipe ---------------------------------------------


def just(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert JUST is not None, "just is not installed"
    return subprocess.run(
        # A dotenv name that does not exist: a developer's .env stays out.
        [JUST, "--dotenv-filename", ".no-such-env", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def fake_uv(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A `uv` first on PATH that records its arguments and exits 0."""
    calls = tmp_path / "uv-calls.txt"
    stub = tmp_path / "bin" / "uv"
    stub.parent.mkdir()
    stub.write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\n')
    stub.chmod(0o755)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("DEMO_MARIMO_")
    }
    env["PATH"] = f"{stub.parent}{os.pathsep}{env['PATH']}"
    return env, calls


def test_recipe_serves_the_notebooks_read_only_by_default(
    fake_uv: tuple[dict[str, str], Path],
) -> None:
    env, calls = fake_uv
    result = just("demo/marimo", env=env)

    assert result.returncode == 0, result.stderr
    assert calls.read_text().splitlines() == [
        "sync --all-packages --frozen --quiet",
        # -y: one Ctrl-C stops marimo, without its "are you sure?" prompt.
        # -q: no marimo banner ("Create or edit notebooks") under "read-only".
        "run --frozen --no-sync marimo -y -q run demo/api/notebooks --host 127.0.0.1 "
        "--port 8004 --headless --include-code",
    ]
    assert "http://127.0.0.1:8004" in result.stdout


def test_recipe_editable_opens_the_editor_on_the_configured_port(
    fake_uv: tuple[dict[str, str], Path],
) -> None:
    env, calls = fake_uv
    env["DEMO_MARIMO_PORT"] = "9123"
    result = just("demo/marimo", "--editable", env=env)

    assert result.returncode == 0, result.stderr
    assert calls.read_text().splitlines()[-1] == (
        "run --frozen --no-sync marimo -y edit demo/api/notebooks --host 127.0.0.1 "
        "--port 9123 --headless --skip-update-check"
    )
    assert "http://127.0.0.1:9123" in result.stdout


def test_recipe_rejects_unknown_options(
    fake_uv: tuple[dict[str, str], Path],
) -> None:
    env, calls = fake_uv
    result = just("demo/marimo", "--edit", env=env)

    assert result.returncode != 0
    assert "--editable" in result.stderr
    assert not calls.exists()


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_recipe_serves_each_notebook_and_it_runs_in_the_browser(
    gallery: str,
) -> None:
    for name in ("graph_runner.py", "wire_events.py"):
        assert httpx.get(f"{gallery}/?file={name}").status_code == 200
    assert httpx.get(f"{gallery}/?file=missing.py").status_code == 404

    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            # Tall enough that the timing table is on screen when it first
            # renders: marimo sizes its columns to their contents then.
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.goto(gallery)
            # Generous: marimo's first page load compiles its front end, which
            # takes long on a machine busy with other tests (xdist workers).
            page.get_by_text("Wire Events").first.wait_for(timeout=90_000)
            page.goto(f"{gallery}/?file=graph_runner.py")
            # The timing table (default graph deep-research) and its chart.
            page.get_by_text(BACKGROUND_MODE).first.wait_for(timeout=120_000)
            page.locator("img").first.wait_for(timeout=90_000)
            assert page.get_by_text("Timings per mode").count() == 1
            table = page.locator("table").first
            cells = table.locator("td").all_inner_texts()
            assert "n/a (not streamed)" in cells and "n/a (foreground)" in cells
            assert "None" not in cells
            # At 1400 px every column fits: nothing to scroll to, no cell cut.
            overflow = table.evaluate(
                """(table) => {
                    const box = table.parentElement.getBoundingClientRect();
                    const cut = [...table.querySelectorAll("th, td")]
                        .filter((cell) => {
                            const r = cell.getBoundingClientRect();
                            return r.left < box.left - 0.5 || r.right > box.right + 0.5
                                || cell.scrollWidth > cell.clientWidth;
                        })
                        .map((cell) => cell.innerText);
                    const scroll = table.parentElement;
                    return {cut, extra: scroll.scrollWidth - scroll.clientWidth};
                }"""
            )
            assert overflow == {"cut": [], "extra": 0}, overflow
        finally:
            browser.close()
