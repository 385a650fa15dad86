"""A few bundled passages and a keyword retriever for the `citations` graph.

The passages are short summaries, written for this demo, of LangGraph and
OpenAI API concepts, each linked to the public page it summarises. Retrieval
is deliberately simple and deterministic: keyword overlap weighted by how rare
a word is in the corpus, with a bonus for words in the title.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["PASSAGES", "Passage", "retrieve", "terms"]


@dataclass(frozen=True, slots=True)
class Passage:
    """One retrievable passage.

    Attributes:
        title: Shown in the answer's sources.
        url: The public page the passage summarises.
        text: The passage, a few sentences.

    """

    title: str
    url: str
    text: str


PASSAGES: tuple[Passage, ...] = (
    Passage(
        title="LangGraph: state, nodes and edges",
        url="https://langchain-ai.github.io/langgraph/concepts/low_level/",
        text=(
            "A LangGraph graph is built from a shared state, nodes that read and "
            "update it, and edges that decide which node runs next. Each node "
            "returns a partial update, and reducers such as add_messages merge it "
            "into the state. A graph is compiled before it runs."
        ),
    ),
    Passage(
        title="LangGraph streaming",
        url="https://langchain-ai.github.io/langgraph/concepts/streaming/",
        text=(
            "LangGraph streams a run in several modes at once: messages yields "
            "model tokens as they are generated, custom carries whatever a node "
            "writes with get_stream_writer, and values yields the whole state "
            "after each step. Model calls tagged nostream are left out of the "
            "messages stream."
        ),
    ),
    Passage(
        title="LangGraph persistence and checkpointers",
        url="https://langchain-ai.github.io/langgraph/concepts/persistence/",
        text=(
            "A checkpointer saves the graph state after every step of a thread. "
            "Persistence is what makes human-in-the-loop interrupts, time travel "
            "and recovery from failures possible. Without a checkpointer every "
            "run starts from the input it is given."
        ),
    ),
    Passage(
        title="OpenAI Responses API",
        url="https://platform.openai.com/docs/api-reference/responses",
        text=(
            "The Responses API turns text or a list of input items into a model "
            "response whose output is a list of items, such as assistant messages "
            "and function calls. With stream set to true it sends server-sent "
            "events describing each item while it is built. A response ends "
            "completed, incomplete or failed."
        ),
    ),
    Passage(
        title="OpenAI function calling",
        url="https://platform.openai.com/docs/guides/function-calling",
        text=(
            "With function calling the client describes its own functions in JSON "
            "Schema and the model may answer with calls to them. The client runs "
            "each call and sends the result back as a function_call_output item "
            "with the same call_id. The tool_choice field forbids, allows or "
            "requires calls."
        ),
    ),
    Passage(
        title="OpenAI Chat Completions",
        url="https://platform.openai.com/docs/api-reference/chat",
        text=(
            "The Chat Completions API takes a list of role-tagged messages and "
            "returns choices holding the assistant message. Streamed completions "
            "arrive as chunks carrying deltas of that message and end with a "
            "data: [DONE] line. Tool calls appear as tool_calls on the assistant "
            "message."
        ),
    ),
    Passage(
        title="Citations with url_citation annotations",
        url="https://platform.openai.com/docs/guides/tools-web-search",
        text=(
            "An answer that cites sources marks each citation with a url_citation "
            "annotation on its output text. The annotation carries the URL, the "
            "title and the start and end index of the cited span, so a client can "
            "link the span or list the sources under the answer."
        ),
    ),
)
"""The bundled corpus, in a fixed order (ties in retrieval keep it)."""

_STOPWORDS = frozenset(
    """
    a about after all also an and any are as at be been before but by can could
    did do does doing done each else for from get gets give has have how i if
    in into is it its me more most my no not of on one or other our out over
    please same so some such tell than that the their them then there these
    they this those through to too under up use used uses using very was we
    were what when where which while who why will with without would you your
    run runs running work works working time times way thing things need want
    like know show make
    """.split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that match no passage, including everyday verbs and nouns ("run",
"work", "time") whose passing use in a passage ("runs next", "time travel")
says nothing about the question: "What time is it in Tokyo?" finds nothing."""
_WORD = re.compile(r"[a-z0-9_]+")


def _stem(word: str) -> str:
    for suffix, minimum in (("ing", 6), ("ed", 5), ("es", 5), ("s", 4)):
        if word.endswith(suffix) and len(word) >= minimum:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> set[str]:
    """Return the searchable terms of a text.

    Lower-cased words of at least three characters, without stop words, with
    a light suffix stemming ("streaming" and "streams" both become "stream").
    """
    return {
        _stem(word)
        for word in _WORD.findall(text.lower())
        if len(word) >= 3 and word not in _STOPWORDS
    }


def retrieve(
    question: str,
    limit: int = 3,
    corpus: Sequence[Passage] = PASSAGES,
    *,
    cutoff: float = 0.6,
) -> list[Passage]:
    """Find the passages that best match a question.

    A passage scores, for each question term it contains, `ln(1 + N / df)`
    (`N` passages, `df` of them contain the term), counted once more when the
    term is also in its title. Passages scoring less than `cutoff` times the
    best score, or nothing at all, are dropped.

    Args:
        question: The user's question.
        limit: The most passages to return.
        corpus: The passages to search.
        cutoff: The fraction of the best score a passage needs.

    Returns:
        Up to `limit` passages, best first (ties keep corpus order); empty
        when no passage shares a term with the question.

    """
    wanted = terms(question)
    indexed = [
        (passage, terms(passage.text), terms(passage.title)) for passage in corpus
    ]
    scores: list[tuple[float, int]] = []
    for position, (_, body, title) in enumerate(indexed):
        score = 0.0
        for term in wanted & (body | title):
            frequency = sum(term in b or term in t for _, b, t in indexed)
            weight = math.log(1 + len(corpus) / frequency)
            score += weight * (2 if term in title else 1)
        if score > 0:
            scores.append((score, position))
    if not scores:
        return []
    best = max(score for score, _ in scores)
    ranked = sorted(
        (item for item in scores if item[0] >= cutoff * best),
        key=lambda item: (-item[0], item[1]),
    )
    return [corpus[position] for _, position in ranked[:limit]]
