"""A static import graph of the repository's packages, read with :mod:`ast`.

Every ``import`` statement counts, those inside functions too (a lazy import
is still a dependency, and it is how cycles hide); only imports under
``if TYPE_CHECKING:`` are skipped, since they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = (
    ROOT / "lgos" / "src",
    ROOT / "demo" / "api" / "src",
    ROOT / "demo" / "files" / "src",
    ROOT / "ui" / "client" / "src",
    ROOT / "ui" / "chainlit" / "src",
    ROOT / "ui" / "open-webui" / "src",
    ROOT / "demo" / "launcher" / "src",
)
PACKAGES = (
    *sorted(
        p for r in SOURCE_ROOTS for p in r.iterdir() if (p / "__init__.py").exists()
    ),
    ROOT / "bench",
)
"""Every first-party package directory: the source packages and the benchmarks."""

ModuleGraph = dict[str, set[str]]
"""Module name → the first-party modules it imports."""


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(tree: ast.Module, module: str, is_package: bool) -> list[str]:
    """Every dotted name an import statement of ``tree`` may bind (runtime only)."""
    names: list[str] = []
    package = module if is_package else module.rpartition(".")[0]

    def visit(nodes: Iterable[ast.stmt | ast.AST]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                names.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                names.extend(f"{base}.{alias.name}" for alias in node.names)
                names.append(base)
            visit(ast.iter_child_nodes(node))

    visit(tree.body)
    return names


def _resolve(name: str, modules: Mapping[str, object]) -> str | None:
    """The longest known module ``name`` starts with (``a.b.func`` → ``a.b``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def build_graph(packages: Iterable[Path] = PACKAGES) -> ModuleGraph:
    """Return the first-party import graph of every ``*.py`` in ``packages``."""
    sources: dict[str, tuple[Path, bool]] = {}
    for package in packages:
        for path in sorted(package.rglob("*.py")):
            sources[_module_name(package.parent, path)] = (
                path,
                path.name == "__init__.py",
            )
    graph: ModuleGraph = {}
    for module, (path, is_package) in sources.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        targets = {
            target
            for name in _imported_names(tree, module, is_package)
            if (target := _resolve(name, sources)) is not None and target != module
        }
        # Importing a submodule runs its packages' __init__ first; that
        # ordering is Python's, not a dependency the module chose.
        graph[module] = {t for t in targets if not module.startswith(f"{t}.")}
    return graph


def cycles(graph: ModuleGraph) -> list[list[str]]:
    """Return each strongly connected group of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def layer_violations(
    graph: ModuleGraph, layers: Mapping[str, int], *, package: str
) -> list[str]:
    """Return ``"a -> b"`` for each import of ``package`` that goes up a layer.

    Args:
        graph: The import graph.
        layers: Module-name prefix (relative to ``package``) → layer number,
            higher is further up; the longest matching prefix decides.
        package: The package whose modules are checked.

    Raises:
        KeyError: A module of ``package`` matches no prefix.

    """

    def layer(module: str) -> int:
        relative = module.removeprefix(package).lstrip(".")
        best = max(
            (p for p in layers if relative == p or relative.startswith(f"{p}.")),
            key=len,
            default=None,
        )
        if best is None:
            raise KeyError(module)
        return layers[best]

    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        if source.startswith(f"{package}.")
        for target in targets
        if target.startswith(f"{package}.") and layer(target) > layer(source)
    )
