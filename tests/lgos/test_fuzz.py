"""Property-based robustness tests for the OpenAI routes.

Hypothesis throws malformed and near-valid requests at ``POST /v1/responses``
and ``POST /v1/chat/completions`` (and a few at the model routes) through the
in-process ASGI app. For every example:

* the server answers (the ASGI app never raises through the transport) with a
  status below 500;
* every 4xx body is OpenAI's error envelope (``ErrorResponse``) with
  ``type == "invalid_request_error"``;
* a 200 answer is a valid ``Response`` / ``CreateChatCompletionResponse``, or a
  valid event stream: every Responses event is a ``ResponseStreamEvent`` and
  the last one is ``response.completed`` (or ``response.incomplete``); every
  Chat chunk is a ``CreateChatCompletionStreamResponse`` and the stream ends
  with ``[DONE]``.

The ``failing`` and ``mismatch`` test models fail by design (a graph exception,
a streaming parity failure), so for them - and only them - a non-streaming
500 with a ``server_error`` envelope is expected, a Responses stream may end
with ``response.failed`` and a Chat stream may end with a ``server_error``
envelope. For every other registered model such an outcome is the streaming
form of a 5xx and fails the test.

The runs are deterministic (``derandomize=True``, no example database).
``test_fuzz_findings`` pins the minimal reproduction of every failure the
properties found, one test ID each, so a fix shows up as a passing ID.
"""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langgraph_openai_serve.testing import parse_sse
from tests.contract.openapi import validate

pytestmark = pytest.mark.anyio

RESPONSES = "/v1/responses"
CHAT = "/v1/chat/completions"

# Registered test models that fail by design: for them (and only them) a 500
# ``server_error`` envelope (JSON) or a failed stream is the correct answer.
FAILING_MODELS = frozenset({"failing", "mismatch"})
WORKING_MODELS = ("echo", "greeting", "tools", "status", "factory")
MODELS = (*WORKING_MODELS, *sorted(FAILING_MODELS))
UNKNOWN_MODELS = (
    "missing",
    "ECHO",
    " echo",
    "echo\n",
    "echo/extra",
    "..",
    "lgos_echo",
    "\ud800",
    "\x00",
    "m" * 300,
)

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        # ``http`` is function scoped, but the app is stateless across requests.
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
        HealthCheck.filter_too_much,
    ],
)

# --------------------------------------------------------------------------
# Scalars and junk
# --------------------------------------------------------------------------

EDGE_CHARS = (
    "\x00\x1f\x7f\t\n\r \u0085\u00a0\u00ad\u200b\u200d\u202e\u2028\u2029"
    "\ufeff\ufffe\uffff\U0001f600\U0010ffff\ud800\udbff\udc00\udfff"
)
characters = st.one_of(
    st.characters(),
    st.characters(categories=["Cs"]),  # lone surrogates: valid as \\udXXX escapes
    st.sampled_from(EDGE_CHARS),
)
small_text = st.text(characters, max_size=12)
EDGE_STRINGS = (
    "",
    " ",
    "null",
    "{}",
    "[]",
    '{"',
    "\\",
    "\ud800",
    "\udfff",
    "\ud83d\ude00",  # a surrogate pair: json.dumps escapes it, the server sees 😀
    "\U0001f600",
    "\u202eevil",
    "lgos_",
    "lgos_settings",
    "f" * 128,
    "f" * 129,
    "v" * 513,
)
HUGE_STRINGS = (
    "x" * 100_000,
    "é" * 40_000,
    "ab " * 1_500,
)
strings = st.one_of(
    small_text,
    st.sampled_from(EDGE_STRINGS),
    st.sampled_from(HUGE_STRINGS),
)
numbers = st.one_of(
    st.integers(-1000, 1000),
    st.integers(),
    st.sampled_from([2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**40]),
    st.floats(allow_nan=True, allow_infinity=True),  # NaN/Infinity: Python JSON
)
scalars = st.one_of(st.none(), st.booleans(), numbers, strings)


class Raw(str):
    """A JSON text spliced verbatim into an encoded body (deep nesting)."""

    __slots__ = ()


_RAW_MARK = "\x00raw\x00"


