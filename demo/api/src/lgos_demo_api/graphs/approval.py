"""The `approval` graph: a refund request waits for a human decision.

`START -> review (one Send per reviewer) -> decide -> END`. Each `review`
invocation pauses with one `interrupt()`::

    {"question": "...", "choices": ["approve", "reject"], "allow_other": True,
     "reviewer": "manager"}

which LGOS serves as an `lgos_interrupt` function call. The client answers
with `approve`, `reject` or any other text, which the graph treats as the
reviewer's instructions. With the `parallel_review` setting two reviewers
(manager and finance) are asked at once: two `Send` branches, two interrupts
in one paused Response, answered together in one resume.

`decide` then asks the model to write the outcome from the decisions (the
only model call; it streams). The offline stand-in, `approval_responder`,
reads the decisions from the prompt and writes a fixed, deterministic
summary, so the answer visibly reflects every decision.

A resumed `review` restarts from its beginning, so it does nothing before
`interrupt()`; the graph has no other side effects.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send, interrupt
from pydantic import Field

from langgraph_openai_serve import ClientSettings, GraphConfig, GraphFeature
from lgos_demo_api.models import answered_by, chat_model
from lgos_demo_api.offline import default_responder
from lgos_demo_api.settings import DemoApiSettings

if TYPE_CHECKING:
    from langgraph_openai_serve.server import ServerResources

__all__ = [
    "APPROVE",
    "DECIDE_INSTRUCTIONS",
    "REJECT",
    "ApprovalSettings",
    "Decision",
    "approval_graph_config",
    "approval_responder",
    "build_approval_graph",
    "classify",
    "review_payload",
]

APPROVE = "approve"
REJECT = "reject"
DecisionKind = Literal["approve", "reject", "instructions"]

REVIEWERS_ONE = ("manager",)
REVIEWERS_TWO = ("manager", "finance")

DECIDE_INSTRUCTIONS = (
    "You report the outcome of a refund approval. The user's message is the "
    "request; the reviewers decided as listed below. A decision that is "
    "neither approve nor reject is the reviewer's instructions: the request "
    "goes ahead only as those instructions say. Reply in two or three "
    "sentences: the outcome first, then what happens next.\n"
    "Reviewer decisions:"
)
"""The first line of `decide`'s system prompt; one `- reviewer: ...` line per
decision follows (see `decision_lines`)."""

_NO_REQUEST = "(no request text)"


class ApprovalSettings(ClientSettings):
    """Public runtime settings of the `approval` graph (its context)."""

    parallel_review: bool = Field(
        default=False,
        title="Two reviewers in parallel",
        description=(
            "Ask the manager and finance at the same time: two questions in "
            "one pause, answered together."
        ),
    )


class Decision(TypedDict):
    """One reviewer's answer, as `interrupt()` returned it."""

    reviewer: str
    answer: str


class ApprovalState(MessagesState):
    """The conversation plus every reviewer's decision of this run."""

    decisions: Annotated[list[Decision], operator.add]


class ReviewTask(TypedDict):
    """What one `review` branch receives through `Send`."""

    reviewer: str
    request: str


def classify(answer: str) -> DecisionKind:
    """Read an answer: `approve`, `reject` (any case), else instructions."""
    text = answer.strip().casefold()
    if text == APPROVE:
        return "approve"
    if text == REJECT:
        return "reject"
    return "instructions"


def _request_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            text = " ".join(str(message.text).split())
            return text or _NO_REQUEST
    return _NO_REQUEST


