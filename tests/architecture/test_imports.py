"""Layers import downward only, and nothing in the repository imports in a cycle.

The LGOS package's layers, top to bottom: ``server`` (and the ``lgos``
command), ``integrations``, ``api`` (with the ASGI application and the
background-run protocol built on it), ``graph``, and the helpers every layer
shares (errors, settings, request context, telemetry, metrics). The testing
helpers sit beside ``graph``, whose runner they use.
The root ``__init__`` is the public facade and may import any layer but
``server`` and ``integrations``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.architecture.imports import (
    SOURCE_ROOTS,
    build_graph,
    cycles,
    layer_violations,
)

PACKAGE = "langgraph_openai_serve"
LAYERS = {
    "cli": 5,
    "scaffold": 5,  # lgos new: the templates of new projects
    "server": 5,
    "integrations": 4,
    "": 3,  # the facade: langgraph_openai_serve/__init__.py
    "app": 3,
    "background": 3,
    "api": 3,
    "graph": 2,
    "errors": 1,
    "settings": 1,
    "request_context": 1,
    "telemetry": 1,
    "metrics": 1,
    "ids": 1,
    "testing": 2,  # beside graph: run_graph and stream_graph use its runner
}


def test_every_module_has_a_layer() -> None:
    graph = build_graph()
    # layer_violations raises KeyError for a module no prefix covers.
    layer_violations(graph, LAYERS, package=PACKAGE)
    assert any(module.startswith(f"{PACKAGE}.graph.") for module in graph)


def test_lgos_layers_import_downward_only() -> None:
    assert layer_violations(build_graph(), LAYERS, package=PACKAGE) == []


def test_no_import_cycle_in_the_repository() -> None:
    assert cycles(build_graph()) == []


def test_the_demo_launcher_stands_apart() -> None:
    """`just demo`'s launcher (``lgos_demo_launcher``) is imported by no other
    package of the repository and imports none: it runs before the workspace
    is installed, with python-dotenv alone."""
    launcher = "lgos_demo_launcher"
    graph = build_graph()
    assert any(module.startswith(f"{launcher}.") for module in graph)
    crossing = [
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if (module.split(".")[0] == launcher) != (target.split(".")[0] == launcher)
    ]
    assert crossing == []


def _copy_lgos(tmp_path: Path) -> Path:
    """Copy the LGOS source root; return the copy's root (holding the package)."""
    target = tmp_path / "src"
    shutil.copytree(SOURCE_ROOTS[0], target)
    return target


def _graph_of(root: Path):
    return build_graph([root / PACKAGE])


def test_a_planted_upward_import_inside_a_function_is_caught(tmp_path: Path) -> None:
    root = _copy_lgos(tmp_path)
    runner = root / PACKAGE / "graph" / "runner.py"
    runner.write_text(
        runner.read_text()
        + "\n\ndef _planted() -> None:\n"
        + "    from langgraph_openai_serve.api import sse  # noqa: F401\n"
    )
    violations = layer_violations(_graph_of(root), LAYERS, package=PACKAGE)
    assert f"{PACKAGE}.graph.runner -> {PACKAGE}.api.sse" in violations


def test_a_planted_cycle_is_caught(tmp_path: Path) -> None:
    root = _copy_lgos(tmp_path)
    errors = root / PACKAGE / "errors.py"
    errors.write_text(errors.read_text() + "\nfrom . import settings  # noqa\n")
    settings = root / PACKAGE / "settings.py"
    settings.write_text(settings.read_text() + "\nfrom . import errors  # noqa\n")
    assert [f"{PACKAGE}.errors", f"{PACKAGE}.settings"] in cycles(_graph_of(root))


def test_type_checking_imports_are_not_dependencies(tmp_path: Path) -> None:
    root = _copy_lgos(tmp_path)
    errors = root / PACKAGE / "errors.py"
    errors.write_text(
        errors.read_text()
        + "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        + "    from langgraph_openai_serve.api import sse  # noqa: F401\n"
    )
    assert f"{PACKAGE}.api.sse" not in _graph_of(root)[f"{PACKAGE}.errors"]