@st.composite
def deep_values(draw: st.DrawFn) -> Raw:
    depth = draw(st.sampled_from([20, 254, 256, 300, 900, 1_500, 5_000]))
    if draw(st.booleans()):
        return Raw("[" * depth + "]" * depth)
    return Raw('{"a":' * depth + "1" + "}" * depth)


def _junk_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=4) | st.dictionaries(
        small_text, children, max_size=4
    )


json_values = st.recursive(scalars, _junk_containers, max_leaves=10)
junk = st.one_of(json_values, deep_values())

# --------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------


def _encode(value: Any, *, ascii_only: bool = True) -> bytes:
    """Encode a body; ``Raw`` strings are spliced in unquoted.

    With ``ascii_only`` lone surrogates become ``\\udXXX`` escapes (valid JSON
    text); otherwise they are written raw with ``surrogatepass`` (invalid
    UTF-8 bytes). NaN and Infinity are written as Python's JSON does.
    """
    raws: list[str] = []

    def mark(node: Any) -> Any:
        if isinstance(node, Raw):
            raws.append(str(node))
            return f"{_RAW_MARK}{len(raws) - 1}{_RAW_MARK}"
        if isinstance(node, dict):
            return {key: mark(item) for key, item in node.items()}
        if isinstance(node, list):
            return [mark(item) for item in node]
        return node

    text = json.dumps(mark(value), ensure_ascii=ascii_only)
    marker = json.dumps(_RAW_MARK, ensure_ascii=ascii_only)[1:-1]
    for index, raw in enumerate(raws):
        text = text.replace(f'"{marker}{index}{marker}"', raw, 1)
    return text.encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------
# Shared request pieces
# --------------------------------------------------------------------------

any_model = st.one_of(
    st.sampled_from(MODELS), st.sampled_from(UNKNOWN_MODELS), small_text
)
known_model = st.sampled_from(MODELS)
call_ids = st.sampled_from(["call_1", "call_2", "c", "", "\ud800", "call_1 "])
tool_names = st.one_of(
    st.sampled_from(["f", "get_weather", "", "f" * 128, "f" * 129, "bad name"]),
    small_text,
)
ARGUMENTS = (
    "{}",
    '{"city": "Paris"}',
    "",
    "{",
    "null",
    "[]",
    '"text"',
    "1",
    "NaN",
    '{"a": NaN}',
    '{"a": 1e999}',
    '{"a": 18446744073709551616}',
    '{"a": "\\ud800"}',
    '{"a": 1} trailing',
    "{'a': 1}",
)
arguments = st.one_of(st.sampled_from(ARGUMENTS), small_text)
VALID_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}
schemas = st.one_of(
    st.just(VALID_SCHEMA),
    st.just({"type": "object", "properties": {}}),
    st.sampled_from(
        [
            {"type": "array"},
            {"type": 5},
            {"properties": 5},
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"$ref": "#/nowhere"},
            {"enum": []},
            {"anyOf": "x"},
            {"required": ["missing"]},
            {"type": "object", "properties": {"n": {"minimum": 2**70}}},
        ]
    ),
    st.dictionaries(small_text, json_values, max_size=4),
    st.dictionaries(st.just("a"), deep_values(), min_size=1),
)
GREETING_SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(st.text(max_size=25), numbers),
        "tone": st.sampled_from(["plain", "excited", "shouty"]),
        "extra": json_values,
    },
).map(json.dumps)
settings_values = st.one_of(
    GREETING_SETTINGS,
    small_text,
    st.sampled_from(['{"name":"\\ud800"}', '{"name":"\ud800"}', "{", "[]", "null"]),
    json_values.map(lambda value: json.dumps(value)),
)
metadata_keys = st.one_of(
    st.sampled_from(
        [
            "lgos_settings",
            "lgos_run_id",
            "lgos_other",
            "conversation_id",
            "k" * 64,
            "k" * 65,
            "",
        ]
    ),
    small_text,
)
metadata = st.one_of(
    st.dictionaries(
        metadata_keys, st.one_of(small_text, st.sampled_from(EDGE_STRINGS)), max_size=18
    ),
    st.fixed_dictionaries({"lgos_settings": settings_values}),
    st.fixed_dictionaries(
        {"lgos_settings": settings_values},
        optional={"conversation_id": small_text, "lgos_run_id": small_text},
    ),
)
string_choices = st.sampled_from(
    ["none", "auto", "required", "any", "", "function", "AUTO"]
)


