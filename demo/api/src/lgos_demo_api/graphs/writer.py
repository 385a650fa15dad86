"""The `writer` graph: outline → draft → polish, with visible progress.

A multi-step graph that does visibly long work. Each step publishes a status
update (`status_event`), which a streaming Responses client receives as a
`phase="commentary"` message while the graph keeps working; only the last
step's model call, the polished answer, streams as the `final_answer`.

The outline and draft calls are private: they are made with
`model.with_config(tags=[TAG_NOSTREAM])`, so LangGraph leaves their tokens out
of the `messages` stream and LGOS never mixes them into the answer.

With the offline model, `writer_responder` plays every step deterministically
(it reads which step it is from the step's system prompt); with a real model
the same prompts produce real prose.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any, Literal, NotRequired

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from pydantic import Field

from langgraph_openai_serve import ClientSettings, GraphConfig, status_event
from lgos_demo_api.models import answered_by, chat_model
from lgos_demo_api.offline import default_responder
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "DRAFT_INSTRUCTIONS",
    "OUTLINE_INSTRUCTIONS",
    "POLISH_INSTRUCTIONS",
    "WriterSettings",
    "WriterState",
    "build_writer_graph",
    "parse_outline",
    "writer_graph_config",
    "writer_responder",
]

OUTLINE_INSTRUCTIONS = (
    "You plan answers. List exactly {count} short section headings for an "
    "answer to the user's question, one per line, with no numbering and no "
    "other text."
)
DRAFT_INSTRUCTIONS = (
    "You draft one section of an answer. Write two or three plain sentences "
    'for the section "{heading}" of an answer to the user\'s question. Reply '
    "with the sentences only."
)
POLISH_INSTRUCTIONS = (
    "You edit answers. Turn the draft below into one clear Markdown answer to "
    "the user's question, keeping each section under its `###` heading. Reply "
    "with the answer only.\n\nDraft:\n\n{draft}"
)

_NO_QUESTION = "(no question)"


class WriterSettings(ClientSettings):
    """Public runtime settings of the `writer` graph (its LangGraph context)."""

    sections: int = Field(
        default=3,
        ge=1,
        le=5,
        title="Sections",
        description="How many sections the outline has; each is drafted in its "
        "own step.",
    )
    pace: float = Field(
        default=0.5,
        ge=0.0,
        le=3.0,
        title="Pause per step (seconds)",
        description="A pause before each step so the progress is easy to follow "
        "(the offline model answers instantly). 0 for none.",
    )


class WriterState(MessagesState):
    """`messages` plus the work in progress.

    Attributes:
        outline: The section headings, set by `outline`.
        sections: The drafted section texts, one per heading so far.

    """

    outline: NotRequired[list[str]]
    sections: NotRequired[list[str]]


WriterGraph = CompiledStateGraph[WriterState, WriterSettings, WriterState, WriterState]
"""The compiled `writer` graph type."""

_BULLET = re.compile(r"^\s*(?:[-*•#]+|\d+[.)])\s*")


def parse_outline(text: str, count: int) -> list[str]:
    """Read section headings from the outline step's reply.

    Args:
        text: The model's reply, one heading per line (bullets, numbering,
            Markdown heading marks and bold markers are removed).
        count: The most headings to keep.

    Returns:
        Up to `count` non-empty headings, in order.

    """
    headings = []
    for line in text.splitlines():
        heading = _BULLET.sub("", line).strip().strip("*_").strip()
        if heading:
            headings.append(heading)
    return headings[:count]


def _question(messages: Sequence[BaseMessage]) -> HumanMessage:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message
    return HumanMessage(_NO_QUESTION)


def build_writer_graph(model: BaseChatModel) -> WriterGraph:
    """Compile the `writer` graph around a chat model.

    `START -> outline -> draft (once per heading) -> polish -> END` over
    `WriterState`, with `context_schema=WriterSettings`. Every node first
    publishes a status update and pauses `pace` seconds. `outline` and
    `draft` call the model privately (tagged `TAG_NOSTREAM`); `polish` calls
    it normally, so its answer streams, and appends it to `messages`.

    Args:
        model: Any LangChain chat model (`ChatOpenAI`, `OfflineChatModel`, ...).

    Returns:
        The compiled graph, named `writer`, without a checkpointer.

    """
    private = model.with_config(tags=[TAG_NOSTREAM])

    async def outline(
        state: WriterState, runtime: Runtime[WriterSettings]
    ) -> dict[str, Any]:
        settings = runtime.context or WriterSettings()
        noun = "section" if settings.sections == 1 else "sections"
        get_stream_writer()(
            status_event(f"Outlining the answer in {settings.sections} {noun}")
        )
        await asyncio.sleep(settings.pace)
        question = _question(state["messages"])
        prompt = OUTLINE_INSTRUCTIONS.format(count=settings.sections)
        reply = await private.ainvoke([SystemMessage(prompt), question])
        headings = parse_outline(reply.text, settings.sections) or [
            str(question.text)[:80]
        ]
        return {"outline": headings, "sections": []}

    async def draft(
        state: WriterState, runtime: Runtime[WriterSettings]
    ) -> dict[str, Any]:
        settings = runtime.context or WriterSettings()
        done = state.get("sections", [])
        headings = state.get("outline", [])
        heading = headings[len(done)]
        get_stream_writer()(
            status_event(
                f"Drafting section {len(done) + 1} of {len(headings)}: {heading}"
            )
        )
        await asyncio.sleep(settings.pace)
        prompt = DRAFT_INSTRUCTIONS.format(heading=heading)
        reply = await private.ainvoke(
            [SystemMessage(prompt), _question(state["messages"])]
        )
        return {"sections": [*done, reply.text.strip()]}

    def after_draft(state: WriterState) -> Literal["draft", "polish"]:
        done, headings = state.get("sections", []), state.get("outline", [])
        return "draft" if len(done) < len(headings) else "polish"

    async def polish(
        state: WriterState, runtime: Runtime[WriterSettings]
    ) -> dict[str, Any]:
        settings = runtime.context or WriterSettings()
        get_stream_writer()(status_event("Polishing the final answer"))
        await asyncio.sleep(settings.pace)
        draft = "\n\n".join(
            f"### {heading}\n\n{text}"
            for heading, text in zip(
                state.get("outline", []), state.get("sections", []), strict=True
            )
        )
        prompt = POLISH_INSTRUCTIONS.format(draft=draft)
        answer = await model.ainvoke(
            [SystemMessage(prompt), _question(state["messages"])]
        )
        return {"messages": [answer]}

    builder = StateGraph(WriterState, context_schema=WriterSettings)
    builder.add_node("outline", outline)
    builder.add_node("draft", draft)
    builder.add_node("polish", polish)
    builder.add_edge(START, "outline")
    builder.add_edge("outline", "draft")
    builder.add_conditional_edges("draft", after_draft)
    builder.add_edge("polish", END)
    return builder.compile(name="writer")


# --------------------------------------------------------------------------
# The offline stand-in for a real model
# --------------------------------------------------------------------------

_OFFLINE_HEADINGS = (
    "The basics",
    "How it works",
    "Why it matters",
    "Common pitfalls",
    "Where to go next",
)
_QUESTION_LEAD = re.compile(
    r"^(?:please\s+)?(?:(?:what|who|how|why|when|where|which)\s+"
    r"(?:is|are|was|were|does|do|did|can|could|should)\s+|explain\s+|describe\s+"
    r"|tell me about\s+|compare\s+|write(?:\s+(?:a|an)\s+\w+)?\s+(?:about|on)\s+)",
    re.IGNORECASE,
)
_HOW_IT_WORKS = re.compile(r"^(?:how\s+)?(.+?)\s+works?$", re.IGNORECASE)
_GREETING = re.compile(r"^(?:hi|hello|hey|thanks|thank you|good \w+)\b", re.I)
_TOPIC_WORDS = 6


def _topic(question: str) -> str | None:
    """Return the question's subject for a heading, or None when it has none.

    "What is a river delta?" is about "A river delta", "How do background
    runs work?" about "Background runs". Greetings, instructions with a colon
    or a comma, subjects not starting with a letter ("2 + 3") and subjects
    longer than six words give None (the heading is then "The basics").
    """
    text = " ".join(question.split())
    if not text or text == _NO_QUESTION or _GREETING.match(text):
        return None
    topic = _QUESTION_LEAD.sub("", text).rstrip("?.! ")
    if (works := _HOW_IT_WORKS.match(topic)) is not None:
        topic = works.group(1)
    words = topic.split()
    if not words or not topic[0].isalpha() or len(words) > _TOPIC_WORDS:
        return None
    if any(mark in topic for mark in ":,;?"):
        return None
    return topic[:1].upper() + topic[1:]


def writer_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Play the offline model for each `writer` step, deterministically.

    The step is recognised from the system prompt the graph wrote:

    - outline: the first `count` of "<Topic>: the basics", "How it works",
      "Why it matters", "Common pitfalls", "Where to go next", where
      `<Topic>` is the question's subject (see `_topic`); without one, the
      first heading is "The basics";
    - draft: two sentences naming the section being drafted;
    - polish: a one-line introduction followed by the draft it received.

    Any other prompt gets `default_responder`'s answer.
    """
    system = next((str(m.text) for m in messages if isinstance(m, SystemMessage)), "")
    question = str(_question(messages).text)
    if system.startswith(OUTLINE_INSTRUCTIONS.split("{", 1)[0]):
        found = re.search(r"exactly (\d+)", system)
        count = int(found.group(1)) if found else 3
        topic = _topic(question)
        first = f"{topic}: the basics" if topic else "The basics"
        return "\n".join([first, *_OFFLINE_HEADINGS[1:count]])
    if system.startswith(DRAFT_INSTRUCTIONS.split("{", 1)[0]):
        found = re.search(r'section "(.+?)" of an answer', system)
        heading = found.group(1) if found else "this section"
        return (
            f'This section ("{heading}") was drafted in a step of its own. Set '
            "a model key and each section becomes two or three sentences "
            "written for the question."
        )
    if system.startswith(POLISH_INSTRUCTIONS.split("{", 1)[0]):
        draft = system.split("Draft:\n\n", 1)[-1]
        sections = draft.count("### ")
        noun = "section" if sections == 1 else "sections"
        quoted = " ".join(question.split()).removesuffix(".")
        if len(quoted) > 80:
            quoted = quoted[:77].rsplit(" ", 1)[0].rstrip(" ,;:") + "..."
        return (
            f'Here is my answer to "{quoted}", outlined, drafted in {sections} '
            f"{noun} and polished in separate steps (the offline demo model "
            "scripts the prose).\n\n"
            f"{draft}"
        )
    return default_responder(messages, tools, tool_choice)


def writer_graph_config(settings: DemoApiSettings) -> GraphConfig:
    """Register the `writer` graph with the model the settings select.

    Args:
        settings: The demo settings (`chat_model` picks OpenAI or offline; the
            offline model plays `writer_responder`).

    Returns:
        A `GraphConfig` with `WriterSettings` as client settings.

    """
    return GraphConfig(
        graph=build_writer_graph(chat_model(settings, responder=writer_responder)),
        description=(
            "Writes an answer in visible steps: outline, one draft per section, "
            "then polish. Each step shows up as live progress (commentary) "
            "before the polished answer streams. "
            f"{answered_by(settings)}"
        ),
        client_settings=WriterSettings,
    )
