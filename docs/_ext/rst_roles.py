"""Griffe extension for the API reference: reST roles in docstrings as Markdown.

LGOS docstrings are Google style but name objects with Sphinx roles
(``:class:`GraphRegistry```, ``:func:`run_langgraph```) and introduce examples
with ``Usage::``. mkdocstrings renders docstrings as Markdown, where those
would show up literally; this extension (loaded from ``mkdocs.yml``) turns
each role into inline code (``~a.b.C`` shows ``C``, as in Sphinx) and each
trailing ``::`` into ``:``, leaving the indented example as a code block.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["RstRoles", "markdown_docstring"]

_ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj|const):`(?P<target>[^`]+)`"
)
_LITERAL_INTRO = re.compile(r"(?<=\S)::$", re.MULTILINE)


def _code(match: re.Match[str]) -> str:
    target = match.group("target")
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown_docstring(text: str) -> str:
    """Return ``text`` with reST roles as inline code and ``::`` intros as ``:``."""
    return _LITERAL_INTRO.sub(":", _ROLE.sub(_code, text))


class RstRoles(griffe.Extension):
    """Rewrite every loaded object's docstring with :func:`markdown_docstring`."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring in place."""
        _rewrite(obj)

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Rewrite the top-level package's docstring (not an ``on_object`` call)."""
        _rewrite(pkg)


def _rewrite(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        obj.docstring.value = markdown_docstring(obj.docstring.value)
