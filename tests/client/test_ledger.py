"""lgos_client.ledger: the rules of the client-side input ledger."""

import hashlib

from lgos_client.ledger import answer_key, call_output_item, calls_not_run_reason


def test_answer_key_hashes_the_shown_text_without_surrounding_space() -> None:
    assert answer_key("  Hi\n") == answer_key("Hi")
    assert answer_key("Hi") == hashlib.sha256(b"Hi").hexdigest()
    assert answer_key("Hi") != answer_key("Ho")


def test_call_output_item() -> None:
    assert call_output_item("call_1", '{"ok":true}') == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": '{"ok":true}',
    }


def test_calls_run_only_for_completed_responses_within_the_round_limit() -> None:
    assert calls_not_run_reason("completed", 0, 5) is None
    assert calls_not_run_reason("completed", 4, 5) is None
    assert calls_not_run_reason("completed", 5, 5) == (
        "the UI stops after 5 rounds of function calls"
    )
    assert calls_not_run_reason("incomplete", 0, 5) == "the response was incomplete"
    assert calls_not_run_reason(None, 0, 5) == "the response was incomplete"
