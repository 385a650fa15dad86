"""Install lines in the docs install this code, never the index's namesake.

The package index has a different project named ``langgraph-openai-serve``
(ours is not published there), so ``uv add "langgraph-openai-serve[...]"``
silently installs somebody else's package. Every install line must name a
path to this checkout's ``lgos`` (or a wheel built from it) instead.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.docs.markdown_blocks import ROOT, pages

_INSTALL = re.compile(
    r"\b(?:uv add|uv pip install|pip install|poetry add|pipx install)\b"
)
# The distribution named on its own: not part of a path or a wheel's file name.
_BARE = re.compile(r"(?<![\w/.-])langgraph[-_]openai[-_]serve(?![\w/.-])")


# uv applies --editable to every requirement of the line, and refuses one that
# is not a local directory ("did not resolve to a local directory").
_EDITABLE = re.compile(r"\buv add\b.*\s(?:--editable|-e)\s")


def mixed_editable_installs(text: str, name: str) -> list[str]:
    """``"<page>:<line>: <line>"`` for each ``uv add --editable`` line that also
    names a requirement that is not a path (uv fails on such a line)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not _EDITABLE.search(line):
            continue
        command = line.split("#", 1)[0]
        words = shlex.split(command[command.index("uv add") + len("uv add") :])
        requirements = [word for word in words if not word.startswith("-")]
        if any(not word.startswith(("/", "./", "../", "~")) for word in requirements):
            found.append(f"{name}:{number}: {line.strip()}")
    return found


def bare_installs(text: str, name: str) -> list[str]:
    """``"<page>:<line>: <line>"`` for each install line naming the bare distribution."""
    return [
        f"{name}:{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), start=1)
        if (install := _INSTALL.search(line)) and _BARE.search(line[install.end() :])
    ]


PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_install_lines_name_this_checkout(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert bare_installs(text, page.name) == []
    assert mixed_editable_installs(text, page.name) == []


def test_the_scanner_finds_an_editable_line_with_a_package() -> None:
    text = "\n".join(
        [
            'uv add --editable "/path/to/this/repository/lgos[server]" openai',
            'uv add --editable "/path/to/this/repository/lgos[server]"',
            "uv add openai",
            "uv add -e ./lgos  # from your checkout",
        ]
    )
    assert [
        line.split(": ", 1)[0] for line in mixed_editable_installs(text, "p.md")
    ] == ["p.md:1"]


def test_the_scanner_finds_a_bare_install() -> None:
    text = "\n".join(
        [
            'uv add "langgraph-openai-serve[server,postgres]"',
            "pip install langgraph_openai_serve",
            'uv add --editable "/path/to/this/repository/lgos[server]"',
            "uv add ./dist/langgraph_openai_serve-0.1.0-py3-none-any.whl",
            "The import name is langgraph_openai_serve.",
        ]
    )
    assert [line.split(": ", 1)[0] for line in bare_installs(text, "p.md")] == [
        "p.md:1",
        "p.md:2",
    ]
