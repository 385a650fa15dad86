"""The tier markers (tests/tiers.py), shown on planted tests run by pytester
in-process: a test that needs what its tier does not provide is refused at
collection, a tier run deselects what it cannot serve, and a unit test cannot
start a process."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)
# The planted runs load tests.tiers and tests.timing, which this run has imported.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = """
import pytest

from tests.tiers import needs

pytest_plugins = ("tests.tiers", "tests.timing")


@pytest.fixture
@needs("browser")
def page():
    return "a page"


@pytest.fixture
def signed_in(page):
    return page + ", signed in"
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    return pytester


def test_a_fixture_needing_an_undeclared_tier_is_a_collection_error(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(
        test_pages="""
        import pytest

        @pytest.mark.integration
        def test_through_another_fixture(signed_in):
            assert signed_in
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*tests that need a tier they do not declare:*",
            "*test_pages.py::test_through_another_fixture: fixture 'page' needs the "
            "'browser' tier; mark the test or its module with pytest.mark.browser",
        ]
    )
    # Not one test ran: nothing was skipped quietly.
    result.assert_outcomes()


def test_a_test_without_any_tier_is_refused(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_bare="def test_bare():\n    assert True\n")
    result = suite.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*test_bare.py::test_bare: no tier; mark it with one of*"]
    )


def test_a_tier_run_deselects_the_tests_it_cannot_serve(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_mixed="""
        import pytest

        @pytest.mark.browser
        def test_page(signed_in):
            assert signed_in == "a page, signed in"

        @pytest.mark.unit
        def test_plain():
            assert True
        """
    )
    fast = suite.runpytest("-p", "no:cacheprovider", "-m", "unit or integration")
    fast.assert_outcomes(passed=1, deselected=1)
    everything = suite.runpytest("-p", "no:cacheprovider")
    everything.assert_outcomes(passed=2)


def test_a_fixture_asked_for_at_run_time_is_refused_too(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_late="""
        import pytest

        @pytest.mark.unit
        def test_late(request):
            request.getfixturevalue("page")
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*test_late.py::test_late needs the 'browser' tier (Debian's Chromium)*"]
    )


def test_a_unit_test_cannot_start_a_process(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_process="""
        import subprocess

        import pytest

        @pytest.mark.unit
        def test_runs_true():
            subprocess.run(["true"], check=True)
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ProcessInUnitTest: test_process.py::test_runs_true is a unit test and started "
            "a process*mark it pytest.mark.integration*"
        ]
    )


@pytest.mark.integration
def test_ensure_tiers_refuses_an_unknown_tier() -> None:
    done = subprocess.run(
        ["bash", "scripts/ensure-tiers.sh", "unit", "gpu"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "unknown tier 'gpu'" in done.stderr
    usage = subprocess.run(
        ["bash", "scripts/ensure-tiers.sh"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert usage.returncode == 2 and "usage:" in usage.stderr


def test_a_unit_test_may_run_what_a_library_runs_for_itself() -> None:
    # matplotlib builds its font cache with fc-list the first time a process
    # draws text on a machine; that is not the test starting a process.
    from tests.tiers import _allowed

    assert _allowed(["/usr/bin/fc-list", "--help"])
    assert _allowed(["fc-list"]) and _allowed("fc-list --format x")
    assert _allowed([b"fc-list"])
    assert not _allowed(["true"]) and not _allowed("uvicorn app:app")
    assert not _allowed(["/tmp/fc-list-lookalike"])
