"""Fenced code blocks of the documentation pages, for the docs tests.

Conventions the pages follow (see ``docs/index.md`` sources):

- Every ```` ```python ```` block runs, in page order, in one namespace per
  page (top-level ``await`` allowed). ``http://127.0.0.1:8000`` and
  ``http://127.0.0.1:8003`` (the demo API and Files service) are mapped to
  servers the tests start.
- A Python block whose first line is ``# <name>.py`` is a module: it is
  written to the page's working directory instead of run, so later blocks
  import it.
- Every ```` ```js ```` block (``javascript``, ``mjs``) runs too: a page's JS
  blocks, in order, form one ES module (top-level ``await`` allowed) that
  Node runs with the packages of ``tests/clients/js``, under the same URL
  mapping.
- ``<!-- docs-test: skip (reason) -->`` on the line before a fence keeps that
  block from running; the reason is required.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
_SKIP = re.compile(r"^skip\s*\((?P<reason>.+)\)$")
_MODULE = re.compile(r"^#\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*\.py)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced code block.

    Attributes:
        page: The Markdown file.
        line: 1-based line number of the first code line.
        lang: The fence's language (the first word of its info string).
        code: The block's text, dedented.
        skip: The reason given by a ``docs-test: skip (...)`` marker, or None.
        module: ``name.py`` when the block is a module to write, else None.

    """

    page: Path
    line: int
    lang: str
    code: str
    skip: str | None = None
    module: str | None = None

    @property
    def where(self) -> str:
        """``path:line``, relative to the repository root when inside it."""
        page = self.page
        if page.is_relative_to(ROOT):
            page = page.relative_to(ROOT)
        return f"{page}:{self.line}"


class MarkerError(ValueError):
    """A ``docs-test`` marker that is malformed or not followed by a fence."""


def pages() -> list[Path]:
    """Every documentation page: ``docs/**/*.md`` and the README."""
    return [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]


def blocks(page: Path) -> list[Block]:
    """Return the fenced code blocks of ``page`` in order.

    Raises:
        MarkerError: A ``docs-test`` marker is malformed, has no reason, or
            does not stand right before a fence.

    """
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    skip: str | None = None
    skip_line = 0
    index = 0
    while index < len(lines):
        text = lines[index]
        marker = _MARKER.match(text)
        if marker:
            body = _SKIP.match(marker.group("body"))
            if body is None or not body.group("reason").strip():
                msg = f"{page}:{index + 1}: expected <!-- docs-test: skip (reason) -->"
                raise MarkerError(msg)
            skip, skip_line = body.group("reason").strip(), index + 1
            index += 1
            continue
        fence = _FENCE.match(text)
        if fence is None:
            if skip is not None and text.strip():
                msg = f"{page}:{skip_line}: a docs-test marker must precede a fence"
                raise MarkerError(msg)
            index += 1
            continue
        if skip is not None and skip_line != index:
            msg = f"{page}:{skip_line}: a docs-test marker must precede a fence"
            raise MarkerError(msg)
        indent, mark = fence.group("indent"), fence.group("fence")
        closing = re.compile(rf"^[ \t]*{re.escape(mark[0])}{{{len(mark)},}}\s*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        body_lines = [
            line[len(indent) :] if line.startswith(indent) else line.lstrip()
            for line in lines[index + 1 : end]
        ]
        code = textwrap.dedent("\n".join(body_lines)) + "\n"
        lang = (fence.group("info").split() or [""])[0].lower()
        first = code.splitlines()[0] if code.strip() else ""
        module = _MODULE.match(first)
        found.append(
            Block(
                page=page,
                line=index + 2,
                lang=lang,
                code=code,
                skip=skip,
                module=module.group("name") if module and lang == "python" else None,
            )
        )
        skip = None
        index = end + 1
    return found


PYTHON = frozenset({"python", "py"})
JS = frozenset({"js", "javascript", "mjs"})


def python_blocks(page: Path) -> list[Block]:
    """The page's ```` ```python ```` blocks (``py`` too)."""
    return [b for b in blocks(page) if b.lang in PYTHON]


def js_blocks(page: Path) -> list[Block]:
    """The page's ```` ```js ```` blocks (``javascript`` and ``mjs`` too)."""
    return [b for b in blocks(page) if b.lang in JS]