def _flatten(segments: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [item for segment in segments for item in segment]


# --------------------------------------------------------------------------
# Responses requests
# --------------------------------------------------------------------------

input_parts = st.one_of(
    st.fixed_dictionaries({"type": st.just("input_text"), "text": strings}),
    st.fixed_dictionaries(
        {"type": st.just("output_text"), "text": strings},
        optional={
            "annotations": st.lists(
                st.dictionaries(small_text, json_values, max_size=3), max_size=2
            ),
            "logprobs": st.one_of(st.none(), st.just([])),
        },
    ),
    st.fixed_dictionaries({"type": st.just("refusal"), "refusal": strings}),
)
response_messages = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "user", "system", "developer", "assistant"]),
        "content": st.one_of(strings, st.lists(input_parts, max_size=3)),
    },
    optional={
        "type": st.just("message"),
        "id": small_text,
        "status": st.sampled_from(["in_progress", "completed", "incomplete"]),
        "phase": st.sampled_from(["commentary", "final_answer"]),
    },
)
function_calls = st.fixed_dictionaries(
    {
        "type": st.just("function_call"),
        "call_id": call_ids,
        "name": tool_names,
        "arguments": arguments,
    },
    optional={"id": small_text, "status": st.just("completed")},
)
function_outputs = st.fixed_dictionaries(
    {"type": st.just("function_call_output"), "call_id": call_ids, "output": strings}
)


