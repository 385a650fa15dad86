"""Write the measured part of docs/testing.md from the suite's timing files.

    uv run python scripts/test-report.py [TIMINGS.json ...] [--check]

Each file is what ``pytest --timings=PATH`` wrote (tests/timing.py); ``just
test`` writes ``.data/test-times/full.json``, the default. The tables replace
the text between ``<!-- report:start -->`` and ``<!-- report:end -->`` in
docs/testing.md: the run's figures, time by tier and by folder, the slowest
tests, the fixtures that start something and how often, and the fixed waits
found in the tests' source. It also writes ``tests/file-times.json``, each
file's seconds, from which tests/order.py runs the slowest files first.
``--check`` writes nothing and exits 1 when either differs from a fresh one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "testing.md"
# Each file's measured seconds, committed: tests/order.py runs the slowest first.
FILE_TIMES = ROOT / "tests" / "file-times.json"
DEFAULT = ROOT / ".data" / "test-times" / "full.json"
START, END = "<!-- report:start -->", "<!-- report:end -->"
PHASES = ("setup", "call", "teardown")
# A literal wait of half a second or more in a test's source.
_WAIT = re.compile(
    r"(?:time\.sleep|asyncio\.sleep|anyio\.sleep|wait_for_timeout)\(\s*(?P<value>\d+(?:\.\d+)?)\s*\)"
)


def load(paths: list[Path]) -> list[dict[str, Any]]:
    """Read the timing documents, expanding folders into their ``*.json`` files."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    if not files:
        raise SystemExit(
            f"test-report: no timing files in {', '.join(map(str, paths))}"
        )
    return [
        json.loads(file.read_text(encoding="utf-8")) | {"file": file.name}
        for file in files
    ]


def spent(test: dict[str, Any]) -> float:
    """Seconds of one test's setup, call and teardown."""
    return sum(test.get(phase, 0.0) for phase in PHASES)


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Format a Markdown table; numbers right-aligned."""
    align = [
        "---:" if rows and re.fullmatch(r"[\d.,:]+( s)?", rows[0][i]) else "---"
        for i in range(len(header))
    ]
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def minutes(seconds: float) -> str:
    """``m:ss`` for durations of a minute or more, else ``N s``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def fixed_waits() -> list[list[str]]:
    """``[place, seconds]`` for each literal wait of 0.5 s or more in tests/."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for number, line in enumerate(
            path.read_text(encoding="utf-8").splitlines(), start=1
        ):
            for match in _WAIT.finditer(line):
                value = float(match.group("value"))
                if "wait_for_timeout" in match.group(0):
                    value /= 1000
                if value >= 0.5:
                    found.append(
                        [f"`{path.relative_to(ROOT)}:{number}`", f"{value:g} s"]
                    )
    return found


def report(documents: list[dict[str, Any]]) -> list[str]:
    """Build the Markdown lines of the measured part."""
    tests = [test for doc in documents for test in doc["tests"]]
    fixtures = [fixture for doc in documents for fixture in doc["fixtures"]]
    lines = ["### The runs", ""]
    rows = []
    for doc in documents:
        run_tests = doc["tests"]
        rows.append(
            [
                f"`{doc['file']}`",
                str(len(run_tests)),
                str(sum(test["outcome"] == "passed" for test in run_tests)),
                str(doc["session"].get("workers", 1)),
                minutes(doc["session"]["seconds"]),
                minutes(sum(map(spent, run_tests))),
            ]
        )
    lines += table(
        ["timing file", "tests", "passed", "workers", "wall clock", "test time"], rows
    )
    lines += [
        "",
        "Test time adds up each test's setup, call and teardown; with several",
        "workers or processes at once it exceeds the wall clock.",
        "",
        "### By tier",
        "",
    ]
    by_tier: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for test in tests:
        by_tier[",".join(test["tiers"]) or "(none)"].append(test)
    rows = [
        [f"`{tier}`", str(len(group)), minutes(sum(map(spent, group)))]
        for tier, group in sorted(
            by_tier.items(), key=lambda kv: -sum(map(spent, kv[1]))
        )
    ]
    lines += table(["tier", "tests", "test time"], rows)
    lines += ["", "### By folder", ""]
    by_folder: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for test in tests:
        by_folder["/".join(test["nodeid"].split("/")[:2]).split("::")[0]].append(test)
    rows = [
        [
            f"`{folder}`",
            str(len(group)),
            minutes(sum(map(spent, group))),
            minutes(sum(test.get("setup", 0.0) for test in group)),
        ]
        for folder, group in sorted(
            by_folder.items(), key=lambda kv: -sum(map(spent, kv[1]))
        )
    ]
    lines += table(["folder", "tests", "test time", "of it in setup"], rows)
    lines += ["", "### The 25 slowest tests", ""]
    rows = [
        [
            f"`{test['nodeid']}`",
            f"{test.get('setup', 0.0):.1f}",
            f"{test.get('call', 0.0):.1f}",
            f"{spent(test):.1f}",
        ]
        for test in sorted(tests, key=spent, reverse=True)[:25]
    ]
    lines += table(["test", "setup s", "call s", "total s"], rows)
    lines += [
        "",
        "### Fixtures that take time to set up",
        "",
        "Each fixture whose setups add up to 2 s or more: how often it was set up",
        "(a session fixture once per process, a function fixture once per test),",
        "in all and at most once.",
        "",
    ]
    by_fixture: dict[tuple[str, str], list[float]] = defaultdict(list)
    for fixture in fixtures:
        by_fixture[(fixture["name"], fixture["scope"])].append(fixture["seconds"])
    rows = [
        [
            f"`{name}`",
            scope,
            str(len(times)),
            minutes(sum(times)),
            f"{max(times):.1f} s",
        ]
        for (name, scope), times in sorted(
            by_fixture.items(), key=lambda kv: -sum(kv[1])
        )
        if sum(times) >= 2
    ]
    lines += table(["fixture", "scope", "setups", "in all", "longest"], rows)
    waits = fixed_waits()
    lines += [
        "",
        "### Fixed waits in the tests",
        "",
        "Literal sleeps and timeouts of half a second or more in `tests/`",
        f"({len(waits)}): each should wait on the condition it stands for instead,",
        "or say why it cannot.",
        "",
    ]
    lines += table(["where", "waits"], waits) if waits else ["None."]
    return lines


def file_times(documents: list[dict[str, Any]]) -> str:
    """``tests/file-times.json``: ``{file: seconds}``, sorted by file."""
    seconds: dict[str, float] = defaultdict(float)
    for doc in documents:
        for test in doc["tests"]:
            seconds[test["nodeid"].split("::", 1)[0]] += spent(test)
    rounded = {name: round(value, 1) for name, value in sorted(seconds.items())}
    return json.dumps(rounded, indent=1) + "\n"


def main() -> int:
    """Write (or with ``--check``, compare) the page's report and the file times.

    Returns the exit status: 1 under ``--check`` when either is stale.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("timings", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when the page is stale"
    )
    args = parser.parse_args()
    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    documents = load(args.timings)
    fresh = head + START + "\n" + "\n".join(report(documents)) + "\n" + END + tail
    times = file_times(documents)
    if args.check:
        current = FILE_TIMES.read_text(encoding="utf-8") if FILE_TIMES.exists() else ""
        return 0 if fresh == text and times == current else 1
    PAGE.write_text(fresh, encoding="utf-8")
    FILE_TIMES.write_text(times, encoding="utf-8")
    print(
        f"test-report: wrote {os.path.relpath(PAGE, ROOT)} and "
        f"{os.path.relpath(FILE_TIMES, ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
