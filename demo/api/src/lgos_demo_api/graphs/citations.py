"""The `citations` graph: answers from bundled passages, with cited sources.

`retrieve` picks the best passages of the tiny bundled corpus
(`lgos_demo_api.passages`) for the latest question; `answer` gives them to the
model, numbered, and asks for an answer that cites them with inline markers
such as `[1]`. The model's text streams with its markers renumbered in the
order it first cites them (`lgos_demo_api.search.renumber`: `[1]`, `[2]`,
... with no gaps); the graph then finds the markers *in code* and attaches
one LangChain citation per marker (span = the marker itself, `end_index`
inclusive, as LGOS and OpenAI expect), which LGOS serves as `url_citation`
annotations. A model never computes offsets.

When no passage matches, the graph refuses (a `refusal` content block)
instead of answering without sources.

The offline stand-in, `citations_responder`, answers with the first sentence
of each passage it was given, each followed by its marker.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NotRequired

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.content import create_text_block
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from pydantic import Field

from langgraph_openai_serve import ClientSettings, GraphConfig, status_event
from lgos_demo_api.graphs.transcript import latest_user_text, system_text
from lgos_demo_api.models import answered_by, chat_model
from lgos_demo_api.offline import default_responder
from lgos_demo_api.passages import PASSAGES, Passage, retrieve
from lgos_demo_api.search import citing
from lgos_demo_api.search.renumber import MarkerRenumbering, RenumberedChatModel
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "ANSWER_INSTRUCTIONS",
    "MARKER",
    "NO_SOURCES_REFUSAL",
    "CitationsSettings",
    "CitationsState",
    "build_citations_graph",
    "citations_graph_config",
    "citations_responder",
    "cite_markers",
    "format_passages",
]

ANSWER_INSTRUCTIONS = (
    "Answer the user's question using only the numbered passages below. After "
    "each sentence that uses a passage, write its number in square brackets, "
    "like [1]; write [1][2] when a sentence uses two passages. Do not list the "
    "sources at the end.\n\nPassages:\n\n{passages}"
)

NO_SOURCES_REFUSAL = (
    "I can only answer from my bundled passages, and none of them covers this "
    "question. Ask me about LangGraph (state, nodes and edges; streaming; "
    "persistence) or about the OpenAI API (Responses, Chat Completions, "
    "function calling, url_citation annotations)."
)

MARKER = citing.MARKER
"""An inline citation marker: `[1]` ... `[99]` (shared with web search)."""

_PASSAGE_ENTRY = re.compile(r"^\[(\d+)\] (.+) \((\S+)\)\n(.+)$", re.MULTILINE)


class CitationsSettings(ClientSettings):
    """Public runtime settings of the `citations` graph (its LangGraph context)."""

    sources: int = Field(
        default=3,
        ge=1,
        le=5,
        title="Passages",
        description="The most bundled passages to retrieve and cite per answer.",
    )


class CitationsState(MessagesState):
    """`messages` plus the passages retrieved for the latest question."""

    passages: NotRequired[list[Passage]]


CitationsGraph = CompiledStateGraph[
    CitationsState, CitationsSettings, CitationsState, CitationsState
]
"""The compiled `citations` graph type."""


def format_passages(passages: Sequence[Passage]) -> str:
    """Format the passages, numbered, for the model's prompt.

    Each passage is two lines, `[n] <title> (<url>)` then its text, with a
    blank line between passages; `n` counts from 1.
    """
    return "\n\n".join(
        f"[{number}] {passage.title} ({passage.url})\n{passage.text}"
        for number, passage in enumerate(passages, start=1)
    )


def cite_markers(text: str, passages: Sequence[Passage]) -> list[dict[str, Any]]:
    """Build one LangChain citation per `[n]` marker that names a passage.

    Args:
        text: The answer text.
        passages: The passages the answer was written from; `[n]` cites
            `passages[n - 1]`. Markers naming no passage are left uncited.

    Returns:
        `create_citation(...)` blocks in text order, each spanning its marker:
        `start_index` is the `[`, `end_index` (inclusive) the `]`, and
        `cited_text` the marker. Every span is checked with LGOS's
        `citation_slice`.

    """
    return citing.cite_markers(text, passages)


def _cited_answer(reply: BaseMessage, passages: Sequence[Passage]) -> AIMessage:
    """Return the model's answer with citations attached to its markers.

    The text is kept exactly as the model wrote (and streamed) it; only the
    content's shape changes, to one text block with annotations. Metadata
    (finish reason, usage) and the message ID are kept.
    """
    assert isinstance(reply, AIMessage)
    text = reply.text
    citations = cite_markers(text, passages)
    if not citations:
        return reply
    return AIMessage(
        content=[create_text_block(text, annotations=citations)],  # type: ignore[list-item]
        id=reply.id,
        response_metadata=reply.response_metadata,
        usage_metadata=reply.usage_metadata,
    )


def build_citations_graph(model: BaseChatModel) -> CitationsGraph:
    """Compile the `citations` graph around a chat model.

    `START -> retrieve -> answer -> END` over `CitationsState`, with
    `context_schema=CitationsSettings`. `retrieve` publishes two status
    updates (searching, then what it found) and keeps up to `sources`
    passages. `answer` refuses when there are none; otherwise it streams the
    model's answer and appends it with citations (see `cite_markers`).

    Args:
        model: Any LangChain chat model (`ChatOpenAI`, `OfflineChatModel`, ...).

    Returns:
        The compiled graph, named `citations`, without a checkpointer.

    """

    async def retrieve_passages(
        state: CitationsState, runtime: Runtime[CitationsSettings]
    ) -> dict[str, Any]:
        settings = runtime.context or CitationsSettings()
        write = get_stream_writer()
        write(status_event(f"Searching {len(PASSAGES)} bundled passages"))
        passages = retrieve(latest_user_text(state["messages"]), settings.sources)
        if passages:
            noun = "passage" if len(passages) == 1 else "passages"
            titles = "; ".join(passage.title for passage in passages)
            write(status_event(f"Found {len(passages)} {noun}: {titles}"))
        else:
            write(status_event("No bundled passage matches the question"))
        return {"passages": passages}

    async def answer(state: CitationsState) -> dict[str, Any]:
        passages = state.get("passages", [])
        if not passages:
            refusal = AIMessage(
                content=[{"type": "refusal", "refusal": NO_SOURCES_REFUSAL}]
            )
            return {"messages": [refusal]}
        prompt = ANSWER_INSTRUCTIONS.format(passages=format_passages(passages))
        # Markers are renumbered 1..n in first-citation order as they stream.
        renumbering = MarkerRenumbering(len(passages))
        writer = RenumberedChatModel(inner=model, renumbering=renumbering)
        reply = await writer.ainvoke(
            [SystemMessage(prompt), HumanMessage(latest_user_text(state["messages"]))]
        )
        return {"messages": [_cited_answer(reply, renumbering.reorder(passages))]}

    builder = StateGraph(CitationsState, context_schema=CitationsSettings)
    builder.add_node("retrieve", retrieve_passages)
    builder.add_node("answer", answer)
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "answer")
    builder.add_edge("answer", END)
    return builder.compile(name="citations")


def _first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]
    return sentence.rstrip(".!?")


def citations_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Play the offline model for the `citations` graph, deterministically.

    Reads the numbered passages from the system prompt (as `format_passages`
    wrote them) and answers with one sentence per passage: its first
    sentence followed by its marker, e.g. `... runs next [1].`. Without
    passages in the prompt it answers like `default_responder`.
    """
    system = system_text(messages)
    entries = _PASSAGE_ENTRY.findall(system)
    if not entries:
        return default_responder(messages, tools, tool_choice)
    noun = "passage" if len(entries) == 1 else "passages"
    sentences = [
        f"{_first_sentence(text)} [{number}]." for number, _, _, text in entries
    ]
    return (
        f"This is the offline demo model, answering from {len(entries)} bundled "
        f"{noun}. " + " ".join(sentences)
    )


def citations_graph_config(settings: DemoApiSettings) -> GraphConfig:
    """Register the `citations` graph with the model the settings select.

    Args:
        settings: The demo settings (`chat_model` picks OpenAI or offline; the
            offline model plays `citations_responder`).

    Returns:
        A `GraphConfig` with `CitationsSettings` as client settings.

    """
    return GraphConfig(
        graph=build_citations_graph(
            chat_model(settings, responder=citations_responder)
        ),
        description=(
            "Answers questions about LangGraph and the OpenAI API from a small "
            "bundled set of passages, with numbered citations and a list of "
            "sources; it refuses questions the passages do not cover. "
            f"{answered_by(settings)}"
        ),
        client_settings=CitationsSettings,
    )