@st.composite
def function_exchanges(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A function call and its output, with matching call_ids (usually)."""
    call = draw(function_calls)
    output = draw(function_outputs)
    if draw(st.integers(0, 4)):
        output["call_id"] = call["call_id"]
    return [call, output]


response_inputs = st.one_of(
    strings,
    st.lists(
        st.one_of(
            response_messages.map(lambda item: [item]),
            function_exchanges(),
            function_calls.map(lambda item: [item]),
            function_outputs.map(lambda item: [item]),
        ),
        max_size=5,
    ).map(_flatten),
)
response_tools = st.lists(
    st.fixed_dictionaries(
        {"type": st.just("function"), "name": tool_names},
        optional={
            "description": st.one_of(st.none(), strings),
            "parameters": st.one_of(st.none(), schemas),
            "strict": st.one_of(st.none(), st.booleans()),
        },
    ),
    max_size=3,
)
response_tool_choices = st.one_of(
    st.none(),
    string_choices,
    st.fixed_dictionaries({"type": st.just("function"), "name": tool_names}),
    st.sampled_from(
        [
            {"type": "function"},
            {"type": "mcp", "server_label": "x"},
            {"type": "function", "function": {"name": "f"}},
            {"type": "allowed_tools", "mode": "auto", "tools": []},
        ]
    ),
)
responses_requests = st.fixed_dictionaries(
    {"model": any_model, "input": response_inputs},
    optional={
        "instructions": st.one_of(st.none(), strings),
        "metadata": st.one_of(st.none(), metadata),
        "stream": st.one_of(st.none(), st.booleans()),
        "store": st.one_of(st.none(), st.booleans()),
        "tools": st.one_of(st.none(), response_tools),
        "tool_choice": response_tool_choices,
        "parallel_tool_calls": st.one_of(st.none(), st.booleans()),
        "safety_identifier": st.one_of(st.none(), strings),
        "user": st.one_of(st.none(), strings),
        "previous_response_id": st.one_of(st.none(), small_text),
        "background": st.one_of(st.none(), st.booleans()),
    },
)

# --------------------------------------------------------------------------
# Chat requests
# --------------------------------------------------------------------------

text_parts = st.lists(
    st.fixed_dictionaries({"type": st.just("text"), "text": strings}), max_size=3
)
chat_content = st.one_of(strings, text_parts)
plain_messages = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "user", "system", "developer"]),
        "content": chat_content,
    },
    optional={"name": small_text},
)
tool_calls = st.fixed_dictionaries(
    {
        "id": call_ids,
        "function": st.fixed_dictionaries({"name": tool_names, "arguments": arguments}),
    },
    optional={"type": st.just("function")},
)
assistant_messages = st.fixed_dictionaries(
    {"role": st.just("assistant")},
    optional={
        "content": st.one_of(st.none(), chat_content),
        "name": small_text,
        "tool_calls": st.one_of(st.none(), st.lists(tool_calls, max_size=2)),
        "refusal": st.one_of(st.none(), small_text),
        "function_call": st.none(),
        "annotations": st.one_of(st.none(), st.just([])),
    },
)
tool_messages = st.fixed_dictionaries(
    {"role": st.just("tool"), "content": chat_content, "tool_call_id": call_ids}
)


@st.composite
def chat_exchanges(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An assistant turn with tool calls and (usually) one answer per call."""
    calls = draw(st.lists(tool_calls, min_size=1, max_size=2))
    turn = {"role": "assistant", "content": None, "tool_calls": calls}
    answers = []
    for call in calls:
        answer = draw(tool_messages)
        if draw(st.integers(0, 4)):
            answer["tool_call_id"] = call["id"]
        answers.append(answer)
    return [turn, *answers]


chat_messages = st.lists(
    st.one_of(
        plain_messages.map(lambda item: [item]),
        assistant_messages.map(lambda item: [item]),
        tool_messages.map(lambda item: [item]),
        chat_exchanges(),
    ),
    min_size=1,
    max_size=5,
).map(_flatten)
chat_tools = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.just("function"),
            "function": st.fixed_dictionaries(
                {"name": tool_names},
                optional={
                    "description": st.one_of(st.none(), strings),
                    "parameters": st.one_of(st.none(), schemas),
                    "strict": st.one_of(st.none(), st.booleans()),
                },
            ),
        }
    ),
    max_size=3,
)
chat_tool_choices = st.one_of(
    st.none(),
    string_choices,
    st.fixed_dictionaries(
        {
            "type": st.just("function"),
            "function": st.fixed_dictionaries({"name": tool_names}),
        }
    ),
    st.sampled_from(
        [
            {"type": "function"},
            {"type": "function", "name": "f"},
            {"type": "custom", "custom": {"name": "f"}},
        ]
    ),
)
chat_requests = st.fixed_dictionaries(
    {"model": any_model, "messages": chat_messages},
    optional={
        "stream": st.one_of(st.none(), st.booleans()),
        "stream_options": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {}, optional={"include_usage": st.one_of(st.none(), st.booleans())}
            ),
        ),
        "tools": st.one_of(st.none(), chat_tools),
        "tool_choice": chat_tool_choices,
        "parallel_tool_calls": st.one_of(st.none(), st.booleans()),
        "metadata": st.one_of(st.none(), metadata),
        "store": st.one_of(st.none(), st.booleans()),
        "safety_identifier": st.one_of(st.none(), strings),
        "user": st.one_of(st.none(), strings),
    },
)

# --------------------------------------------------------------------------
# Mutations
# --------------------------------------------------------------------------

