"""Turn Responses output into the Markdown the chat shows. Pure functions only.

One module: every Markdown the chat shows, sharing one set of escaping helpers.

- **Answers** are the ``output_text`` parts of ``final_answer`` messages (or of
  messages without a ``phase``); commentary never reaches them.
- **Citations**: each ``url_citation`` annotation becomes a link. A span that
  is an inline marker such as ``[2]`` is itself turned into a link to its
  source; any other span keeps its text and gets a linked marker after it.
  A numbered **Sources** list (title and URL, both links) follows the answer.
- **Refusals**, **incomplete** answers and **failures** each get a distinct,
  labelled rendering, so none of them can pass for a normal answer.
- The graph's own text (answers, refusals, questions) keeps ``module:factory``
  and ``__init__`` literal (:func:`~lgos_chainlit.literal_text.protect_markdown`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from lgos_chainlit.literal_text import protect_markdown
from lgos_client.items import (
    AnswerText,
    UrlCitation,
)

__all__ = [
    "Source",
    "commentary_title",
    "failure_note",
    "incomplete_note",
    "link_citations",
    "render_answer",
    "render_answered",
    "render_custom_tool_step",
    "render_function_step",
    "render_question",
    "render_refusal",
    "render_response",
    "render_sources",
    "search_query",
    "search_step_title",
    "stopped_note",
]

_MARKER = re.compile(r"^\[(\d{1,3})\]$")
_TITLE_LIMIT = 100

INCOMPLETE_REASONS = {
    "max_output_tokens": "the model reached its output token limit",
    "content_filter": "a content filter stopped the answer",
}
"""Plain-language explanations of ``incomplete_details.reason``."""


@dataclass(frozen=True, slots=True)
class Source:
    """One entry of the Sources list."""

    number: int
    title: str
    url: str


@dataclass(slots=True)
class _Numbering:
    sources: dict[int, Source] = field(default_factory=dict)
    by_url: dict[str, int] = field(default_factory=dict)
    next_number: int = 1

    def number_for(self, citation: UrlCitation, marker: int | None) -> int:
        if marker is None:
            marker = self.by_url.get(citation.url)
        if marker is None:
            marker = self.next_number
        self.next_number = max(self.next_number, marker + 1)
        self.by_url.setdefault(citation.url, marker)
        self.sources.setdefault(marker, Source(marker, citation.title, citation.url))
        return marker


def _safe_url(url: str) -> str | None:
    """Percent-encode characters that would break a Markdown link; http(s) only."""
    if not re.match(r"^https?://", url, re.IGNORECASE):
        return None
    return quote(url, safe=":/?#[]@!$&'*+,;=%~-._")


def _escape(text: str) -> str:
    """Escape text placed inside Markdown link text or list items."""
    return re.sub(r"([\\`*_\[\]<>()#|!])", r"\\\1", text)


def _marker_link(number: int, source: Source) -> str:
    url = _safe_url(source.url)
    if url is None:
        return f"\\[{number}\\]"
    title = source.title.replace("\\", "\\\\").replace('"', '\\"')
    return f'[\\[{number}\\]]({url} "{title}")'


def link_citations(
    text: str, citations: Sequence[UrlCitation], numbering: _Numbering | None = None
) -> tuple[str, list[Source]]:
    """Link the cited spans of ``text`` to their sources.

    A span that is exactly a marker ``[n]`` becomes a link to its source,
    numbered ``n``; another span keeps its text and gets a linked ``[n]``
    after it, numbered by first appearance (reusing the number of a URL seen
    before). Spans that overlap an earlier one, or fall outside the text, are
    not linked, but their sources are still listed.

    Args:
        text: The answer text, as streamed (its own Markdown is kept).
        citations: Its annotations; ``end_index`` is inclusive.
        numbering: Shared numbering across several text parts (internal).

    Returns:
        The Markdown with links, and the sources by number.

    """
    numbering = numbering if numbering is not None else _Numbering()
    # Marker numbers are reserved first, so unmarked spans never reuse them.
    for citation in citations:
        span = text[citation.start_index : citation.end_index + 1]
        if 0 <= citation.start_index <= citation.end_index < len(text) and (
            found := _MARKER.match(span)
        ):
            numbering.next_number = max(numbering.next_number, int(found.group(1)) + 1)
    pieces: list[str] = []
    cursor = 0
    for citation in sorted(citations, key=lambda c: (c.start_index, c.end_index)):
        start, end = citation.start_index, citation.end_index
        in_text = 0 <= start <= end < len(text)
        span = text[start : end + 1] if in_text else ""
        found = _MARKER.match(span) if in_text else None
        number = numbering.number_for(citation, int(found.group(1)) if found else None)
        if not in_text or start < cursor:
            continue
        link = _marker_link(number, numbering.sources[number])
        pieces.append(text[cursor:start])
        pieces.append(link if found else f"{span} {link}")
        cursor = end + 1
    pieces.append(text[cursor:])
    return "".join(pieces), sorted(numbering.sources.values(), key=lambda s: s.number)


def render_sources(sources: Sequence[Source]) -> str:
    """Render the Sources list: ``[n]``, the title linked, then the URL linked."""
    if not sources:
        return ""
    lines = ["**Sources**", ""]
    for source in sources:
        url = _safe_url(source.url)
        label = _escape(source.title)
        if url is None:
            lines.append(f"- \\[{source.number}\\] {label} — `{source.url}`")
        else:
            lines.append(f"- \\[{source.number}\\] [{label}]({url}) — <{url}>")
    return "\n".join(lines)


def render_answer(parts: Sequence[AnswerText]) -> str:
    """Render an answer: linked citation markers, then the Sources list."""
    numbering = _Numbering()
    texts = []
    sources: list[Source] = []
    for part in parts:
        linked, sources = link_citations(part.text, part.citations, numbering)
        texts.append(linked)
    body = "".join(texts)
    listing = render_sources(sources)
    return protect_markdown(f"{body}\n\n{listing}" if listing else body)


def render_refusal(refusal: str) -> str:
    """Render a refusal, labelled and quoted so it cannot pass for an answer."""
    quoted = "\n".join(
        f"> {line}" if line else ">" for line in protect_markdown(refusal).splitlines()
    )
    return f"**Refusal** — the graph declined to answer:\n\n{quoted}"


def incomplete_note(reason: str | None) -> str:
    """Explain, under an answer, why it stopped early."""
    explanation = INCOMPLETE_REASONS.get(reason or "", "the reason was not given")
    code = f" (`{reason}`)" if reason else ""
    return f"> **Incomplete answer** — {explanation}{code}."


def failure_note(error: str | None) -> str:
    """Mark a partial answer whose response failed."""
    detail = f" {error}" if error else ""
    return (
        "> **Failed answer** — the response failed part-way, so the text "
        f"above is incomplete.{detail}"
    )


def commentary_title(text: str) -> str:
    """Title a commentary step: the message's first line, shortened."""
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    flat = " ".join(line.split())
    if len(flat) > _TITLE_LIMIT:
        flat = flat[: _TITLE_LIMIT - 1].rstrip() + "…"
    return flat or "Working"


