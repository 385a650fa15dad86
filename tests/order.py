"""A pytest plugin that runs the slowest test files first.

With ``pytest -n N --dist loadfile`` each worker takes one file at a time
from a queue, in collection order, and a file's tests stay together. A file
that takes minutes (a browser journey, the Compose stack) reaching the queue
last leaves the other workers idle while it runs. So the queue is sorted
longest first, the classic longest-processing-time rule, from each file's
measured seconds:

1. the last local run's timing file (``.data/test-times/full.json``, written
   by ``just test`` through tests/timing.py), when there is one;
2. else ``tests/file-times.json``, committed, which ``just test-report``
   rewrites from the same measurements;
3. else, for a file neither knows, an estimate from its tiers and its number
   of tests (``ESTIMATE``).

Within a file the order never changes. pytest-xdist's own reordering (by
number of tests per file, which puts the few long browser tests last) is
turned off. ``--file-order=none`` keeps the collection order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAST_RUN = ROOT / ".data" / "test-times" / "full.json"
COMMITTED = ROOT / "tests" / "file-times.json"
# Seconds per test for a file with no measurement, by its costliest tier.
ESTIMATE = {
    "compose": 40.0,
    "stack": 20.0,
    "browser": 15.0,
    "clients": 1.0,
    "integration": 1.5,
    "unit": 0.05,
}


def file_of(nodeid: str) -> str:
    """The file part of a node id: ``tests/x/test_y.py``."""
    return nodeid.split("::", 1)[0]


def measured_seconds(path: Path) -> dict[str, float]:
    """``{file: seconds}`` from a timing file (tests/timing.py's shape) or a
    ``{file: seconds}`` document; empty when missing or unreadable."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if "tests" not in document:
        return {str(k): float(v) for k, v in document.items()}
    seconds: dict[str, float] = defaultdict(float)
    for test in document["tests"]:
        seconds[file_of(test["nodeid"])] += sum(
            test.get(phase, 0.0) for phase in ("setup", "call", "teardown")
        )
    return dict(seconds)


def estimate(items: list[pytest.Item]) -> float:
    """Seconds a file of ``items`` may take, from its tiers (see ``ESTIMATE``)."""
    total = 0.0
    for item in items:
        names = {mark.name for mark in item.iter_markers()}
        total += max((v for k, v in ESTIMATE.items() if k in names), default=0.05)
    return total


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("timings").addoption(
        "--file-order",
        choices=("slowest-first", "none"),
        default="slowest-first",
        help="order test files by their measured time, longest first (tests/order.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("file_order") == "slowest-first" and hasattr(
        config.option, "loadscopereorder"
    ):
        config.option.loadscopereorder = False


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Sort ``items`` by file, longest first; stable within a file."""
    if config.getoption("file_order") != "slowest-first":
        return
    known = measured_seconds(COMMITTED) | measured_seconds(LAST_RUN)
    by_file: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        by_file[file_of(item.nodeid)].append(item)
    weight = {
        name: known[name] if name in known else estimate(group)
        for name, group in by_file.items()
    }
    order = sorted(by_file, key=lambda name: -weight[name])
    items[:] = [item for name in order for item in by_file[name]]