UNKNOWN_FIELDS = (
    "temperature",
    "n",
    "max_tokens",
    "functions",
    "include",
    "extra",
    "",
    "\ud800",
    "type",
    "role",
    "lgos",
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _retype(value: Any) -> Any:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return {str(index): item for index, item in enumerate(value)}
    return {}


def _replacement(draw: st.DrawFn, operation: str, value: Any) -> Any:
    if operation in {"replace", "inject"}:
        return draw(junk)
    if operation == "retype":
        return _retype(value)
    if operation == "wrap":
        return [value] if draw(st.booleans()) else {"value": value}
    if operation == "empty":
        return type(value)() if isinstance(value, str | list) else {}
    return None


OPERATIONS = ("drop", "replace", "inject", "retype", "null", "wrap", "empty")


@st.composite
def mutated(draw: st.DrawFn, requests: st.SearchStrategy[Any]) -> Any:
    """A request with up to four structural mutations anywhere in it."""
    body = copy.deepcopy(draw(requests))
    for _ in range(draw(st.integers(0, 4))):
        path = draw(st.sampled_from(_paths(body)))
        target = _get(body, path)
        operation = draw(st.sampled_from(OPERATIONS))
        if operation == "inject" and isinstance(target, dict):
            key = draw(st.one_of(st.sampled_from(UNKNOWN_FIELDS), small_text))
            target[key] = draw(junk)
        elif operation == "inject" and isinstance(target, list):
            target.insert(draw(st.integers(0, len(target))), draw(junk))
        elif not path:
            if operation not in {"drop", "empty"}:
                body = _replacement(draw, operation, body)
        elif operation == "drop":
            del _get(body, path[:-1])[path[-1]]
        else:
            _get(body, path[:-1])[path[-1]] = _replacement(draw, operation, target)
    return body


# --------------------------------------------------------------------------
# Checking one exchange
# --------------------------------------------------------------------------


def _intent(content: bytes) -> tuple[Any, bool]:
    """The ``model`` and ``stream`` a body asks for, as far as it says."""
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
        return None, False
    if not isinstance(body, dict):
        return None, False
    return body.get("model"), body.get("stream") is True


def _check_error(reply: httpx.Response, model: Any, stream: bool) -> None:
    body = reply.json()
    validate("ErrorResponse", body)
    error = body["error"]
    if reply.status_code < 500:
        assert error["type"] == "invalid_request_error", body
        if reply.status_code == 404 and error["param"] == "model":
            assert error["code"] == "model_not_found", body
        return
    assert model in FAILING_MODELS and not stream, (
        f"{reply.status_code} for model {model!r} (stream={stream}): {body}"
    )
    assert reply.status_code == 500, body
    assert error["type"] == "server_error", body


def _check_responses_stream(reply: httpx.Response, model: Any) -> None:
    events = parse_sse(reply.text)
    assert events, "empty Responses stream"
    names = [line[7:] for line in reply.text.split("\n") if line.startswith("event: ")]
    assert names == [event["type"] for event in events]
    for number, event in enumerate(events):
        validate("ResponseStreamEvent", event)
        assert event["sequence_number"] == number, event
    last = events[-1]["type"]
    allowed = {"response.completed", "response.incomplete"}
    if model in FAILING_MODELS:
        allowed.add("response.failed")
    assert last in allowed, f"model {model!r} stream ended with {last}: {events[-1]}"


def _check_chat_stream(reply: httpx.Response, model: Any) -> None:
    events = parse_sse(reply.text)
    if reply.text.endswith("data: [DONE]\n\n"):
        for event in events:
            validate("CreateChatCompletionStreamResponse", event)
        return
    assert events, "empty Chat stream"
    for event in events[:-1]:
        validate("CreateChatCompletionStreamResponse", event)
    last = events[-1]
    validate("ErrorResponse", last)
    assert model in FAILING_MODELS, f"model {model!r} stream ended with {last}"
    assert last["error"]["type"] == "server_error", last


def _check_success(reply: httpx.Response, path: str, model: Any, stream: bool) -> None:
    assert reply.status_code == 200, reply.text[:2000]
    assert model in MODELS, f"200 for unregistered model {model!r}"
    is_sse = reply.headers["content-type"].startswith("text/event-stream")
    assert is_sse == stream, reply.headers["content-type"]
    if path == RESPONSES and stream:
        _check_responses_stream(reply, model)
    elif path == RESPONSES:
        body = reply.json()
        validate("Response", body)
        assert body["status"] in {"completed", "incomplete"}, body
        assert body["model"] == model, body
    elif stream:
        _check_chat_stream(reply, model)
    else:
        body = reply.json()
        validate("CreateChatCompletionResponse", body)
        assert body["model"] == model, body


async def _exchange(
    http: httpx.AsyncClient,
    path: str,
    content: bytes,
    content_type: str | None = "application/json",
) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    try:
        reply = await http.post(path, content=content, headers=headers)
    except Exception as exc:
        # The app raised through the ASGI transport: a real server would drop
        # the connection (or cut the stream) instead of answering.
        msg = f"the app raised instead of answering: {exc!r}"
        raise AssertionError(msg) from exc
    model, stream = _intent(content)
    if reply.status_code >= 400:
        _check_error(reply, model, stream)
    else:
        _check_success(reply, path, model, stream)


# --------------------------------------------------------------------------
# The properties
# --------------------------------------------------------------------------

paths = st.sampled_from([RESPONSES, CHAT])
CONTENT_TYPES = (
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=latin-1",
    "application/vnd.api+json",
    "text/plain",
    "text/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=xyz",
    "application/octet-stream",
    "application/",
    ";;;",
    "",
    None,
)


@st.composite
def raw_bodies(draw: st.DrawFn) -> bytes:
    """Bytes that are not a JSON request object (or barely are)."""
    valid = draw(st.sampled_from([responses_requests, chat_requests]))
    kind = draw(
        st.sampled_from(
            ["binary", "value", "truncated", "trailing", "bad_utf8", "deep", "other"]
        )
    )
    if kind == "binary":
        return draw(st.binary(max_size=64))
    if kind == "value":
        return _encode(draw(junk), ascii_only=draw(st.booleans()))
    encoded = _encode(draw(valid))
    if kind == "truncated":
        return encoded[: draw(st.integers(0, max(len(encoded) - 1, 0)))]
    if kind == "trailing":
        return encoded + draw(st.sampled_from([b"}", b",", b" x", b"\x00", b"{}"]))
    if kind == "bad_utf8":
        at = draw(st.integers(0, len(encoded)))
        bad = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88"]))
        return encoded[:at] + bad + encoded[at:]
    if kind == "deep":
        return str(draw(deep_values())).encode()
    return draw(
        st.sampled_from(
            [
                b"",
                b" ",
                b"null",
                b"\xef\xbb\xbf" + encoded,  # UTF-8 BOM
                encoded.decode().encode("utf-16"),
                encoded.decode().encode("utf-32-le"),
                b'{"model": "echo", "model": 1, "input": "x"}',
                b'{"model": "echo", "input": "x", "stream": NaN}',
                b'{"model": "echo", "input": "x"}\n{"model": "echo"}',
            ]
        )
    )


@FUZZ
@given(path=paths, content=raw_bodies(), content_type=st.sampled_from(CONTENT_TYPES))
async def test_raw_bodies_get_an_error_envelope(
    http: httpx.AsyncClient, path: str, content: bytes, content_type: str | None
) -> None:
    await _exchange(http, path, content, content_type)


@FUZZ
@given(body=mutated(responses_requests), ascii_only=st.booleans())
async def test_responses_near_valid(
    http: httpx.AsyncClient, body: Any, ascii_only: bool
) -> None:
    await _exchange(http, RESPONSES, _encode(body, ascii_only=ascii_only))


@FUZZ
@given(body=mutated(chat_requests), ascii_only=st.booleans())
async def test_chat_near_valid(
    http: httpx.AsyncClient, body: Any, ascii_only: bool
) -> None:
    await _exchange(http, CHAT, _encode(body, ascii_only=ascii_only))


@FUZZ
@given(body=responses_requests, model=known_model)
async def test_responses_registered_models(
    http: httpx.AsyncClient, body: dict[str, Any], model: str
) -> None:
    """Unmutated requests to registered models (more of them reach a graph)."""
    await _exchange(http, RESPONSES, _encode({**body, "model": model}))


@FUZZ
@given(body=chat_requests, model=known_model)
async def test_chat_registered_models(
    http: httpx.AsyncClient, body: dict[str, Any], model: str
) -> None:
    """Unmutated requests to registered models (more of them reach a graph)."""
    await _exchange(http, CHAT, _encode({**body, "model": model}))


@settings(FUZZ, max_examples=60)
@given(
    method=st.sampled_from(["GET", "PUT", "DELETE", "PATCH", "POST"]),
    path=st.one_of(
        st.sampled_from([RESPONSES, CHAT, "/v1/models"]),
        st.text(characters, max_size=20).map(
            lambda name: (
                "/v1/models/" + quote(name.encode("utf-8", "surrogatepass"), safe="")
            )
        ),
    ),
)
async def test_other_methods_and_model_paths(
    http: httpx.AsyncClient, method: str, path: str
) -> None:
    reply = await http.request(method, path)
    assert reply.status_code < 500, reply.text
    if reply.status_code >= 400:
        validate("ErrorResponse", reply.json())
        assert reply.json()["error"]["type"] == "invalid_request_error"


# --------------------------------------------------------------------------
# Minimal reproductions of what the properties above found
# --------------------------------------------------------------------------

_DEEP_256 = Raw("[" * 256 + "]" * 256)

FINDINGS = [
    # Lone surrogates (valid JSON as \udXXX escapes) reach the graph and are
    # echoed; orjson cannot encode them: 500 / failed or cut streams.
    pytest.param(RESPONSES, {"model": "echo", "input": "\ud800"}, id="surrogate-input"),
    pytest.param(
        RESPONSES,
        {"model": "echo", "input": "\ud800", "stream": True},
        id="surrogate-input-stream",
    ),
    pytest.param(
        RESPONSES,
        {"model": "echo", "input": "x", "instructions": "\ud800", "stream": True},
        id="surrogate-instructions-stream",
    ),
    pytest.param(
        RESPONSES,
        {"model": "echo", "input": "x", "metadata": {"k": "\ud800"}},
        id="surrogate-metadata",
    ),
    pytest.param(
        RESPONSES,
        {"model": "echo", "input": "x", "safety_identifier": "\ud800"},
        id="surrogate-safety-identifier",
    ),
    pytest.param(
        CHAT,
        {"model": "echo", "messages": [{"role": "user", "content": "\ud800"}]},
        id="chat-surrogate-content",
    ),
    pytest.param(
        CHAT,
        {
            "model": "echo",
            "messages": [{"role": "user", "content": "\ud800"}],
            "stream": True,
        },
        id="chat-surrogate-content-stream",
    ),
    # Lone surrogates quoted in a 4xx message: the error response itself
    # cannot be rendered (a real client gets a 500 server_error).
    pytest.param(
        RESPONSES,
        {
            "model": "echo",
            "input": [
                {
                    "type": "function_call",
                    "call_id": "\ud800",
                    "name": "f",
                    "arguments": "{}",
                }
            ],
        },
        id="surrogate-call-id-error",
    ),
    pytest.param(
        CHAT,
        {
            "model": "echo",
            "messages": [{"role": "tool", "content": "", "tool_call_id": "\ud800"}],
        },
        id="chat-surrogate-tool-call-id-error",
    ),
    pytest.param(
        RESPONSES,
        {
            "model": "echo",
            "input": "x",
            "tool_choice": {"type": "function", "name": "\ud800"},
        },
        id="surrogate-tool-choice-error",
    ),
    pytest.param(
        RESPONSES,
        {"model": "echo", "input": "x", "metadata": {"lgos_\ud800": "1"}},
        id="surrogate-metadata-key-error",
    ),
    # Tool parameters are echoed in the Response; orjson rejects integers
    # outside 64 bits and nesting deeper than 255 levels.
    pytest.param(
        RESPONSES,
        {
            "model": "echo",
            "input": "x",
            "tools": [{"type": "function", "name": "f", "parameters": {"a": 2**64}}],
        },
        id="tool-parameters-int-over-64-bit",
    ),
    pytest.param(
        RESPONSES,
        {
            "model": "echo",
            "input": "x",
            "stream": True,
            "tools": [{"type": "function", "name": "f", "parameters": {"a": 2**64}}],
        },
        id="tool-parameters-int-over-64-bit-stream",
    ),
    pytest.param(
        RESPONSES,
        {
            "model": "echo",
            "input": "x",
            "tools": [
                {"type": "function", "name": "f", "parameters": {"a": _DEEP_256}}
            ],
        },
        id="tool-parameters-nested-256",
    ),
    # Accepted and echoed, but OpenAI's Response allows at most 64 characters.
    pytest.param(
        RESPONSES,
        {"model": "echo", "input": "x", "safety_identifier": "s" * 65},
        id="safety-identifier-over-64",
    ),
    # An empty conversation reaches the graph (Chat requires one message).
    pytest.param(RESPONSES, {"model": "tools", "input": []}, id="empty-input"),
]


@pytest.mark.parametrize(("path", "body"), FINDINGS)
async def test_fuzz_findings(
    http: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    await _exchange(http, path, _encode(body))


async def test_fuzz_finding_raw_surrogate_bytes(http: httpx.AsyncClient) -> None:
    # CESU-8 bytes (invalid UTF-8): json.loads(bytes) decodes them with
    # "surrogatepass", so the lone surrogate reaches the graph again.
    await _exchange(http, RESPONSES, b'{"model": "echo", "input": "\xed\xa0\x80"}')
