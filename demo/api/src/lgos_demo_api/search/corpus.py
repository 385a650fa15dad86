"""The offline web: a bundled corpus of Markdown pages, searched with BM25.

The corpus is the project's own documentation (`README.md` and `docs/**/*.md`
of the repository, when the demo runs from a checkout) plus a few short pages
bundled with the package (`lgos_demo_api/search/pages/`) about LangGraph,
OpenAI and deep-research concepts, so typical demo questions find something.

Every page is split into passages, one per section (`#`, `##` or `###`
heading). A passage's URL is its page on the corpus server
(`python -m lgos_demo_api.corpus_server`) plus the section's anchor, so a
citation opens the exact section; anchors are computed with the same slug
function the server's Markdown renderer uses. Passages are ranked with BM25
(`bm25s`) over their page title, section title and text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import bm25s
import markdown
from markdown.extensions.toc import slugify, unique

from lgos_demo_api.search.base import SearchResult

__all__ = [
    "BUNDLED_PAGES_DIR",
    "Corpus",
    "CorpusPage",
    "OfflineSearchBackend",
    "Passage",
    "default_corpus",
    "heading_anchor",
    "load_pages",
    "plain_text",
    "repository_root",
    "shorten",
    "split_passages",
]

BUNDLED_PAGES_DIR = Path(__file__).with_name("pages")
"""The Markdown pages shipped with the package (served under `library/`)."""

_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SNIPPET_CHARS = 320
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_EMPHASIS_UNDERSCORE = re.compile(r"(?<![\w_])_+(?=\S)|(?<=\S)_+(?![\w_])")
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9\"'(])")
_WORD_SUFFIXES = (("ing", 6), ("ed", 5), ("es", 5), ("s", 4))


@dataclass(frozen=True, slots=True)
class CorpusPage:
    """One Markdown page of the corpus.

    Attributes:
        page_id: Its path on the corpus server, without extension
            (`readme`, `docs/how-to/server-tools`, `library/bm25-ranking`).
        title: The text of its first `#` heading (else the page ID).
        markdown: The page source.

    """

    page_id: str
    title: str
    markdown: str


@dataclass(frozen=True, slots=True)
class Passage:
    """One searchable section of a page.

    Attributes:
        page: The page it belongs to.
        section: The section heading (the page title for the first section).
        anchor: The heading's HTML id on the rendered page, or "" for the top.
        text: The section's Markdown text, heading excluded.

    """

    page: CorpusPage
    section: str
    anchor: str
    text: str

    @property
    def title(self) -> str:
        """`"<page title> — <section>"`, or the page title for its top section."""
        if self.section == self.page.title:
            return self.page.title
        return f"{self.page.title} — {self.section}"

    def url(self, base_url: str) -> str:
        """Return the passage's URL on the corpus server at `base_url`."""
        page = f"{base_url.rstrip('/')}/pages/{self.page.page_id}"
        return f"{page}#{self.anchor}" if self.anchor else page

    def snippet(self) -> str:
        """Return the text as plain prose on one line, cut to about 320 characters.

        Code blocks, tables and Markdown syntax are left out; links keep their
        text and identifiers stay whole (see `plain_text`). A longer text is
        cut after its last full sentence that fits, or else after its last
        whole word, followed by "...".
        """
        return shorten(plain_text(self.text), _SNIPPET_CHARS)


def shorten(text: str, limit: int) -> str:
    """Cut text to at most `limit` characters without cutting a word.

    Text that fits is returned unchanged. Otherwise it ends after the last
    sentence that fits (when that keeps at least half of `limit`), or after
    the last whole word that fits, then "..." (trailing punctuation before
    the "..." is dropped).
    """
    if len(text) <= limit:
        return text
    room = text[: limit - 2]  # the ellipsis needs 3, the cut space gives 1
    ends = [m.end() for m in _SENTENCE_END.finditer(room)]
    if ends and ends[-1] >= limit // 2:
        return room[: ends[-1]].rstrip()
    head = room.rsplit(" ", 1)[0] if " " in room else room[: limit - 3]
    return head.rstrip(" ,;:-—(") + "..."


