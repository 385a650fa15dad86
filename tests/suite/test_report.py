"""scripts/test-report.py: the measured tables of docs/testing.md, built from
timing files of the shape tests/timing.py writes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "test_report_script", ROOT / "scripts" / "test-report.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DOCUMENT = {
    "session": {"seconds": 754.2, "workers": 2},
    "tests": [
        {
            "nodeid": "tests/e2e/test_chat.py::test_streams",
            "outcome": "passed",
            "tiers": ["browser"],
            "setup": 20.0,
            "call": 40.5,
            "teardown": 1.0,
        },
        {
            "nodeid": "tests/lgos/test_cli.py::test_help",
            "outcome": "passed",
            "tiers": ["unit"],
            "setup": 0.0,
            "call": 0.2,
            "teardown": 0.0,
        },
        {
            "nodeid": "tests/lgos/test_cli.py::test_broken",
            "outcome": "failed",
            "tiers": ["unit"],
            "call": 0.1,
        },
    ],
    "fixtures": [
        {"name": "chainlit_ui", "scope": "session", "test": "x", "seconds": 18.0},
        {"name": "chainlit_ui", "scope": "session", "test": "y", "seconds": 12.0},
        {"name": "tiny", "scope": "function", "test": "x", "seconds": 0.5},
    ],
}


def test_the_report_adds_up_runs_tiers_folders_and_fixtures(
    report_script: ModuleType,
) -> None:
    lines = report_script.report([DOCUMENT | {"file": "full.json"}])
    text = "\n".join(lines)
    assert "| `full.json` | 3 | 2 | 2 | 12:34 | 1:01 |" in text
    assert "| `browser` | 1 | 1:01 |" in text
    assert "| `unit` | 2 | 0.3 s |" in text
    # Folders, slowest first.
    assert text.index("| `tests/e2e` |") < text.index("| `tests/lgos` |")
    # A session fixture set up in two processes: twice, 30 s in all, 18 s at most.
    assert "| `chainlit_ui` | session | 2 | 30.0 s | 18.0 s |" in text
    assert "`tiny`" not in text  # under 2 s in all
    assert "| `tests/e2e/test_chat.py::test_streams` | 20.0 | 40.5 | 61.5 |" in text


def test_the_report_replaces_only_its_part_of_the_page(
    report_script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "testing.md"
    page.write_text(
        "# Testing\n\nprose\n\n<!-- report:start -->\nstale text\n<!-- report:end -->\n\ntail\n",
        encoding="utf-8",
    )
    timings = tmp_path / "full.json"
    timings.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    monkeypatch.setattr(report_script, "PAGE", page)
    monkeypatch.setattr(report_script, "FILE_TIMES", tmp_path / "file-times.json")
    monkeypatch.setattr("sys.argv", ["test-report.py", str(timings), "--check"])
    assert report_script.main() == 1  # stale
    monkeypatch.setattr("sys.argv", ["test-report.py", str(timings)])
    assert report_script.main() == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Testing\n\nprose\n\n<!-- report:start -->\n### The runs")
    assert text.endswith("<!-- report:end -->\n\ntail\n")
    assert "stale text" not in text
    assert json.loads((tmp_path / "file-times.json").read_text(encoding="utf-8")) == {
        "tests/e2e/test_chat.py": 61.5,
        "tests/lgos/test_cli.py": 0.3,
    }
    monkeypatch.setattr("sys.argv", ["test-report.py", str(timings), "--check"])
    assert report_script.main() == 0  # fresh now


def test_the_docs_page_states_the_budgets_the_recipes_use() -> None:
    page = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    justfile = (ROOT / "justfile").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for variable, seconds in (
        ("LGOS_TEST_BUDGET_TOTAL", "1200"),
        ("LGOS_TEST_BUDGET_TEST", "240"),
        ("LGOS_TEST_BUDGET_FAST", "300"),
    ):
        assert f"${{{variable}:-{seconds}}}" in justfile
        assert f"`{variable}`" in page and f"{seconds} s" in page
    for variable, seconds in (
        ("LGOS_CI_SETUP_BUDGET", "900"),
        ("LGOS_CI_TOTAL_BUDGET", "2100"),
    ):
        assert f"${{{variable}:-{seconds}}}" in ci
        assert f"`{variable}`" in page and f"{seconds} s" in page
