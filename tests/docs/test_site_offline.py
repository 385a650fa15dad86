"""The built docs site draws its Mermaid diagrams with no network but its own.

Chromium opens the architecture page from a local HTTP server with every other
request refused: the diagram must become an SVG, and nothing may have been
requested from elsewhere (Material asks a CDN for Mermaid when the page does
not bring it).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browsers import launch
from tests.docs.markdown_blocks import ROOT

MKDOCS = Path(sys.executable).with_name("mkdocs")

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    site = tmp_path_factory.mktemp("docs-site")
    result = subprocess.run(
        [str(MKDOCS), "build", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=170,
        check=False,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_diagrams_draw_without_a_cdn(site_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    elsewhere: list[str] = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})

            def refuse(route: Any) -> None:
                elsewhere.append(route.request.url)
                route.abort()

            page.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), refuse)
            page.goto(f"{site_url}/architecture/")
            # Material swaps each drawn <pre class="mermaid"> (the source) for
            # a <div class="mermaid"> holding the SVG in a closed shadow root.
            diagram = page.locator("div.mermaid").first
            expect(diagram).to_be_visible(timeout=30_000)
            expect(page.locator("pre.mermaid")).to_have_count(0)
            box = diagram.bounding_box()
            assert box is not None and box["width"] > 300 and box["height"] > 100
        finally:
            browser.close()
    assert elsewhere == []
