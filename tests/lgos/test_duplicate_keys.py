"""``duplicate_key``: the first key that appears twice in one object of a body."""

from __future__ import annotations

import pytest

from langgraph_openai_serve.api.body import duplicate_key


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"a": 1, "b": 2}', None),
        (b'{"a": 1, "a": 2}', "a"),
        (b'{"a": {"b": 1, "b": 1}}', "b"),
        (b'[{"x": 1}, {"x": 2}]', None),  # the same key in two objects is fine
        (b'[{"x": 1, "y": 2, "x": 3}]', "x"),
        (b'{"outer": 1, "inner": {"outer": 2}}', None),
        (b'"text"', None),
    ],
)
def test_duplicate_key(raw: bytes, expected: str | None) -> None:
    assert duplicate_key(raw) == expected
