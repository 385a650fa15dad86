"""Modules stay small: over about 400 lines, a module says at its top why it is one.

The reason is a paragraph of the module docstring starting ``One module:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.architecture.imports import PACKAGES

LIMIT = 400


def _long_modules_without_reason(packages: tuple[Path, ...]) -> list[str]:
    found = []
    for package in packages:
        root = package.parent
        for path in sorted(package.rglob("*.py")):
            text = path.read_text()
            lines = text.count("\n")
            if lines <= LIMIT:
                continue
            docstring = ast.get_docstring(ast.parse(text)) or ""
            if not any(p.startswith("One module:") for p in docstring.split("\n\n")):
                found.append(f"{path.relative_to(root)} ({lines} lines)")
    return found


def test_long_modules_state_why_they_are_one() -> None:
    assert _long_modules_without_reason(PACKAGES) == []


def test_a_long_module_without_a_reason_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "big.py").write_text('"""Big."""\n' + "x = 1\n" * LIMIT)
    (package / "kept.py").write_text(
        '"""Kept.\n\nOne module: a reason.\n"""\n' + "x = 1\n" * LIMIT
    )
    assert _long_modules_without_reason((package,)) == [
        f"pkg/big.py ({LIMIT + 1} lines)"
    ]
