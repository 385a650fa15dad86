"""The page Chainlit serves, without its KaTeX stylesheet from a CDN.

Chainlit 2.12's ``index.html`` always links KaTeX's CSS from
``cdn.jsdelivr.net``, even with ``latex = false`` (this UI's setting: it
renders no math). Offline that request fails, and online it is a third-party
request the chat does not need. :func:`serve_page_offline` wraps Chainlit's
page template so the link is left out while LaTeX is off; with ``latex =
true`` the page is Chainlit's own (math needs that stylesheet).

The web fonts that page loads from Google are turned off in
``public/theme.json`` (``"custom_fonts": []``), so the page asks nothing of
any other host.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import chainlit.server
from chainlit.config import config

__all__ = ["KATEX_LINK", "serve_page_offline", "without_katex_cdn"]

KATEX_LINK = re.compile(
    r"[ \t]*<link\b[^>]*\bhref=\"https://cdn\.jsdelivr\.net/npm/katex@[^\"]*\"[^>]*>\n?"
)
"""The ``<link>`` element of Chainlit's page that loads KaTeX's CSS."""

_WRAPPED = "_lgos_offline_page"


def without_katex_cdn(html: str) -> str:
    """Return the page without the KaTeX stylesheet link."""
    return KATEX_LINK.sub("", html)


def serve_page_offline() -> None:
    """Make Chainlit serve its page without the KaTeX CDN link (LaTeX off).

    Chainlit's catch-all route calls ``chainlit.server.get_html_template``
    for every page load; this wraps it once (calling it again changes
    nothing).
    """
    template: Callable[[str], str] = chainlit.server.get_html_template
    if getattr(template, _WRAPPED, False):
        return

    def get_html_template(root_path: str) -> str:
        html = template(root_path)
        return html if config.features.latex else without_katex_cdn(html)

    setattr(get_html_template, _WRAPPED, True)
    chainlit.server.get_html_template = get_html_template
