"""A pytest plugin that records where a run's time goes, and enforces a budget.

``--timings PATH`` writes one JSON document when the session ends:

- ``session``: the wall-clock seconds of the whole run and its worker count;
- ``tests``: for each test, its node id, outcome, tiers (tests/tiers.py), the
  seconds of its setup, call and teardown, and ``cpu``: the share of the
  machine's CPU time that was busy while it ran (from ``/proc/stat``; all
  processes count, so a test that mostly waits shows a low share when it ran
  alone);
- ``fixtures``: for each fixture setup of 0.05 s or more, its name, scope, the
  test that set it up and the seconds it took (a session fixture appears once
  per process, under the first test that needed it).

Under pytest-xdist each worker writes its fixtures beside ``PATH`` and the
controller merges them in. ``scripts/test-report.py`` turns such files into
the tables of ``docs/testing.md``.

``--budget-total SECONDS`` and ``--budget-test SECONDS`` (or the variables
``LGOS_TEST_BUDGET_TOTAL`` and ``LGOS_TEST_BUDGET_TEST``) fail the run, exit
status 1 after all tests ran, when the whole run or a single test took longer;
a single test's time is its setup, call and teardown less the setup of
fixtures it shares with other tests (module scope or broader), so the test
that happens to start a shared stack is not blamed for it. The terminal
summary names each figure that broke a budget. docs/testing.md states them.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_KEY = pytest.StashKey["Timings"]()
_SHARED = pytest.StashKey[float]()
PHASES = ("setup", "call", "teardown")
SHARED_SCOPES = frozenset({"module", "package", "session", "class"})
TIER_NAMES = frozenset(
    {"unit", "integration", "clients", "browser", "stack", "compose"}
)


def cpu_counters() -> tuple[int, int] | None:
    """``(busy, total)`` jiffies of the whole machine, or None off Linux."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
    except OSError:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


class Timings:
    """What one process measured; see the module docstring for the shape."""

    def __init__(self, path: Path | None, total: float | None, single: float | None):
        self.path = path
        self.budget_total = total
        self.budget_test = single
        self.started = time.monotonic()
        self.tests: dict[str, dict[str, Any]] = {}
        self.fixtures: list[dict[str, Any]] = []
        self.current: pytest.Item | None = None
        self.cpu_start: tuple[int, int] | None = None
        self.over: list[str] = []

    def record(self, report: pytest.TestReport) -> None:
        """Add one phase report of one test (in the process that reports it)."""
        entry = self.tests.setdefault(
            report.nodeid,
            {
                "nodeid": report.nodeid,
                "outcome": "passed",
                "tiers": sorted(set(report.keywords) & TIER_NAMES),
            },
        )
        entry[report.when] = round(report.duration, 3)
        for name, value in report.user_properties:
            if name in ("cpu", "shared_setup"):
                entry[name] = value
        if report.outcome == "failed" or (
            report.outcome == "skipped" and entry["outcome"] == "passed"
        ):
            entry["outcome"] = report.outcome

    def own_seconds(self, entry: dict[str, Any]) -> float:
        """A test's time less the setup of fixtures it shares with others."""
        spent = sum(entry.get(phase, 0.0) for phase in PHASES)
        return spent - entry.get("shared_setup", 0.0)

    def finish(self, workers: int) -> dict[str, Any]:
        """The document to write; collects the budget figures that broke."""
        wall = time.monotonic() - self.started
        if self.budget_total is not None and wall > self.budget_total:
            self.over.append(
                f"the run took {wall:.0f} s, over its budget of {self.budget_total:g} s"
            )
        if self.budget_test is not None:
            for entry in self.tests.values():
                own = self.own_seconds(entry)
                if own > self.budget_test:
                    self.over.append(
                        f"{entry['nodeid']} took {own:.1f} s, over the per-test "
                        f"budget of {self.budget_test:g} s"
                    )
        return {
            "session": {"seconds": round(wall, 1), "workers": workers},
            "tests": list(self.tests.values()),
            "fixtures": self.fixtures,
        }


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("timings", "where the run's time goes (tests/timing.py)")
    group.addoption(
        "--timings", metavar="PATH", help="write per-test and per-fixture times as JSON"
    )
    group.addoption(
        "--budget-total",
        type=float,
        metavar="SECONDS",
        default=_env_float("LGOS_TEST_BUDGET_TOTAL"),
        help="fail the run when it takes longer (env LGOS_TEST_BUDGET_TOTAL)",
    )
    group.addoption(
        "--budget-test",
        type=float,
        metavar="SECONDS",
        default=_env_float("LGOS_TEST_BUDGET_TEST"),
        help="fail the run when one test takes longer (env LGOS_TEST_BUDGET_TEST)",
    )


