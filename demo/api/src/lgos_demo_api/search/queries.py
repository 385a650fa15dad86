"""Deterministic keyword queries, for the offline model's scripted searches."""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "keyword_query"]

STOPWORDS = frozenset(
    """
    a about after all also an and any are as at be been before between both but
    by can could did do does doing done each else for from get give has have how
    i if in into is it its me more most my no not of on one or other our out over
    please same should so some such tell than that the their them then there
    these they this those through to too under up use used uses using very was
    we were what when where which while who why will with without would you your
    search web find look latest news compare comparison versus vs research
    recent current show explain regarding document documented sources involved
    reported
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words left out of keyword queries."""

_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9+]|[a-z0-9]")


def keyword_query(text: str, limit: int = 8) -> str:
    """Reduce text to a keyword query: its first `limit` non-stop words.

    Words are lower-cased and kept in order, without repeats.

    Example:
        `keyword_query("How does LangGraph pause for approval?")` returns
        `"langgraph pause approval"`.

    """
    words: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS or word in words:
            continue
        words.append(word)
        if len(words) == limit:
            break
    return " ".join(words)
