"""The documentation site builds in strict mode: no warning is tolerated.

Strict mode turns MkDocs warnings into a failed build: broken links and
anchors, pages missing from the nav or nav entries without a page, and
mkdocstrings problems such as a reference to an object that does not exist.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.markdown_blocks import ROOT

# The site build serves Mermaid from the pinned npm package (scripts/docs-js).
pytestmark = [pytest.mark.clients]

MKDOCS = Path(sys.executable).with_name("mkdocs")


@pytest.mark.timeout(180)
def test_site_builds_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=170,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "WARNING" not in output, output[-6000:]
    # The API reference rendered the docstrings, reST roles turned into code.
    reference = "".join(
        page.read_text(encoding="utf-8")
        for page in (site / "reference" / "api").rglob("index.html")
    )
    assert 'id="langgraph_openai_serve.GraphConfig"' in reference
    assert 'id="langgraph_openai_serve.graph.runner.run_langgraph"' in reference
    assert ":class:" not in reference
    assert ":func:" not in reference
    # Build helpers are not published.
    assert not (site / "_ext").exists()
    assert_served_from_the_site(site)


EXTERNAL = re.compile(r'<(?:script|link)\b[^>]*\b(?:src|href)="(?:https?:)?//[^"]*"')


def assert_served_from_the_site(site: Path) -> None:
    """Pages load no script, stylesheet or font from elsewhere; Mermaid ships.

    Material fetches Mermaid from a CDN unless a page script defines it first.
    """
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not EXTERNAL.findall(html), (page, EXTERNAL.findall(html))
    mermaid = site / "assets" / "javascripts" / "mermaid.min.js"
    assert mermaid.stat().st_size > 1_000_000
    assert 'globalThis["mermaid"]' in mermaid.read_text(encoding="utf-8")
    diagrams = (site / "architecture" / "index.html").read_text(encoding="utf-8")
    assert 'class="mermaid"' in diagrams
    assert '<script src="../assets/javascripts/mermaid.min.js"></script>' in diagrams


def test_rst_roles_become_markdown() -> None:
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        from rst_roles import markdown_docstring  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))

    text = "Uses :class:`GraphRegistry` and :func:`~a.b.run`.\n\nUsage::\n\n    x = 1\n"
    assert markdown_docstring(text) == (
        "Uses `GraphRegistry` and `run`.\n\nUsage:\n\n    x = 1\n"
    )
    assert markdown_docstring("A ``literal`` stays; so does a: colon") == (
        "A ``literal`` stays; so does a: colon"
    )
