"""The offline demo model reads well: every graph, a set of realistic prompts.

Without an API key the offline model is the demo's voice. Whatever a person
types (the README's and docs' examples included), no graph answers with a
placeholder ("A real model would answer it here"), doubled punctuation
(`?".`, `..`), template artefacts ("regarding", "Hello: the basics") or
awkward wording ("rejected by the finance"). These are properties of the
text, checked across graphs, not pinned answers.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from openai import AsyncOpenAI

from lgos_client.functions import LOCAL_FUNCTIONS
from lgos_demo_api.graphs.deep_research_offline import plan_for, triage_decision
from lgos_demo_api.offline import end_sentence, quoted

pytestmark = pytest.mark.anyio

PROMPTS = (
    "How do background runs work?",
    "Run lgos serve my_module:create_registry",
    "Hello!",
    "What is 2 + 3?",
    "Compare Chat Completions and the Responses API",
    "Explain how LangGraph streaming works.",
    "What time is it in Tokyo, and roll two dice?",
    "Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
    "Write about LangGraph",
)
RESEARCH_REQUESTS = (
    "Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
    "Research how LGOS uses PostgreSQL connection pools",
    "Compare Chat Completions and the Responses API",
    "What are the latest trends in LLM agents?",
    "What's the difference between LangGraph and CrewAI?",
    "LangGraph vs CrewAI: research",
    "How does LangGraph compare to the OpenAI Agents SDK? Research it.",
    "How do background runs work? Research it.",
    "Research how LangGraph and the OpenAI Agents SDK work together with LGOS",
    "Investigate the current state of checkpointers",
    "How does LangGraph handle retries? Research it.",
    "Research is required: what is a checkpointer?",
)
TOOLS = [f.tool() for f in LOCAL_FUNCTIONS.values()]
FAST_WRITER = {"lgos_settings": '{"pace":0}'}

DOUBLED = re.compile(
    r"(?<!\.)\.\.(?!\.)"  # two full stops (an ellipsis is fine)
    r"|[!?,;:]\.(?!\.)|[.!?,;:][\"”]\.(?!\.)"  # `?.`, `,.`, `?".`, `.".`
    r"|[.!?][\"”][!?]"  # `?”?`
    r"|\?\?|!!|\s[.,;:!?](?:\s|$)"  # `??`, a stray mark after a space
)
PLACEHOLDERS = re.compile(
    r"(?i:would answer it here|a real model would|regarding"
    r"|the finance(?! reviewer)|: the basics:)"
    r"|\b(?:about|in|for|Research) (?:Compare|Research|Investigate|Explain)\b"
    r"|\b(?:about|in) (?i:research)\?"
)


def check_voice(text: str, where: str) -> None:
    """Assert the text reads as finished prose."""
    assert text.strip(), where
    assert not DOUBLED.search(text), (where, DOUBLED.search(text), text)
    assert not PLACEHOLDERS.search(text), (where, PLACEHOLDERS.search(text), text)
    for heading in re.findall(r"^### (.+)$", text, re.MULTILINE):
        assert heading[:1].isupper(), (where, heading)
        assert not re.match(r"(?:Write|Compare|Run|Hello|Hi)\b", heading), heading
        assert heading.count(":") <= 1 and "?" not in heading, (where, heading)


def texts(response: Any) -> list[str]:
    """Every text a person sees: answer, refusal and pause questions."""
    found = []
    for item in response.output:
        if item.type == "message":
            for part in item.content:
                found.append(part.text if part.type == "output_text" else part.refusal)
        elif item.type == "function_call" and item.name == "lgos_interrupt":
            payload = json.loads(item.arguments)
            found.append(payload["question"])
            found.extend(payload.get("plan", []))
    return found


def pauses(response: Any) -> list[Any]:
    return [
        i
        for i in response.output
        if i.type == "function_call" and i.name == "lgos_interrupt"
    ]


# ------------------------------------------------------------------- units


def test_quoted_and_end_sentence_punctuate_once() -> None:
    assert quoted("Run  it") == '"Run it".'
    assert quoted("Why?") == '"Why?"'
    assert quoted("Done.") == '"Done."'
    assert end_sentence("It is 12:00.") == "It is 12:00."
    assert end_sentence("It is 12:00") == "It is 12:00."
    assert end_sentence("Wait...") == "Wait..."


@pytest.mark.parametrize("request_text", RESEARCH_REQUESTS)
def test_plan_questions_are_grammatical_questions(request_text: str) -> None:
    plan = plan_for(request_text)
    assert 3 <= len(plan) <= 5
    assert len(set(plan)) == len(plan)
    for question in plan:
        check_voice(question, request_text)
        assert question[:1].isupper() and question.endswith("?"), question
        assert question.count("?") == 1, question
        assert "  " not in question


@pytest.mark.parametrize(
    ("edit", "added"),
    [
        (
            "Add how each one resumes after a crash",
            "What do the sources explain about how each one resumes after a crash?",
        ),
        ("also cover pricing", "What do the sources explain about pricing?"),
        ("add: is either one free?", "Is either one free?"),
        ("Which one is older?", "Which one is older?"),
        (
            "Only research PostgreSQL checkpointers.",
            "What do the sources explain about PostgreSQL checkpointers?",
        ),
        ("Just focus on pricing", "What do the sources explain about pricing?"),
    ],
)
def test_plan_edits_become_grammatical_questions(edit: str, added: str) -> None:
    plan = plan_for(RESEARCH_REQUESTS[0])
    system = (
        "Current plan:\n"
        + "\n".join(f"{n}. {q}" for n, q in enumerate(plan, start=1))
        + f"\nRevise the plan according to this request from the user: {edit}"
    )
    revised = triage_decision([SystemMessage(system), HumanMessage("x")], None)
    assert isinstance(revised, dict)
    assert revised["questions"] == [*plan, added]
    check_voice(added, edit)


def test_plan_questions_name_the_topic() -> None:
    plan = plan_for(RESEARCH_REQUESTS[0])
    topic = "how LangGraph and the OpenAI Agents SDK pause for approval"
    assert plan[0] == f"What do the sources explain about {topic}?"
    assert "How do Chat Completions and the Responses API differ?" in plan_for(
        "Compare Chat Completions and the Responses API"
    )
    assert plan_for("How do background runs work? Research it.")[0] == (
        "What do the sources explain about how background runs work?"
    )


# ------------------------------------------------- every graph, every prompt


@pytest.mark.parametrize("prompt", PROMPTS)
@pytest.mark.parametrize(
    ("model", "request_extra"),
    [
        ("chat", {}),
        ("writer", {"metadata": FAST_WRITER}),
        ("citations", {}),
        ("functions", {"tools": TOOLS}),
        ("files", {}),
        ("deep-research", {"tools": TOOLS}),
        ("deep-research", {"tools": [*TOOLS, {"type": "web_search"}]}),
        ("approval", {}),
    ],
)
async def test_offline_replies_read_well(
    demo_client: AsyncOpenAI, model: str, request_extra: dict[str, Any], prompt: str
) -> None:
    response = await demo_client.responses.create(
        model=model, input=prompt, **request_extra
    )
    seen = texts(response)
    calls = [
        i
        for i in response.output
        if i.type == "function_call" and i.name != "lgos_interrupt"
    ]
    if calls:  # the client runs its functions; the answer uses the results
        follow_up = await demo_client.responses.create(
            model=model,
            input=[
                {"role": "user", "content": prompt},
                *(
                    {
                        "type": "function_call",
                        "call_id": c.call_id,
                        "name": c.name,
                        "arguments": c.arguments,
                    }
                    for c in calls
                ),
                *(
                    {
                        "type": "function_call_output",
                        "call_id": c.call_id,
                        "output": "It is 12:00.",
                    }
                    for c in calls
                ),
            ],
            **request_extra,
        )
        seen += texts(follow_up)
    assert seen, (model, prompt)
    for text in seen:
        check_voice(text, f"{model}: {prompt}")


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("decision", ["approve", "reject", "Only refund half."])
async def test_approval_outcomes_read_well(
    demo_client: AsyncOpenAI, parallel: bool, decision: str
) -> None:
    paused = await demo_client.responses.create(
        model="approval",
        input="Refund order 42: the kettle arrived broken.",
        metadata={"lgos_settings": json.dumps({"parallel_review": parallel})},
    )
    calls = pauses(paused)
    outcome = await demo_client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=[
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": decision if index == 0 else "approve",
            }
            for index, call in enumerate(calls)
        ],
    )
    for text in texts(paused) + texts(outcome):
        check_voice(text, f"approval: {decision}")
    if parallel and decision == "approve":
        assert "approved by the manager and the finance reviewer" in (
            outcome.output_text
        )