def render_response(
    parts: Sequence[AnswerText],
    *,
    refusal: str = "",
    status: str = "completed",
    incomplete_reason: str | None = None,
) -> str:
    """Render one response's answer message ('' when there is nothing to show).

    The answer (with linked citations and its Sources list), then a refusal,
    then a note when the response is ``incomplete`` or ``failed`` (a failed
    response's partial text is shown with the failure note).
    """
    sections = []
    answer = render_answer(parts)
    if answer.strip():
        sections.append(answer)
    if refusal:
        sections.append(render_refusal(refusal))
    if status == "incomplete":
        sections.append(incomplete_note(incomplete_reason))
    elif status == "failed" and sections:
        sections.append(failure_note(None))
    return "\n\n".join(sections)


def _inline_code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _readable_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False)
    except ValueError:
        return " ".join(text.split())


def render_function_step(arguments: str, output: str | None) -> str:
    """Render a function-call step: its arguments, then its result when known."""
    lines = [f"**Arguments** {_inline_code(_readable_json(arguments or '{}'))}"]
    if output is not None:
        lines.append(f"**Result** {_inline_code(_readable_json(output))}")
    return "\n\n".join(lines)


def search_query(item: Mapping[str, Any]) -> str:
    """Return the query of a ``web_search_call`` item ('' when it has none)."""
    action = item.get("action")
    if not isinstance(action, Mapping):
        return ""
    query = action.get("query")
    if isinstance(query, str) and query.strip():
        return " ".join(query.split())
    queries = action.get("queries")
    if isinstance(queries, list):
        return "; ".join(q for q in queries if isinstance(q, str) and q.strip())
    return ""


