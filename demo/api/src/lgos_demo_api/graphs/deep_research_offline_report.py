"""The offline `deep-research` report: quotes of the search results, cited.

`report_text` reads the findings the report prompt lists (`Question n: ...`,
then `[n] title <url>` and an indented snippet per source) and writes one
paragraph per question from the sources' first sentences. The graph
renumbers its markers in reading order (`lgos_demo_api.search.renumber`).
"""

from __future__ import annotations

import re

from lgos_demo_api.search.citing import MARKER
from lgos_demo_api.search.corpus import shorten

__all__ = ["first_sentence", "report_text"]

_QUESTION = re.compile(r"^Question (\d+): (.+)$")
_SOURCE = re.compile(r"^\[(\d+)\] (.+) <(\S+)>$")
_BREAK = re.compile(r"(?<=[.!?])\s+")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.")


def first_sentence(text: str) -> str:
    """Return the first sentence of a text, identifiers and all.

    A sentence ends at `.`, `!` or `?` followed by a space, except after an
    abbreviation such as "e.g.". Nothing is removed from inside it:
    underscores, dots and parentheses of identifiers stay.
    """
    for match in _BREAK.finditer(text):
        before = text[: match.start()]
        if not before.lower().endswith(_ABBREVIATIONS):
            return before.strip()
    return text.strip()


def _cited_sentence(text: str, number: int) -> str:
    """Return the first sentence of a snippet, cited: `<sentence> [n].`.

    Identifiers stay whole (underscores, dots and parentheses are kept); a
    sentence longer than 240 characters is cut after a whole word and ends
    with "..." before its marker.
    """
    text = " ".join(MARKER.sub("", text).replace("**", "").split())
    sentence = shorten(first_sentence(text), 240)
    if sentence.endswith("..."):
        return f"{sentence} [{number}]"
    return f"{sentence.rstrip('.!?:;, ')} [{number}]."


def report_text(system: str) -> str:
    """Write the offline report from the findings listed in the report prompt.

    Per question: the first sentence of up to two of its sources not quoted
    yet, each cited; when every source of a question was quoted for an
    earlier one, a pointer to those sources; without sources, "Unanswered".
    """
    questions: list[tuple[int, str, list[tuple[int, str]]]] = []
    snippet_for: dict[int, str] = {}
    current: list[tuple[int, str]] | None = None
    last_number: int | None = None
    for line in system.splitlines():
        if match := _QUESTION.match(line):
            current = []
            questions.append((int(match.group(1)), match.group(2), current))
            last_number = None
        elif (match := _SOURCE.match(line)) and current is not None:
            last_number = int(match.group(1))
            current.append((last_number, match.group(2)))
        elif line.startswith("    ") and last_number is not None:
            snippet_for.setdefault(last_number, line.strip())
    parts = [
        "This is the offline demo model's research report, written only from "
        "the search results."
    ]
    quoted_sources: set[int] = set()
    for number, question, sources in questions:
        fresh = [(n, title) for n, title in sources if n not in quoted_sources][:2]
        if fresh:
            sentences = " ".join(
                _cited_sentence(snippet_for.get(n) or title, n) for n, title in fresh
            )
            quoted_sources.update(n for n, _ in fresh)
        elif sources:
            markers = "".join(f"[{n}]" for n, _ in sources[:2])
            sentences = f"The sources quoted above cover this question too {markers}."
        else:
            sentences = (
                "Unanswered: the searches found nothing that answers this question."
            )
        parts.append(f"**{number}. {question}** {sentences}")
    return "\n\n".join(parts)