def _shorten(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def review_payload(reviewer: str, request: str, *, parallel: bool) -> dict[str, Any]:
    """Build the interrupt payload one reviewer is asked with.

    Args:
        reviewer: `manager` or `finance`.
        request: The user's request text.
        parallel: Whether another reviewer is asked at the same time (the
            question then names the reviewer).

    Returns:
        `{"question", "choices": ["approve", "reject"], "allow_other": True,
        "reviewer"}`.

    """
    who = f"**{reviewer.capitalize()} review** — " if parallel else ""
    return {
        "question": f"{who}Approve this refund request?\n\n> {_shorten(request)}",
        "choices": [APPROVE, REJECT],
        "allow_other": True,
        "reviewer": reviewer,
    }


def decision_lines(decisions: Sequence[Decision]) -> list[str]:
    """One prompt line per decision: `- manager: approve` or with instructions."""
    lines = []
    for decision in sorted(decisions, key=lambda d: d["reviewer"]):
        kind = classify(decision["answer"])
        if kind == "instructions":
            quoted = json.dumps(decision["answer"].strip(), ensure_ascii=False)
            lines.append(f"- {decision['reviewer']}: instructions: {quoted}")
        else:
            lines.append(f"- {decision['reviewer']}: {kind}")
    return lines


def _parse_decisions(prompt: str) -> list[tuple[str, DecisionKind, str]]:
    parsed: list[tuple[str, DecisionKind, str]] = []
    for line in prompt.splitlines():
        if not line.startswith("- ") or ": " not in line:
            continue
        reviewer, _, rest = line[2:].partition(": ")
        if rest in (APPROVE, REJECT):
            parsed.append((reviewer, classify(rest), ""))
        elif rest.startswith("instructions: "):
            try:
                text = json.loads(rest.removeprefix("instructions: "))
            except ValueError:
                continue
            parsed.append((reviewer, "instructions", str(text)))
    return parsed


def approval_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> AIMessage | str:
    """Offline stand-in for `decide`: a fixed summary of the decisions.

    Reads the `- reviewer: ...` lines of the `DECIDE_INSTRUCTIONS` prompt.
    Any rejection rejects the request; otherwise instructions make it go
    ahead "as instructed" (quoted), and approvals alone approve it. Any other
    prompt gets `default_responder`'s answer.
    """
    prompt = next(
        (
            str(m.text)
            for m in messages
            if isinstance(m, SystemMessage)
            and str(m.text).startswith(DECIDE_INSTRUCTIONS)
        ),
        None,
    )
    if prompt is None:
        return default_responder(messages, tools, tool_choice)
    decisions = _parse_decisions(prompt)
    request = _shorten(_request_text(messages), 120)
    rejected = [r for r, kind, _ in decisions if kind == "reject"]
    instructed = [(r, text) for r, kind, text in decisions if kind == "instructions"]
    if rejected:
        outcome = (
            f"**Rejected.** The refund request “{request}” was rejected by "
            f"{_names(rejected)}. No refund is issued; the customer is told why."
        )
    elif instructed:
        notes = "; ".join(f"{r}: “{text}”" for r, text in instructed)
        outcome = (
            f"**Approved with instructions.** The refund request “{request}” "
            f"goes ahead as instructed ({notes}). The refund is issued once "
            "those instructions are followed."
        )
    elif decisions:
        outcome = (
            f"**Approved.** The refund request “{request}” was approved by "
            f"{_names([r for r, _, _ in decisions])}. The refund is on its way."
        )
    else:
        outcome = f"**No decision.** Nobody reviewed the request “{request}”."
    return outcome


_REVIEWER_NAMES = {"manager": "the manager", "finance": "the finance reviewer"}


def _names(reviewers: Sequence[str]) -> str:
    """Name reviewers in a sentence: "the manager and the finance reviewer"."""
    order = {reviewer: index for index, reviewer in enumerate(REVIEWERS_TWO)}
    ordered = sorted(reviewers, key=lambda r: (order.get(r, len(order)), r))
    names = [_REVIEWER_NAMES.get(r, f"the {r} reviewer") for r in ordered]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def build_approval_graph(
    model: BaseChatModel, *, checkpointer: BaseCheckpointSaver | None = None
) -> Any:
    """Compile the `approval` graph around a chat model.

    Args:
        model: Writes the outcome in `decide` (streams).
        checkpointer: An async checkpointer; LGOS requires one for a graph
            with `GraphFeature.INTERRUPTS` (the server's in production,
            `InMemorySaver` in tests).

    Returns:
        The compiled graph, named `approval`, with
        `context_schema=ApprovalSettings`.

    """

    def fan_out(state: ApprovalState, runtime: Runtime[ApprovalSettings]) -> list[Send]:
        settings = runtime.context or ApprovalSettings()
        reviewers = REVIEWERS_TWO if settings.parallel_review else REVIEWERS_ONE
        request = _request_text(state["messages"])
        return [
            Send("review", ReviewTask(reviewer=r, request=request)) for r in reviewers
        ]

    def review(state: ReviewTask, runtime: Runtime[ApprovalSettings]) -> dict[str, Any]:
        settings = runtime.context or ApprovalSettings()
        answer = interrupt(
            review_payload(
                state["reviewer"], state["request"], parallel=settings.parallel_review
            )
        )
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return {"decisions": [Decision(reviewer=state["reviewer"], answer=text)]}

    async def decide(state: ApprovalState) -> dict[str, Any]:
        prompt = "\n".join([DECIDE_INSTRUCTIONS, *decision_lines(state["decisions"])])
        request = HumanMessage(_request_text(state["messages"]))
        answer = await model.ainvoke([SystemMessage(prompt), request])
        return {"messages": [answer]}

    builder = StateGraph(ApprovalState, context_schema=ApprovalSettings)
    builder.add_node("review", review)
    builder.add_node("decide", decide)
    builder.add_conditional_edges(START, fan_out, ["review"])
    builder.add_edge("review", "decide")
    builder.add_edge("decide", END)
    return builder.compile(checkpointer=checkpointer, name="approval")


def approval_graph_config(
    settings: DemoApiSettings, resources: ServerResources
) -> GraphConfig:
    """Register `approval` with the server's checkpointer.

    Args:
        settings: The demo settings (`chat_model` picks OpenAI or offline;
            offline, the model plays `approval_responder`).
        resources: The server's resources; the graph is compiled with their
            checkpointer so a pause survives between requests.

    Returns:
        A `GraphConfig` with `GraphFeature.INTERRUPTS` and `ApprovalSettings`.

    """
    return GraphConfig(
        graph=build_approval_graph(
            chat_model(settings, responder=approval_responder),
            checkpointer=resources.checkpointer,
        ),
        description=(
            "Refund approval with a human in the loop: the graph pauses to ask "
            "you to approve or reject the request, or to write instructions, "
            "then reports the outcome. Turn on “Two reviewers in parallel” to "
            f"be asked twice at once. {answered_by(settings)}"
        ),
        features=frozenset({GraphFeature.INTERRUPTS}),
        client_settings=ApprovalSettings,
    )
