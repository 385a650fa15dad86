"""Identifiers survive Chainlit's Markdown: ``module:factory``, ``__init__``.

Chainlit's renderer always runs ``remark-directive``, which reads ``:name`` as
a directive and drops it; CommonMark reads ``__init__`` as bold. The UI
escapes those spots in the graph's text, and nothing else (code, links,
tables and our own citation Markdown stay as they were).
"""

from __future__ import annotations

from lgos_chainlit.literal_text import StreamedMarkdown, protect_markdown
from lgos_chainlit.rendering import (
    render_answer,
    render_answered,
    render_question,
    render_refusal,
)
from lgos_client.items import (
    AnswerText,
    UrlCitation,
)

URL = "https://docs.example.com/serve:factory"


def test_a_colon_before_a_letter_is_escaped() -> None:
    assert (
        protect_markdown("Run lgos serve my_module:create_registry")
        == "Run lgos serve my_module\\:create_registry"
    )
    # Not a directive: left alone.
    for text in ("Note: keep", "std::fs", "12:30", "a :", "already \\:x"):
        assert protect_markdown(text) == text


def test_identifiers_with_underscores_survive() -> None:
    text = "LGOS_POSTGRES_URI, psycopg_pool, get(run_id) and __init__"
    assert protect_markdown(text) == (
        "LGOS_POSTGRES_URI, psycopg_pool, get(run_id) and \\_\\_init\\_\\_"
    )
    # Emphasis the graph meant is kept.
    assert protect_markdown("_italic_ and **bold**") == "_italic_ and **bold**"


def test_code_links_and_tables_are_untouched() -> None:
    text = (
        "Use `my_module:app` or ``a`b:c``.\n\n"
        "```python\nserve('my_module:create_registry')  # __init__\n```\n\n"
        "See <https://x.example/a:b> or https://x.example/c:d.\n\n"
        "| name | value |\n|:--|--:|\n| a | b |\n"
    )
    assert protect_markdown(text) == text


def test_an_unclosed_fence_keeps_the_rest_as_code() -> None:
    text = "Before a:b\n~~~\ninside c:d\n"
    assert protect_markdown(text) == "Before a\\:b\n~~~\ninside c:d\n"


def test_answers_questions_and_refusals_are_protected() -> None:
    text = "Run my_module:create_registry [1]."
    start = text.index("[1]")
    answer = render_answer(
        [AnswerText(text, (UrlCitation(URL, "Serve:Guide", start, start + 2),))]
    )
    assert answer.startswith("Run my_module\\:create_registry [\\[1\\]](")
    assert URL in answer  # the link target is unchanged
    assert "__init__" not in render_refusal("No __init__ here")
    assert "a\\:b" in render_question("Serve a:b?", choices=("yes",))
    answered = render_answered("Serve a:b?", "use c:d")
    assert "a\\:b" in answered
    assert "c\\:d" in answered


def test_streamed_pieces_append_or_replace() -> None:
    streamed = StreamedMarkdown()
    assert streamed.add("Run my_") == ("Run my_", False)
    assert streamed.add("module:") == ("module:", False)
    # The letter after the colon arrives: the earlier colon gets escaped.
    assert streamed.add("create") == ("Run my_module\\:create", True)
    assert streamed.add(" done") == (" done", False)
    assert streamed.shown == protect_markdown(streamed.raw)


def test_a_streamed_answer_is_protected_as_a_whole_at_every_step() -> None:
    text = (
        "Run lgos serve my_module:create_registry [1].\n\n"
        "```python\nserve('a:b')\n\n# __init__ stays\n```\n\n"
        "Then `x:y` and __main__ and c:d.\n\n"
        "~~~\nunclosed e:f\n\n"
    )
    for size in (1, 3, 7):
        streamed, page = StreamedMarkdown(), ""
        for start in range(0, len(text), size):
            piece, whole = streamed.add(text[start : start + size])
            page = piece if whole else page + piece  # what the browser shows
            assert page == streamed.shown == protect_markdown(streamed.raw)
        assert streamed.shown == protect_markdown(text)


def test_a_code_span_does_not_cross_a_blank_line() -> None:
    # CommonMark: a blank line ends the paragraph, so these backticks pair
    # with nothing and the colons around them are prose.
    assert protect_markdown("a `b:c\n\nd:e` f") == "a `b\\:c\n\nd\\:e` f"
