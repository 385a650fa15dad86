"""What `deep-research` says to the model and the user: prompts and review wording.

The graph (`lgos_demo_api.graphs.deep_research`) sends these; its offline
script (`lgos_demo_api.graphs.deep_research_offline`) recognises each step by
them. Both import this module, so neither imports the other.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ANSWER_NOW",
    "ANSWER_PROMPT",
    "FORCED_RESEARCH",
    "NEEDS_WEB_SEARCH",
    "REPORT_PROMPT",
    "RESEARCH_PROMPT",
    "REVISE_PLAN",
    "START_RESEARCH",
    "TRIAGE_PROMPT",
    "numbered",
    "review_question",
]

START_RESEARCH = "Start research"
"""The review answer that starts the researchers."""

ANSWER_NOW = "Answer now"
"""The review answer that skips the research and answers directly."""

TRIAGE_PROMPT = """\
You are the triage step of a deep-research assistant. Decide whether the \
user's latest request needs research on the web. Greetings, small talk, \
arithmetic and questions you can answer reliably without sources do not. \
Questions about recent developments, comparisons, and facts that need sources \
or several perspectives do.
When research is needed, propose 3 to 5 research questions that together \
answer the request. Each question is researched on its own, without the \
conversation: make it self-contained, naming every subject explicitly and \
stating the facts from the conversation it depends on, but no private details."""

FORCED_RESEARCH = (
    "Research is required for this request: set needs_research and propose a "
    "plan even if the request looks simple."
)

REVISE_PLAN = """\
Current plan:
{plan}
Revise the plan according to this request from the user: {edit}"""

RESEARCH_PROMPT = """\
You research one question on the web with the web_search tool. Call \
web_search with short keyword queries, several at once when they cover \
different angles. After each round of results, search again only if \
important parts of the question are still open, and work around failed \
searches with other queries; otherwise call no tool. Rounds of searches left: \
{rounds_left}."""

REPORT_PROMPT = """\
Write a research report that answers the user's request, using only the \
search results below; do not add facts from your own knowledge. Put the \
number of the source that supports a claim in square brackets right after it, \
like [3]. Cover every research question; when the results do not answer a \
question, say plainly that it remains unanswered. Write in Markdown.

Research questions and search results:

{findings}"""

ANSWER_PROMPT = """\
You are a helpful assistant. Answer the user's latest request directly and \
concisely. When one of your functions can answer it, call it; when function \
results arrive, answer with them."""

NEEDS_WEB_SEARCH = """\
This question needs research on the web, but web search is off for this \
request. Turn on Web search and ask again to start the research. The plan \
would research:

{plan}"""


def numbered(questions: Sequence[str]) -> str:
    """Return the questions numbered, one per line: `1. ...`."""
    return "\n".join(f"{n}. {q}" for n, q in enumerate(questions, start=1))


def review_question(plan: Sequence[str]) -> str:
    """Return the question the plan review asks, listing the plan."""
    return (
        f"I plan to research these questions:\n\n{numbered(plan)}\n\n"
        f"Reply {START_RESEARCH} to begin, {ANSWER_NOW} to get a direct answer "
        "without research, or describe how to change the plan."
    )
