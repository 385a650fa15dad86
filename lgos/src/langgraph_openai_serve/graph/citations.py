"""Citation spans: OpenAI's inclusive ``end_index`` as a validated slice."""

from __future__ import annotations

from langgraph_openai_serve.errors import GraphError

__all__ = ["citation_slice"]


def citation_slice(start_index: int, end_index: int, content: str) -> slice:
    """Return the Python slice of an inclusive citation span within ``content``.

    Rule source: OpenAI's ``url_citation`` annotation, whose ``end_index`` is
    the index of the cited span's last character.

    Usage::

        text = "Read the source [1]."
        text[citation_slice(9, 14, text)]  # "source"

    Raises:
        GraphError: The span is empty, reversed, or outside ``content``.

    """
    stop = end_index + 1
    if not 0 <= start_index < stop <= len(content):
        msg = (
            f"Citation span [{start_index}, {end_index}] does not fit the "
            f"{len(content)}-character assistant text."
        )
        raise GraphError(msg)
    return slice(start_index, stop)
