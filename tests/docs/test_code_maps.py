"""The code maps of the UI pages name every module of their package, once.

Each page below has a table under one heading whose first column names the
package's modules as backticked ``name.py`` (several to a cell allowed;
other packages' modules are written ``lgos_client.name`` and not counted).
Every module file of the package (``__main__.py`` included, ``__init__.py``
not) must be named there exactly once, and every ``name.py`` the table names
must exist, so a module added, renamed or removed shows up here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.markdown_blocks import ROOT

MAPS = [
    # (page, heading of the table, package folder)
    ("docs/demo/ui.md", "Code map", "ui/chainlit/src/lgos_chainlit"),
    ("docs/demo/open-webui.md", "Code map", "ui/open-webui/src/lgos_open_webui"),
    ("docs/architecture.md", "The client core", "ui/client/src/lgos_client"),
]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_MODULE = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*\.py)`")


def table_under(page: Path, heading: str) -> list[str]:
    """The first column of the first table under ``heading`` (before the next
    heading of its level or higher), header and separator rows left out."""
    level = 0
    rows: list[str] = []
    for line in page.read_text(encoding="utf-8").splitlines():
        match = _HEADING.match(line)
        if match:
            if level and len(match.group(1)) <= level:
                break
            if not level and match.group(2) == heading:
                level = len(match.group(1))
            continue
        if not level:
            continue
        if line.startswith("|"):
            rows.append(line.split("|")[1].strip())
        elif rows:
            break
    assert level, f"{page.relative_to(ROOT)}: no heading {heading!r}"
    assert rows, f"{page.relative_to(ROOT)}: no table under {heading!r}"
    return rows[2:]


def named_modules(cells: list[str]) -> list[str]:
    """Every backticked ``name.py`` of the cells, in order, repeats kept."""
    return [name for cell in cells for name in _MODULE.findall(cell)]


@pytest.mark.parametrize(("page", "heading", "package"), MAPS, ids=[m[0] for m in MAPS])
def test_code_map_names_every_module_once(
    page: str, heading: str, package: str
) -> None:
    named = named_modules(table_under(ROOT / page, heading))
    folder = ROOT / package
    files = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
    where = f"{page}, the table under {heading!r}"
    problems = [
        f"{where} does not name {package}/{name}: add a row (or the name to a row) "
        "saying what it holds"
        for name in files
        if name not in named
    ]
    problems += [
        f"{where} names `{name}`, which is not in {package}: remove it or fix the name "
        "(modules of other packages are written `lgos_client.name`, without .py)"
        for name in sorted(set(named) - set(files))
    ]
    problems += [
        f"{where} names `{name}` {named.count(name)} times: keep it in one row"
        for name in sorted({n for n in named if named.count(n) > 1})
    ]
    assert not problems, "\n".join(problems)
