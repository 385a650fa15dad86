"""No module of the suite imports a test module.

What several test files share lives in a helper module named for what it
holds (``tests/ui/fake_api.py``, ``tests/open_webui/pipe_events.py``) or,
for fixtures, in the folder's ``conftest.py``. Importing a test module
instead runs its tests' module code for another file, re-collects its
fixtures under a second name and hides which file owns what.
"""

from __future__ import annotations

from pathlib import Path

from tests.architecture.imports import ROOT, ModuleGraph, build_graph

TESTS = ROOT / "tests"


def is_test_module(module: str) -> bool:
    """Whether ``module`` (a dotted name) is a file pytest collects tests from."""
    name = module.rpartition(".")[2]
    return name.startswith("test_") or name.endswith("_test")


def imports_of_test_modules(graph: ModuleGraph) -> list[str]:
    """``"a -> b"`` for each module of ``graph`` that imports the test module ``b``."""
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if is_test_module(target)
    )


def test_no_module_of_the_suite_imports_a_test_module() -> None:
    graph = build_graph([TESTS])
    assert "tests.ui.test_chainlit_files" in graph
    assert imports_of_test_modules(graph) == []


def _suite(tmp_path: Path, files: dict[str, str]) -> ModuleGraph:
    """The import graph of a small ``tests`` package made of ``files``."""
    root = tmp_path / "tests"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
    return build_graph([root])


def test_every_way_of_importing_a_test_module_is_caught(tmp_path: Path) -> None:
    graph = _suite(
        tmp_path,
        {
            "ui/test_a.py": "X = 1\n",
            "ui/test_b.py": "from tests.ui.test_a import X\n",
            "ui/test_c.py": "from . import test_a\n",
            "ui/helpers.py": "def f():\n    import tests.ui.test_a\n",
            "lgos/test_d.py": "from ..ui.test_a import X\n",
        },
    )
    assert imports_of_test_modules(graph) == [
        "tests.lgos.test_d -> tests.ui.test_a",
        "tests.ui.helpers -> tests.ui.test_a",
        "tests.ui.test_b -> tests.ui.test_a",
        "tests.ui.test_c -> tests.ui.test_a",
    ]


def test_helper_modules_and_conftest_may_be_imported(tmp_path: Path) -> None:
    graph = _suite(
        tmp_path,
        {
            "ui/conftest.py": "from tests.ui.fake_api import Server\n",
            "ui/fake_api.py": "class Server: ...\n",
            "ui/test_a.py": "from tests.ui.conftest import X\n"
            "from tests.ui.fake_api import Server\n",
        },
    )
    assert imports_of_test_modules(graph) == []