def plain_text(markdown_text: str) -> str:
    """Reduce Markdown to plain prose on one line (for snippets).

    Fenced code blocks and table rows are dropped; links and images keep
    their text; list and quote markers, inline code ticks and emphasis are
    removed. Inline code keeps its text verbatim, so identifiers such as
    `LGOS_POSTGRES_URI`, `psycopg_pool` or `__init__` survive whole;
    underscores outside code are removed only where they mark emphasis
    (`_word_`), never inside a word.
    """
    kept: list[str] = []
    in_fence = False
    for line in markdown_text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or line.lstrip().startswith("|"):
            continue
        line = re.sub(r"^\s*(?:[-*+]|\d+\.|>)\s+", "", line)
        kept.append(line)
    text = " ".join(kept)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<(https?://[^>]+)>", r"\1", text)
    pieces = []
    for index, piece in enumerate(_CODE_SPAN.split(text)):
        if index % 3 == 2:  # the text of a code span: verbatim
            pieces.append(piece.strip())
        elif index % 3 == 0:  # prose: drop emphasis markers only
            piece = re.sub(r"\*+", "", piece)
            pieces.append(_EMPHASIS_UNDERSCORE.sub("", piece))
    return " ".join("".join(pieces).split())


def _heading_text(raw: str) -> str:
    """Return a heading's text as rendered (no code ticks, emphasis or links)."""
    rendered = markdown.markdown(raw)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()


def heading_anchor(heading: str, used: set[str]) -> str:
    """Return the id Python-Markdown's `toc` extension gives a heading.

    Args:
        heading: The heading's Markdown source text.
        used: Ids already used on the page; updated with the new id.

    """
    return unique(slugify(_heading_text(heading), "-"), used)


def split_passages(page: CorpusPage) -> list[Passage]:
    """Split a page into one passage per `#`/`##`/`###` section.

    Text before the first heading belongs to the page's top section. Headings
    inside fenced code blocks are ignored. Sections without text are skipped.
    """
    used: set[str] = set()
    section, anchor = page.title, ""
    lines: list[str] = []
    passages: list[Passage] = []
    top = True

    def flush() -> None:
        text = "\n".join(lines).strip()
        if text:
            passages.append(Passage(page, section, anchor, text))

    in_fence = False
    for line in page.markdown.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match is None:
            lines.append(line)
            continue
        flush()
        lines = []
        heading = match.group(2)
        new_anchor = heading_anchor(heading, used)
        if top and len(match.group(1)) == 1:
            section, anchor = page.title, ""  # the page's own title
        else:
            section, anchor = _heading_text(heading), new_anchor
        top = False
    flush()
    return passages


def _page(page_id: str, markdown: str) -> CorpusPage:
    title = page_id
    for line in markdown.splitlines():
        match = _HEADING.match(line)
        if match and len(match.group(1)) == 1:
            title = _heading_text(match.group(2))
            break
    return CorpusPage(page_id, title, markdown)


def repository_root(start: Path | None = None) -> Path | None:
    """Find the LGOS checkout this package runs from, if any.

    Returns:
        The nearest ancestor of `start` (default: this file) holding
        `README.md`, `docs/` and `demo/`, or None (an installed wheel).

    """
    here = (start or Path(__file__)).resolve()
    for folder in here.parents:
        if (
            (folder / "README.md").is_file()
            and (folder / "docs").is_dir()
            and (folder / "demo").is_dir()
        ):
            return folder
    return None


def load_pages(
    root: Path | None = None, *, bundled: Path = BUNDLED_PAGES_DIR
) -> list[CorpusPage]:
    """Load the corpus pages, in a fixed order.

    Args:
        root: The repository whose `README.md` and `docs/**/*.md` to include;
            None includes only the bundled pages.
        bundled: The folder of bundled pages (served as `library/<name>`).

    Returns:
        The pages: the README, the docs sorted by path, then the bundled
        pages sorted by name.

    """
    pages: list[CorpusPage] = []
    if root is not None:
        readme = root / "README.md"
        if readme.is_file():
            pages.append(_page("readme", readme.read_text(encoding="utf-8")))
        for path in sorted((root / "docs").rglob("*.md")):
            page_id = path.relative_to(root).with_suffix("").as_posix()
            pages.append(_page(page_id, path.read_text(encoding="utf-8")))
    for path in sorted(bundled.glob("*.md")):
        pages.append(_page(f"library/{path.stem}", path.read_text(encoding="utf-8")))
    return pages


def _stem(words: Iterable[str]) -> list[str]:
    """Strip common suffixes, so "pauses" and "paused" both find "pause"."""
    stemmed = []
    for word in words:
        for suffix, minimum in _WORD_SUFFIXES:
            if word.endswith(suffix) and len(word) >= minimum:
                word = word[: -len(suffix)]
                break
        stemmed.append(word)
    return stemmed


def _tokens(texts: list[str]) -> list[list[str]]:
    tokens = bm25s.tokenize(
        texts,
        stopwords="en",
        stemmer=_stem,
        return_ids=False,
        show_progress=False,
    )
    assert isinstance(tokens, list)
    return [list(each) for each in tokens]


class Corpus:
    """A BM25 index over the passages of some pages.

    Usage::

        corpus = Corpus(load_pages(repository_root()))
        for passage, score in corpus.search("pause for approval", limit=3):
            print(passage.title, passage.url("http://127.0.0.1:8002"))
    """

    def __init__(self, pages: Sequence[CorpusPage]) -> None:
        self.pages: dict[str, CorpusPage] = {page.page_id: page for page in pages}
        self.passages: list[Passage] = [
            passage for page in pages for passage in split_passages(page)
        ]
        self._index = bm25s.BM25()
        if self.passages:
            documents = [
                f"{p.page.title}\n{p.section}\n{p.section}\n{p.text}"
                for p in self.passages
            ]
            self._index.index(_tokens(documents), show_progress=False)

    def search(self, query: str, *, limit: int = 5) -> list[tuple[Passage, float]]:
        """Rank passages for a query.

        Args:
            query: Free text.
            limit: The most passages to return.

        Returns:
            `(passage, score)` pairs with a positive BM25 score, best first
            (ties keep corpus order); empty when no term matches.

        """
        words = _tokens([query])[0]
        if not words or not self.passages:
            return []
        k = min(limit, len(self.passages))
        ids, scores = self._index.retrieve([words], k=k, show_progress=False)
        ranked = [
            (int(index), float(score))
            for index, score in zip(ids[0], scores[0], strict=True)
            if score > 0
        ]
        ranked.sort(key=lambda item: (-item[1], item[0]))
        return [(self.passages[index], score) for index, score in ranked]


@cache
def default_corpus() -> Corpus:
    """Return the demo corpus: the repository docs (when found) and bundled pages."""
    return Corpus(load_pages(repository_root()))


class OfflineSearchBackend:
    """`web_search` over the bundled corpus; needs no network.

    Attributes:
        name: `"offline"`.
        base_url: Where the corpus server runs; result URLs start with it.
        corpus: The corpus searched.

    """

    name = "offline"

    def __init__(self, base_url: str, corpus: Corpus | None = None) -> None:
        self.base_url = base_url
        self.corpus = corpus if corpus is not None else default_corpus()

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Return the best passages as results (URL, title, snippet)."""
        return [
            SearchResult(passage.url(self.base_url), passage.title, passage.snippet())
            for passage, _ in self.corpus.search(query, limit=max_results)
        ]