def search_step_title(item: Mapping[str, Any], *, done: bool) -> str:
    """Title a search step: ``Searched: <query>``, or says it failed."""
    query = search_query(item)
    if len(query) > _TITLE_LIMIT:
        query = query[: _TITLE_LIMIT - 1].rstrip() + "…"
    if not done:
        return f"Searching: {query}" if query else "Searching the web"
    if item.get("status") == "failed":
        return f"Search failed: {query}" if query else "Search failed"
    return f"Searched: {query}" if query else "Searched the web"


def render_custom_tool_step(tool_input: str, output: str | None) -> str:
    """Render a custom server tool step: its input, then its output when known."""
    lines = [f"**Input** {_inline_code(' '.join(tool_input.split()) or '(empty)')}"]
    if output is not None:
        lines.append(f"**Output** {_inline_code(_readable_json(output))}")
    return "\n\n".join(lines)


def stopped_note(
    *, background: bool = False, answered: bool = False, waiting: bool = False
) -> str:
    """Return the one line shown after the user pressed Stop.

    Args:
        background: A background run was cancelled on the server.
        answered: The stopped turn was resuming a paused run (the user had
            answered its question): that pause is gone with the turn.
        waiting: A question is still waiting for its answer.

    """
    what = "the background run was cancelled and " if background else ""
    if waiting:
        return (
            f"> **Stopped** — {what}the question above is still waiting "
            "for your answer."
        )
    if answered:
        return (
            f"> **Stopped** — {what}this turn and the question it answered are "
            "not kept; nothing is waiting for an answer."
        )
    return (
        f"> **Stopped** — {what}this turn is not kept; the next message "
        "continues from the last complete answer."
    )


def render_question(
    question: str,
    *,
    position: int = 1,
    total: int = 1,
    choices: Sequence[str] = (),
    accepts_text: bool = True,
    reminder: bool = False,
    hint: str | None = None,
) -> str:
    """Render an interrupt question, with a hint on how to answer it.

    Args:
        question: The graph's question (Markdown).
        position: 1-based position in a batch of parallel questions.
        total: How many questions the batch has.
        choices: The answers offered as buttons.
        accepts_text: Whether a typed answer is allowed.
        reminder: Whether this asks again (after a reload or a failure).
        hint: A hint replacing the default one (after "Edit plan").

    """
    label = "Still waiting for your answer" if reminder else "Your answer is needed"
    count = f" · question {position} of {total}" if total > 1 else ""
    if hint is None and choices and accepts_text:
        hint = "Choose an answer below, or type your own in the message box."
    elif hint is None and choices:
        hint = "Choose an answer below."
    elif hint is None:
        hint = "Type your answer in the message box."
    return f"**{label}**{count}\n\n{protect_markdown(question.strip())}\n\n_{hint}_"


def render_answered(
    question: str, answer: str, *, position: int = 1, total: int = 1
) -> str:
    """Render a question that has its answer (the buttons are gone)."""
    count = f" · question {position} of {total}" if total > 1 else ""
    quoted = protect_markdown(_escape(" ".join(answer.split())))
    asked = protect_markdown(question.strip())
    return f"**Answered**{count}\n\n{asked}\n\n**Your answer:** {quoted}"
