"""Rendering of server tool steps, interrupt questions and stopped turns."""

from __future__ import annotations

from lgos_chainlit.rendering import (
    render_answered,
    render_custom_tool_step,
    render_question,
    search_query,
    search_step_title,
    stopped_note,
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


def test_a_stop_is_one_line_saying_what_still_waits() -> None:
    """After Stop: what was dropped and whether a question waits, in one line."""
    notes = {
        "plain": stopped_note(),
        "background": stopped_note(background=True),
        "answered": stopped_note(background=True, answered=True),
        "waiting": stopped_note(waiting=True),
    }
    for note in notes.values():
        assert note.startswith("> **Stopped** — ")
        assert "\n" not in note
        assert "resp_" not in note
    assert "this turn is not kept" in notes["plain"]
    assert "the background run was cancelled" in notes["background"]
    assert "background" not in notes["plain"]
    assert "nothing is waiting for an answer" in notes["answered"]
    assert "still waiting for your answer" in notes["waiting"]