def _env_float(name: str) -> float | None:
    value = os.environ.get(name)
    return float(value) if value else None


def _worker(config: pytest.Config) -> str | None:
    """The xdist worker id (``gw0``...) in a worker process, else None."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput["workerid"] if workerinput else None


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("timings")
    timings = Timings(
        Path(path) if path else None,
        config.getoption("budget_total"),
        config.getoption("budget_test"),
    )
    config.stash[_KEY] = timings
    config.pluginmanager.register(_Recorder(timings), "lgos-timings-recorder")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, Any]:
    timings = item.config.stash[_KEY]
    timings.current = item
    timings.cpu_start = cpu_counters()
    try:
        return (yield)
    finally:
        timings.current = None


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    started = time.monotonic()
    try:
        return (yield)
    finally:
        seconds = time.monotonic() - started
        timings = request.config.stash[_KEY]
        item = timings.current
        if fixturedef.scope in SHARED_SCOPES and item is not None:
            item.stash[_SHARED] = item.stash.get(_SHARED, 0.0) + seconds
        if seconds >= 0.05:  # the rest is noise in a report of minutes
            timings.fixtures.append(
                {
                    "name": fixturedef.argname,
                    "scope": fixturedef.scope,
                    "test": item.nodeid if item is not None else None,
                    "seconds": round(seconds, 3),
                }
            )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    report = yield
    timings = item.config.stash[_KEY]
    if call.when == "teardown":
        end = cpu_counters()
        if end is not None and timings.cpu_start is not None:
            busy = end[0] - timings.cpu_start[0]
            total = end[1] - timings.cpu_start[1]
            if total > 0:
                report.user_properties.append(("cpu", round(busy / total, 2)))
    if call.when == "setup":
        shared = item.stash.get(_SHARED, 0.0)
        if shared:
            report.user_properties.append(("shared_setup", round(shared, 3)))
    return report


class _Recorder:
    """Records each phase report in the process that reports it: the one
    running the tests, or the xdist controller that receives the reports."""

    def __init__(self, timings: Timings) -> None:
        self.timings = timings

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.timings.record(report)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    timings = config.stash[_KEY]
    worker = _worker(config)
    if worker is not None:
        # A worker hands its fixtures to the controller through a file.
        if timings.path is not None:
            part = timings.path.with_name(f"{timings.path.name}.{worker}")
            part.parent.mkdir(parents=True, exist_ok=True)
            part.write_text(json.dumps(timings.fixtures), encoding="utf-8")
        return
    workers = int(getattr(config.option, "numprocesses", 0) or 1)
    document = timings.finish(workers)
    if timings.path is not None:
        for part in sorted(timings.path.parent.glob(f"{timings.path.name}.gw*")):
            document["fixtures"].extend(json.loads(part.read_text(encoding="utf-8")))
            part.unlink()
        timings.path.parent.mkdir(parents=True, exist_ok=True)
        timings.path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    if timings.over and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(
    terminalreporter: Any, exitstatus: int, config: pytest.Config
) -> None:
    timings = config.stash[_KEY]
    if timings.over:
        terminalreporter.section("time budget exceeded", sep="=", red=True, bold=True)
        for line in timings.over:
            terminalreporter.line(line, red=True)
