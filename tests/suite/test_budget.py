"""The timing plugin (tests/timing.py): the file it writes, and the budget
that fails a run loudly, shown on planted tests run by pytester in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)
# The planted runs load tests.tiers and tests.timing, which this run has imported.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

PLUGINS = 'pytest_plugins = ("tests.tiers", "tests.timing")\n'

PLANTED = """
import time

import pytest

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def stack():
    time.sleep(0.6)  # a shared stack: its start is not the first test's fault
    return "ready"


def test_quick(stack):
    assert stack == "ready"


def test_slow():
    time.sleep(1.2)
"""


@pytest.fixture
def planted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    for name in ("LGOS_TEST_BUDGET_TOTAL", "LGOS_TEST_BUDGET_TEST"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeconftest(PLUGINS)
    pytester.makepyfile(test_planted=PLANTED)
    return pytester


def test_a_planted_slow_test_breaks_the_per_test_budget(
    planted: pytest.Pytester,
) -> None:
    result = planted.runpytest("-p", "no:cacheprovider", "--budget-test=1")
    # Both tests pass, and still the run fails, naming the test and its figure.
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.re_match_lines(
        [
            r".*time budget exceeded.*",
            r"test_planted.py::test_slow took 1\.\d s, over the per-test budget of 1 s",
        ]
    )
    # The module fixture's 0.6 s is shared setup: test_quick stays inside.
    assert "test_quick took" not in result.stdout.str()


def test_the_whole_run_has_a_budget_too(planted: pytest.Pytester) -> None:
    result = planted.runpytest("-p", "no:cacheprovider", "--budget-total=1")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.re_match_lines([r"the run took \d+ s, over its budget of 1 s"])


def test_budgets_come_from_the_environment(
    planted: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LGOS_TEST_BUDGET_TEST", "1")
    result = planted.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*test_slow took * over the per-test budget of 1 s"])


def test_inside_its_budgets_the_run_passes_and_the_timings_say_where_time_went(
    planted: pytest.Pytester,
) -> None:
    path = planted.path / "times" / "run.json"
    result = planted.runpytest(
        "-p",
        "no:cacheprovider",
        f"--timings={path}",
        "--budget-test=5",
        "--budget-total=60",
    )
    assert result.ret == pytest.ExitCode.OK
    assert "time budget exceeded" not in result.stdout.str()
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    assert document["session"]["workers"] == 1
    assert document["session"]["seconds"] >= 1.8
    tests = {test["nodeid"]: test for test in document["tests"]}
    slow = tests["test_planted.py::test_slow"]
    assert slow["outcome"] == "passed" and slow["tiers"] == ["unit"]
    assert 1.2 <= slow["call"] < 5
    quick = tests["test_planted.py::test_quick"]
    assert quick["shared_setup"] >= 0.6 and quick["setup"] >= 0.6
    (fixture,) = [f for f in document["fixtures"] if f["name"] == "stack"]
    assert fixture["scope"] == "module"
    assert fixture["test"] == "test_planted.py::test_quick"
    assert fixture["seconds"] >= 0.6
