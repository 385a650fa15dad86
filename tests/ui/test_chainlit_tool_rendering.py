"""Rendering of server tool steps, interrupt questions and stopped turns."""

from __future__ import annotations

from lgos_chainlit.rendering import (
    STOPPED_NOTE,
    render_answered,
    render_custom_tool_step,
    render_question,
    search_query,
    search_step_title,
)


def test_search_titles() -> None:
    done = {
        "type": "web_search_call",
        "status": "completed",
        "action": {"type": "search", "query": "  LangGraph   streaming "},
    }
    assert search_query(done) == "LangGraph streaming"
    assert search_step_title(done, done=True) == "Searched: LangGraph streaming"
    assert search_step_title(done, done=False) == "Searching: LangGraph streaming"
    failed = {**done, "status": "failed"}
    assert search_step_title(failed, done=True) == "Search failed: LangGraph streaming"
    started = {"type": "web_search_call", "status": "in_progress"}
    assert search_step_title(started, done=False) == "Searching the web"
    assert search_step_title(started, done=True) == "Searched the web"
    several = {"action": {"queries": ["a", "", "b"]}}
    assert search_query(several) == "a; b"
    long = {"status": "completed", "action": {"query": "x" * 300}}
    assert len(search_step_title(long, done=True)) < 120


def test_custom_tool_step() -> None:
    assert render_custom_tool_step("writer", None) == "**Input** `writer`"
    assert render_custom_tool_step("a `b`", '{"v": 1}') == (
        '**Input** `` a `b` ``\n\n**Output** `{"v": 1}`'
    )
    assert (
        render_custom_tool_step("", "plain")
        == "**Input** `(empty)`\n\n**Output** `plain`"
    )


def test_questions_and_answers() -> None:
    text = render_question(
        "Approve?\n\n> Refund order 42", choices=("approve", "reject")
    )
    assert text.startswith("**Your answer is needed**\n\nApprove?")
    assert text.endswith(
        "_Choose an answer below, or type your own in the message box._"
    )
    strict = render_question(
        "Pick", position=2, total=2, choices=("a",), accepts_text=False, reminder=True
    )
    assert strict.startswith("**Still waiting for your answer** · question 2 of 2")
    assert strict.endswith("_Choose an answer below._")
    assert render_question("Why?").endswith("_Type your answer in the message box._")
    answered = render_answered("Approve?", "Only *half*", position=1, total=2)
    assert answered == (
        "**Answered** · question 1 of 2\n\nApprove?\n\n**Your answer:** Only \\*half\\*"
    )
    assert "not kept in the conversation" in STOPPED_NOTE
