"""Turn search results into numbered sources, and `[n]` markers into citations.

Graphs give the model the sources numbered (`format_sources`), ask it to mark
each claim with the number of its source, and then find the markers *in code*
(`with_citations`): every `[n]` naming a source becomes a LangChain citation
spanning the marker, with that source's exact URL and title. LGOS serves them
as `url_citation` annotations. Only URLs the search tool returned can be
cited, and the model never computes offsets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.content import create_citation, create_text_block

from langgraph_openai_serve.graph.citations import citation_slice
from lgos_demo_api.search.base import SearchResult

__all__ = [
    "MARKER",
    "cite_markers",
    "format_sources",
    "parse_sources",
    "search_sources",
    "with_citations",
]

MARKER = re.compile(r"\[(\d{1,2})\]")
"""An inline source marker, `[1]` to `[99]`."""

_SOURCE_LINE = re.compile(r"^\[(\d+)\] (.+) <(\S+)>$", re.MULTILINE)


def search_sources(
    messages: Iterable[BaseMessage], *, tool_name: str = "web_search"
) -> list[SearchResult]:
    """Collect the sources of successful searches, in order, without repeats.

    Args:
        messages: Messages holding `ToolMessage`s of the search tool, whose
            artifact is `{"sources": [{"url", "title", "snippet"}]}`.
        tool_name: The search tool's name.

    Returns:
        One `SearchResult` per distinct URL, in order of first appearance.

    """
    found: list[SearchResult] = []
    seen: set[str] = set()
    for message in messages:
        if not isinstance(message, ToolMessage) or message.name not in (
            tool_name,
            None,
        ):
            continue
        if message.status == "error" or not isinstance(message.artifact, dict):
            continue
        for source in message.artifact.get("sources") or []:
            url = source.get("url") if isinstance(source, dict) else None
            if not isinstance(url, str) or not url or url in seen:
                continue
            seen.add(url)
            found.append(
                SearchResult(
                    url=url,
                    title=str(source.get("title") or url),
                    snippet=str(source.get("snippet") or ""),
                )
            )
    return found


def format_sources(sources: Sequence[SearchResult], *, start: int = 1) -> str:
    """List the sources, numbered, for a prompt.

    Each source is `[n] <title> <url>` on one line, then its snippet on the
    next (when it has one).
    """
    lines: list[str] = []
    for number, source in enumerate(sources, start=start):
        lines.append(f"[{number}] {source.title} <{source.url}>")
        if source.snippet:
            lines.append(f"    {source.snippet}")
    return "\n".join(lines)


def parse_sources(text: str) -> dict[int, tuple[str, str]]:
    """Read back what `format_sources` wrote: `{n: (title, url)}`."""
    return {
        int(number): (title, url) for number, title, url in _SOURCE_LINE.findall(text)
    }


class Citable(Protocol):
    """Anything with a URL and a title: a search result or a bundled passage."""

    @property
    def url(self) -> str: ...

    @property
    def title(self) -> str: ...


def cite_markers(
    text: str, sources: Sequence[Citable], *, start: int = 1
) -> list[dict[str, Any]]:
    """Build one LangChain citation per `[n]` marker that names a source.

    Args:
        text: The answer text.
        sources: The sources as numbered in the prompt.
        start: The number of `sources[0]`.

    Returns:
        `create_citation(...)` blocks in text order; each spans its marker
        (`start_index` at `[`, inclusive `end_index` at `]`), checked with
        LGOS's `citation_slice`. Markers naming no source are left alone.

    """
    citations: list[dict[str, Any]] = []
    for match in MARKER.finditer(text):
        index = int(match.group(1)) - start
        if not 0 <= index < len(sources):
            continue
        source = sources[index]
        first, last = match.start(), match.end() - 1
        citation_slice(first, last, text)  # raises GraphError when out of range
        citations.append(
            dict(
                create_citation(
                    url=source.url,
                    title=source.title,
                    start_index=first,
                    end_index=last,
                    cited_text=match.group(0),
                )
            )
        )
    return citations


def with_citations(
    reply: BaseMessage, sources: Sequence[SearchResult], *, start: int = 1
) -> AIMessage:
    """Return the model's reply with citations attached to its markers.

    The text stays exactly as the model wrote (and streamed) it; its text
    blocks become one text block with annotations, in the place of the first
    (other blocks, such as reasoning, are kept). ID, metadata, usage and tool
    calls are kept. Replies without citable markers, and refusals, are
    returned unchanged.
    """
    if not isinstance(reply, AIMessage):
        msg = f"Expected an AIMessage, got {type(reply).__name__}."
        raise TypeError(msg)
    blocks = (
        [{"type": "text", "text": reply.content}]
        if isinstance(reply.content, str)
        else list(reply.content)
    )
    if any(isinstance(b, dict) and b.get("type") == "refusal" for b in blocks):
        return reply
    text = reply.text
    citations = cite_markers(text, sources, start=start)
    if not citations:
        return reply
    annotated = create_text_block(text, annotations=citations)  # type: ignore[arg-type]
    content: list[Any] = []
    for block in blocks:
        is_text = isinstance(block, str) or (
            isinstance(block, dict) and block.get("type") in ("text", "output_text")
        )
        if not is_text:
            content.append(block)
        elif annotated is not None:
            content.append(annotated)
            annotated = None
    return reply.model_copy(update={"content": content})
