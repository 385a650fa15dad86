"""Reading a streamed answer's body in a test: :func:`parse_sse`.

A streamed Responses or Chat Completions request (``"stream": true``) answers
with Server-Sent Events, one JSON object per event. :func:`parse_sse` turns
the whole body into that list of objects, checking the framing on the way,
so a test asserts on the events rather than on text.
"""

from __future__ import annotations

import json
import re
from typing import Any

_DONE = "[DONE]"
"""The data of the event that ends a Chat Completions stream (not JSON)."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def parse_sse(body: str) -> list[dict[str, Any]]:
    r"""Return the JSON data of each event of a Server-Sent Events body, in order.

    ``body`` is the whole text of a streamed answer, as LGOS or OpenAI sends
    it (``response.text`` of an HTTP client)::

        event: response.created
        data: {"type":"response.created","sequence_number":0,"response":{...}}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","delta":"Hello",...}

    Each event is a group of lines ended by a blank line; its ``data:``
    lines, joined by newlines, hold one JSON object, and each object is one
    item of the list. Lines end at CR LF, LF or CR only, as the SSE format
    says, not at U+2028 or U+2029, which JSON text may carry unescaped (so do
    not split the body with :meth:`str.splitlines`, nor read it with httpx's
    ``iter_lines``, which does). Comment lines (``: ...``), ``id:`` and
    ``retry:`` fields and events without a ``data:`` line are skipped.

    A Chat Completions stream ends with ``data: [DONE]``, which is not JSON:
    it is left out of the list. Where it matters, check it is there with
    ``body.endswith("data: [DONE]\n\n")``.

    Args:
        body: The stream's text, from its first byte to its last.

    Returns:
        The data objects, one per event, ``[DONE]`` left out; ``[]`` for an
        empty body.

    Raises:
        ValueError: The body is not a stream of JSON objects, naming the
            line of the event at fault: an event's data is not JSON, or is
            JSON but not an object; an event follows ``[DONE]``; an event's
            ``event:`` name differs from its data's ``type`` (OpenAI's
            Responses events carry both, and they agree); or the body ends
            inside an event (no blank line after its last line: an SSE
            client drops such an event).

    """
    lines = _LINE_BREAK.split(body.removeprefix("\ufeff"))
    if lines[-1] == "":
        lines.pop()  # the text after the last line break: no line at all
    events: list[dict[str, Any]] = []
    name: str | None = None
    data: list[str] = []
    first = 0  # the line number of the event's first field (0: none yet)
    done = 0  # the line number of the [DONE] event (0: none yet)
    for number, line in enumerate(lines, start=1):
        if line == "":
            if data:
                if done:
                    raise ValueError(
                        f"line {first}: an event follows data: [DONE] (line {done})"
                    )
                raw = "\n".join(data)
                if raw == _DONE:
                    done = first
                else:
                    events.append(_event(raw, name, first))
            name, data, first = None, [], 0
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
        else:
            continue  # id, retry and unknown fields
        first = first or number
    if first:
        raise ValueError(
            f"line {first}: the body ends inside an event "
            "(no blank line after its last line)"
        )
    return events


def _event(raw: str, name: str | None, line: int) -> dict[str, Any]:
    """Decode one event's data; raise ValueError naming ``line`` if it is no object."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"line {line}: the event's data is not JSON ({error}): {raw[:200]!r}"
        ) from error
    if not isinstance(value, dict):
        raise ValueError(
            f"line {line}: the event's data is JSON but not an object: {raw[:200]!r}"
        )
    kind = value.get("type")
    if name is not None and kind is not None and kind != name:
        raise ValueError(
            f"line {line}: the event is named {name!r} but its data's type is {kind!r}"
        )
    return value
