"""A tiny web server for the offline search corpus, so citations open.

Offline `web_search` results link to `DEMO_API_CORPUS_BASE_URL` (default
`http://127.0.0.1:8002`); this server renders each corpus page from Markdown
to HTML at `/pages/<page id>`, with the section anchors the results point to.
`just demo` starts it (the `corpus` line of `demo/Procfile`); run it alone
with::

    uv run python -m lgos_demo_api.corpus_server --host 127.0.0.1 --port 8002

Routes: `/` lists the pages, `/pages/<page id>` (a trailing `.md` is
accepted, so relative links between docs pages work) shows one, `/healthz`
answers `ok`.
"""

from __future__ import annotations

import argparse
import html
import re
from collections.abc import Sequence

import markdown
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

from langgraph_openai_serve.server.guards import install_guards
from lgos_demo_api.search.corpus import Corpus, CorpusPage, default_corpus

__all__ = ["create_app", "main", "render_page"]

_MARKDOWN_EXTENSIONS = ("toc", "fenced_code", "tables", "sane_lists")
_MD_LINK = re.compile(r'href="(?![a-z][a-z0-9+.-]*:|/|#)([^"#]*?)\.md(#[^"]*)?"')
_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;"
    "padding:0 1rem;line-height:1.55;color:#1f2328}"
    "pre{background:#f6f8fa;padding:.75rem;overflow:auto}"
    "code{background:#f6f8fa;padding:0 .2rem}"
    "table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.3rem .6rem}"
    ":target{background:#fff8c5}"
    "header{font-size:.9rem;color:#59636e;margin-bottom:1rem}"
)


def _document(title: str, body: str) -> str:
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        "<body><header><a href='/'>LGOS demo corpus</a> · offline web search "
        f"pages</header>\n{body}\n</body></html>\n"
    )


def render_page(page: CorpusPage) -> str:
    """Render a corpus page as a complete HTML document.

    Headings get the ids offline search results link to (Python-Markdown's
    `toc` extension); links to other `.md` pages lose the extension so they
    resolve on this server.
    """
    body = markdown.markdown(page.markdown, extensions=list(_MARKDOWN_EXTENSIONS))
    body = _MD_LINK.sub(lambda m: f'href="{m.group(1)}{m.group(2) or ""}"', body)
    return _document(page.title, body)


def create_app(corpus: Corpus | None = None) -> Starlette:
    """Build the corpus web app.

    Args:
        corpus: The corpus to serve; the demo's `default_corpus()` when None.

    Returns:
        A Starlette app with `/`, `/pages/{page_id:path}` and `/healthz`.

    """
    served = corpus if corpus is not None else default_corpus()

    async def index(request: Request) -> HTMLResponse:
        items = "\n".join(
            f"<li><a href='/pages/{html.escape(page_id)}'>"
            f"{html.escape(page.title)}</a> <code>{html.escape(page_id)}</code></li>"
            for page_id, page in served.pages.items()
        )
        body = (
            "<h1>LGOS demo corpus</h1><p>The pages the offline "
            f"<code>web_search</code> backend searches.</p><ul>{items}</ul>"
        )
        return HTMLResponse(_document("LGOS demo corpus", body))

    async def page(request: Request) -> HTMLResponse:
        page_id = str(request.path_params["page_id"]).strip("/")
        page_id = page_id.removesuffix(".md")
        found = served.pages.get(page_id)
        if found is None:
            body = f"<h1>Not found</h1><p>No corpus page {html.escape(page_id)!r}.</p>"
            return HTMLResponse(_document("Not found", body), status_code=404)
        return HTMLResponse(render_page(found))

    async def healthz(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/pages/{page_id:path}", page),
            Route("/healthz", healthz),
        ]
    )
    # The same Host and Origin guards as the API (LGOS_ALLOWED_HOSTS).
    install_guards(app, exempt=("/healthz",))
    return app


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the corpus with uvicorn (`python -m lgos_demo_api.corpus_server`)."""
    import uvicorn

    parser = argparse.ArgumentParser(
        prog="python -m lgos_demo_api.corpus_server",
        description="Serve the offline web-search corpus as HTML pages.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind")
    parser.add_argument("--port", type=int, default=8002, help="port to bind")
    args = parser.parse_args(argv)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()
