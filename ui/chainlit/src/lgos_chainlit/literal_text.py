"""Keep identifiers literal in the Markdown Chainlit renders. Pure functions only.

Chainlit's page renders every message with react-markdown plus
``remark-directive`` (always on, for its ``:::`` alerts). That plugin reads
``:name`` as a *text directive*, so ``lgos serve my_module:create_registry``
showed as ``my_module`` and an empty block; and CommonMark reads ``__init__``
as bold "init". The graph's text is Markdown and stays Markdown (lists,
tables, code, links), but :func:`protect_markdown` backslash-escapes the few
characters that would eat such text, outside code:

- a ``:`` followed by an ASCII letter (the start of a directive name), unless
  it follows another ``:`` (``std::fs`` is not a directive) or is escaped;
- the ``_`` of a word that starts or ends with ``__`` (``__init__``,
  ``__name__``): underscores inside a word (``LGOS_POSTGRES_URI``,
  ``psycopg_pool``) are literal in CommonMark already.

Fenced code blocks, inline code spans, autolinks (``<https://...>``) and bare
URLs are left exactly as they are (an escape there would show, or change the
link). A backslash escape is what CommonMark itself offers for literal
punctuation: the page shows the character, and the copied Markdown stays
valid.
"""

from __future__ import annotations

import re

__all__ = ["StreamedMarkdown", "protect_markdown"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CLOSING_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
# Inline pieces kept as they are: code spans (found by hand), autolinks, URLs.
_KEPT = re.compile(
    r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>"  # autolink
    r"|(?:https?|ftp)://[^\s<]*"  # bare URL (GFM autolink literal)
    r"|www\.[^\s<]*"
)
_DIRECTIVE_COLON = re.compile(r"(?<!:):(?=[A-Za-z])")
_WORD = re.compile(r"(?<![A-Za-z0-9_\\])[A-Za-z0-9_]+(?![A-Za-z0-9_])")


def _escaped(text: str, index: int) -> bool:
    """Whether ``text[index]`` follows an odd number of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _escape_plain(text: str) -> str:
    """Escape directive colons and dunder underscores in text without code."""

    def colon(match: re.Match[str]) -> str:
        return ":" if _escaped(text, match.start()) else "\\:"

    text = _DIRECTIVE_COLON.sub(colon, text)

    def word(match: re.Match[str]) -> str:
        token = match.group(0)
        if (token.startswith("__") or token.endswith("__")) and token.strip("_"):
            return token.replace("_", "\\_")
        return token

    return _WORD.sub(word, text)


def _protect_inline(text: str) -> str:
    """Protect a run of lines outside fenced code (code spans kept)."""
    out: list[str] = []
    plain_start = 0
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == "`" and not _escaped(text, index):
            run_end = index
            while run_end < length and text[run_end] == "`":
                run_end += 1
            run = run_end - index
            closing = _closing_backticks(text, run_end, run)
            if closing is None:
                index = run_end  # literal backticks: no code span
                continue
            out.append(_protect_plain(text[plain_start:index]))
            out.append(text[index : closing + run])
            index = plain_start = closing + run
            continue
        index += 1
    out.append(_protect_plain(text[plain_start:]))
    return "".join(out)


def _closing_backticks(text: str, start: int, run: int) -> int | None:
    """Index of the next backtick run of exactly ``run`` backticks."""
    index = start
    while True:
        index = text.find("`", index)
        if index < 0:
            return None
        end = index
        while end < len(text) and text[end] == "`":
            end += 1
        if end - index == run:
            return index
        index = end


def _protect_plain(text: str) -> str:
    """Protect text without code spans; autolinks and URLs are kept."""
    out: list[str] = []
    cursor = 0
    for match in _KEPT.finditer(text):
        out.append(_escape_plain(text[cursor : match.start()]))
        out.append(match.group(0))
        cursor = match.end()
    out.append(_escape_plain(text[cursor:]))
    return "".join(out)


def _fence_after(line: str, fence: str | None) -> str | None:
    """Return the fence open after ``line`` (``None``: none), given the one before."""
    if fence is not None:
        closing = _CLOSING_FENCE.match(line)
        if (
            closing
            and closing.group(1)[0] == fence[0]
            and len(closing.group(1)) >= len(fence)
        ):
            return None
        return fence
    opening = _FENCE.match(line)
    if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
        return opening.group(1)
    return None


def protect_markdown(text: str) -> str:
    """Escape what Chainlit's renderer would eat, outside code and links.

    Paragraphs are protected one at a time (a code span never crosses a
    blank line in CommonMark), so the protection of text ending in a blank
    line outside a fence never changes when more text follows; that is what
    lets :class:`StreamedMarkdown` settle a streamed answer paragraph by
    paragraph.

    Args:
        text: Markdown (a graph's answer, a question, a model description).

    Returns:
        The same Markdown, rendering ``module:factory``, ``__init__`` and
        the like literally. Text without such spots comes back unchanged.

    """
    if ":" not in text and "__" not in text:
        return text
    out: list[str] = []
    pending: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        after = _fence_after(line, fence)
        if fence is None and after is None:
            pending.append(line)
            if not line.strip():  # a blank line ends the paragraph
                out.append(_protect_inline("".join(pending)))
                pending = []
        else:  # a fence's opening, content or closing line: kept as it is
            out.append(_protect_inline("".join(pending)))
            pending = []
            out.append(line)
        fence = after
    out.append(_protect_inline("".join(pending)))
    return "".join(out)


class StreamedMarkdown:
    """Protect Markdown that arrives in pieces, as a streamed answer does.

    :meth:`add` returns what to send to the page: the new tail when the
    protected text only grew, or the whole protected text when an earlier
    part changed (a code span that just closed, a colon whose next letter
    just came). Text up to the last blank line outside a fence is settled:
    it is protected once and never again, so a long answer costs time in
    proportion to its length, not to its length squared.
    """

    def __init__(self) -> None:
        self.raw = ""
        self.shown = ""
        self._settled = 0  # raw[:_settled] ends in a blank line outside a fence
        self._settled_shown = ""  # its protection, final
        self._scanned = 0  # raw[:_scanned] is whole lines already scanned
        self._fence: str | None = None  # the fence open after raw[:_scanned]

    def add(self, piece: str) -> tuple[str, bool]:
        """Add a piece of raw text.

        Returns:
            ``(text, whole)``: the text to send, and whether it replaces
            everything sent so far (``True``) or is appended (``False``).

        """
        self.raw += piece
        self._settle()
        protected = self._settled_shown + protect_markdown(self.raw[self._settled :])
        previous, self.shown = self.shown, protected
        if protected.startswith(previous):
            return protected[len(previous) :], False
        return protected, True

    def _settle(self) -> None:
        """Move the settled prefix to the last blank line outside a fence."""
        end = self.raw.rfind("\n") + 1
        if end <= self._scanned:
            return
        boundary = None
        for line in self.raw[self._scanned : end].splitlines(keepends=True):
            self._scanned += len(line)
            self._fence = _fence_after(line, self._fence)
            if self._fence is None and not line.strip():
                boundary = self._scanned
        if boundary is not None:
            self._settled_shown += protect_markdown(self.raw[self._settled : boundary])
            self._settled = boundary
