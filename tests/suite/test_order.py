"""tests/order.py: the slowest files first, so that xdist's last file to start
is a short one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import order

pytest_plugins = ("pytester",)
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

FILES = {
    "test_a_many_quick": "import pytest\n\npytestmark = pytest.mark.unit\n\n"
    + "".join(f"def test_{n}():\n    pass\n\n" for n in range(3)),
    "test_b_browser": "import pytest\n\npytestmark = pytest.mark.browser\n\n"
    "def test_page():\n    pass\n",
    "test_c_measured": "import pytest\n\npytestmark = pytest.mark.unit\n\n"
    "def test_one():\n    pass\n\ndef test_two():\n    pass\n",
}


@pytest.fixture
def planted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> pytest.Pytester:
    pytester.makeconftest(
        'pytest_plugins = ("tests.tiers", "tests.timing", "tests.order")\n'
    )
    pytester.makepyfile(**FILES)
    committed = tmp_path / "file-times.json"
    committed.write_text(json.dumps({"test_c_measured.py": 100.0}), encoding="utf-8")
    monkeypatch.setattr(order, "COMMITTED", committed)
    monkeypatch.setattr(order, "LAST_RUN", tmp_path / "no-such-run.json")
    return pytester


def collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest("-p", "no:cacheprovider", "--collect-only", "-q", *args)
    return [line for line in result.outlines if "::" in line]


def test_files_run_longest_first_and_keep_their_own_order(
    planted: pytest.Pytester,
) -> None:
    assert collected(planted) == [
        # Measured: 100 s.
        "test_c_measured.py::test_one",
        "test_c_measured.py::test_two",
        # Estimated from its tier: one browser test, 15 s.
        "test_b_browser.py::test_page",
        # Estimated: three unit tests, 0.15 s.
        "test_a_many_quick.py::test_0",
        "test_a_many_quick.py::test_1",
        "test_a_many_quick.py::test_2",
    ]


def test_the_last_local_run_wins_over_the_committed_times(
    planted: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    last = tmp_path / "full.json"
    test = {"outcome": "passed", "tiers": ["unit"], "setup": 0.0, "teardown": 0.0}
    last.write_text(
        json.dumps(
            {
                "session": {"seconds": 1, "workers": 1},
                "fixtures": [],
                "tests": [
                    test | {"nodeid": "test_c_measured.py::test_one", "call": 1.0},
                    test | {"nodeid": "test_a_many_quick.py::test_0", "call": 30.0},
                ],
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(order, "LAST_RUN", last)
    files = [line.split("::")[0] for line in collected(planted)]
    assert list(dict.fromkeys(files)) == [
        "test_a_many_quick.py",
        "test_b_browser.py",
        "test_c_measured.py",
    ]


def test_the_order_can_be_left_alone(planted: pytest.Pytester) -> None:
    files = [line.split("::")[0] for line in collected(planted, "--file-order=none")]
    assert list(dict.fromkeys(files)) == [
        "test_a_many_quick.py",
        "test_b_browser.py",
        "test_c_measured.py",
    ]
