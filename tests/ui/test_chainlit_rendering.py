"""Pure rendering: answers, citations and Sources, refusals, notes, steps."""

from lgos_chainlit.rendering import (
    Source,
    commentary_title,
    failure_note,
    incomplete_note,
    link_citations,
    render_answer,
    render_function_step,
    render_refusal,
    render_response,
    render_sources,
)
from lgos_client.items import (
    AnswerText,
    UrlCitation,
    answer_texts,
    refusal_text,
)

CHAT_URL = "https://platform.openai.com/docs/api-reference/chat"
RESP_URL = "https://platform.openai.com/docs/api-reference/responses"


def cite(text: str, needle: str, url: str, title: str, nth: int = 0) -> UrlCitation:
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return UrlCitation(url, title, start, start + len(needle) - 1)


def test_marker_spans_become_links_and_sources_are_listed() -> None:
    text = "Chat is older [1]. Responses is newer [2]."
    citations = [
        cite(text, "[1]", CHAT_URL, "Chat Completions"),
        cite(text, "[2]", RESP_URL, "Responses"),
    ]

    linked, sources = link_citations(text, citations)

    assert linked == (
        f'Chat is older [\\[1\\]]({CHAT_URL} "Chat Completions"). '
        f'Responses is newer [\\[2\\]]({RESP_URL} "Responses").'
    )
    assert sources == [
        Source(1, "Chat Completions", CHAT_URL),
        Source(2, "Responses", RESP_URL),
    ]


def test_marker_numbers_are_kept_even_out_of_order() -> None:
    text = "First [2], then [1], again [2]."
    citations = [
        cite(text, "[2]", RESP_URL, "Responses"),
        cite(text, "[1]", CHAT_URL, "Chat"),
        cite(text, "[2]", RESP_URL, "Responses", nth=1),
    ]
    _, sources = link_citations(text, citations)
    assert [(s.number, s.url) for s in sources] == [(1, CHAT_URL), (2, RESP_URL)]


def test_other_spans_keep_their_text_and_get_a_numbered_marker() -> None:
    text = "LangGraph streams tokens. It has checkpoints [1]."
    citations = [
        cite(text, "[1]", CHAT_URL, "Chat"),
        cite(text, "LangGraph streams tokens", RESP_URL, "Streaming"),
        cite(text, "checkpoints", RESP_URL, "Streaming"),
    ]

    linked, sources = link_citations(text, citations)

    # Unmarked spans are numbered after the markers, one number per URL.
    assert linked.startswith(
        f'LangGraph streams tokens [\\[2\\]]({RESP_URL} "Streaming").'
    )
    assert f'checkpoints [\\[2\\]]({RESP_URL} "Streaming") [\\[1\\]]' in linked
    assert [s.number for s in sources] == [1, 2]


def test_bad_or_overlapping_spans_are_listed_but_not_linked() -> None:
    text = "Short [1]."
    citations = [
        UrlCitation(CHAT_URL, "Chat", 6, 8),
        UrlCitation(RESP_URL, "Responses", 7, 8),  # overlaps the first
        UrlCitation("https://example.com/", "Far", 50, 60),  # outside the text
    ]
    linked, sources = link_citations(text, citations)
    assert linked == f'Short [\\[1\\]]({CHAT_URL} "Chat").'
    assert [s.url for s in sources] == [CHAT_URL, RESP_URL, "https://example.com/"]


def test_unsafe_urls_are_never_links() -> None:
    text = "Bad [1]."
    linked, sources = link_citations(
        text, [UrlCitation("javascript:alert(1)", "Evil", 4, 6)]
    )
    assert linked == "Bad \\[1\\]."
    assert render_sources(sources) == (
        "**Sources**\n\n- \\[1\\] Evil — `javascript:alert(1)`"
    )


def test_link_urls_are_escaped_for_markdown() -> None:
    linked, sources = link_citations(
        "x [1]", [UrlCitation("https://e.com/a (b)", 'Say "hi"', 2, 4)]
    )
    assert linked == 'x [\\[1\\]](https://e.com/a%20%28b%29 "Say \\"hi\\"")'
    assert render_sources(sources) == (
        "**Sources**\n\n"
        '- \\[1\\] [Say "hi"](https://e.com/a%20%28b%29) — <https://e.com/a%20%28b%29>'
    )


def test_render_answer_appends_the_sources_list() -> None:
    text = "Answer [1]."
    rendered = render_answer([AnswerText(text, (cite(text, "[1]", CHAT_URL, "Chat"),))])
    assert rendered == (
        f'Answer [\\[1\\]]({CHAT_URL} "Chat").\n\n'
        "**Sources**\n\n"
        f"- \\[1\\] [Chat]({CHAT_URL}) — <{CHAT_URL}>"
    )
    assert render_answer([AnswerText("No sources.")]) == "No sources."


def test_answer_texts_skip_commentary_and_read_annotations() -> None:
    items = [
        {
            "type": "message",
            "role": "assistant",
            "phase": "commentary",
            "content": [
                {"type": "output_text", "text": "Searching", "annotations": []}
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "phase": "final_answer",
            "content": [
                {
                    "type": "output_text",
                    "text": "Hi [1]",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url": CHAT_URL,
                            "title": "Chat",
                            "start_index": 3,
                            "end_index": 5,
                        },
                        {"type": "file_citation", "file_id": "f"},
                    ],
                },
                {"type": "refusal", "refusal": "No more."},
            ],
        },
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
    ]
    assert answer_texts(items) == [
        AnswerText("Hi [1]", (UrlCitation(CHAT_URL, "Chat", 3, 5),))
    ]
    assert refusal_text(items) == "No more."


def test_refusal_is_labelled_and_quoted() -> None:
    assert render_refusal("I cannot.\nSorry.") == (
        "**Refusal** — the graph declined to answer:\n\n> I cannot.\n> Sorry."
    )


def test_notes_explain_incomplete_and_failed_answers() -> None:
    assert incomplete_note("max_output_tokens") == (
        "> **Incomplete answer** — the model reached its output token limit "
        "(`max_output_tokens`)."
    )
    assert "content filter" in incomplete_note("content_filter")
    assert "not given" in incomplete_note(None)
    assert failure_note(None).startswith("> **Failed answer**")


def test_render_response_combines_answer_refusal_and_notes() -> None:
    parts = [AnswerText("Partial")]
    assert render_response(parts) == "Partial"
    assert render_response(
        parts, status="incomplete", incomplete_reason="content_filter"
    ) == ("Partial\n\n" + incomplete_note("content_filter"))
    assert render_response(parts, status="failed") == "Partial\n\n" + failure_note(None)
    assert render_response([], refusal="No.") == render_refusal("No.")
    assert render_response([]) == ""
    assert render_response([], status="failed") == ""


def test_commentary_title_is_one_short_line() -> None:
    assert commentary_title("  Searching\nthe archive") == "Searching"
    long = "word " * 40
    title = commentary_title(long)
    assert len(title) == 100
    assert title.endswith("…")
    assert commentary_title("\n \n") == "Working"


def test_function_step_shows_arguments_and_result() -> None:
    assert render_function_step('{"sides":6}', None) == '**Arguments** `{"sides": 6}`'
    assert render_function_step('{"a":"`x`"}', '{"total":3}') == (
        '**Arguments** `` {"a": "`x`"} ``\n\n**Result** `{"total": 3}`'
    )
    assert render_function_step("", "not json") == (
        "**Arguments** `{}`\n\n**Result** `not json`"
    )
