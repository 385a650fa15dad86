"""A Bifrost-shaped intermediary: ``python -m tests.bifrost.recorded_bifrost``.

The real gateway (Bifrost's HTTP transport, ``bifrost-http``) cannot be
installed here, so the Bifrost tests put this small proxy between the clients
and the real demo API instead. It reproduces what Bifrost v1.4.19 was recorded
doing in front of the demo API (``../shared/bifrost/transcripts``, one JSONL
file per scenario and route), rule by rule; each rule names the files that
show it:

``/v1`` (Bifrost's OpenAI-compatible route, models ``openai/<graph>``)

- R1 models list: ``GET /v1/models`` is rebuilt with ``id`` prefixed
  ``openai/``, ``created`` and ``owned_by`` only (no ``object``, no ``lgos``),
  sorted by id, beside Bifrost's ``extra_fields`` and ``key_statuses``
  (``models.bf_v1.jsonl``).
- R2 unrouted paths: ``GET /v1/models/{id}`` and ``GET /v1/responses/{id}``
  answer Bifrost's HTML page with status 200; ``POST
  /v1/responses/{id}/cancel`` answers 405 ``Method Not Allowed`` as
  ``text/plain`` (``models.bf_v1.jsonl``, ``background.bf_v1.jsonl``).
- R3 model names: a ``model`` without ``<provider>/`` is Bifrost's own 400
  (``bare_model_name.bf_v1.jsonl``); ``openai/`` is removed before LGOS.
- R4 request rewrites (``extras.bf_v1_wire.jsonl``,
  ``base_url_with_v1_suffix.bf_v1_wire.jsonl``): a string ``input`` becomes
  one user message; ``phase`` is removed from replayed input items and
  ``logprobs: null`` added to their ``output_text`` parts; top-level fields
  outside OpenAI's request are dropped unless ``x-bf-passthrough-extra-params:
  true``; every assistant ``tool_calls[i]`` of a Chat Completions request gets
  ``index: i``; the ``Idempotency-Key`` header is dropped and each
  ``x-bf-eh-<name>`` header is sent on as ``<name>``; LGOS receives the
  configured provider key as ``Authorization``.
- R5 answers (``commentary_writer.bf_v1.jsonl``, ``responses_chat.bf_v1.jsonl``,
  ``chat_completions.bf_v1.jsonl``): ``phase`` is removed from every message
  item (output, streamed items, the final Response), ``extra_fields`` is added
  to each object and event, a Chat answer's ``tool_calls`` get ``index``.
- R6 Chat streams (``chat_completions.bf_v1.jsonl``): the role-only first
  chunk is dropped; the ``finish_reason`` chunk and the usage chunk become one
  with ``created: 0`` and ``model: ""``; ``null`` members of a choice
  (``finish_reason``, ``logprobs``) are left out.
- R7 errors (``errors.bf_v1.jsonl``): LGOS's status is kept and its error is
  wrapped as ``{"is_bifrost_error": false, "status_code", "error", "extra_fields"}``,
  ``null`` members left out of ``error``.

``/openai_passthrough/v1`` (Bifrost's passthrough route, bare model names)

- R8 (``models.bf_pt.jsonl``, ``errors.bf_pt.jsonl``, ``extras.bf_pt_wire.jsonl``):
  method, path below ``/v1``, body and headers reach LGOS unchanged (the
  ``Authorization`` is the provider key); the answer comes back byte for byte,
  but a request that did not ask for a stream gets ``Content-Type:
  text/plain; charset=utf-8`` whatever LGOS sent (successes and errors).

``GET /health`` answers ``{"status": "ok"}`` (Bifrost's health route).
``tests/bifrost/test_recorded_rules.py`` checks each rule against exchanges
cut from those recordings (``tests/bifrost/recorded/``).
Anything else on ``/v1`` that Bifrost routes and LGOS does not serve is out
of scope: it answers 404.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

PROVIDER = "openai"
HTML_PAGE = "<html>no ui</html>\n"
PLAIN = "text/plain; charset=utf-8"

# R4: the request fields Bifrost keeps (OpenAI's request schemas); the
# recorded probe (`lgos_probe`) outside them never reached LGOS.
RESPONSES_FIELDS = frozenset(
    {
        "model", "input", "instructions", "previous_response_id", "store",
        "metadata", "tools", "tool_choice", "parallel_tool_calls", "temperature",
        "top_p", "max_output_tokens", "max_tool_calls", "truncation", "text",
        "reasoning", "include", "stream", "stream_options", "background", "user",
        "safety_identifier", "prompt_cache_key", "service_tier", "top_logprobs",
    }
)  # fmt: skip
CHAT_FIELDS = frozenset(
    {
        "model", "messages", "tools", "tool_choice", "parallel_tool_calls",
        "temperature", "top_p", "max_tokens", "max_completion_tokens", "n", "stop",
        "stream", "stream_options", "metadata", "user", "seed", "response_format",
        "logprobs", "top_logprobs", "presence_penalty", "frequency_penalty",
        "logit_bias", "reasoning_effort", "store", "service_tier",
        "prompt_cache_key", "safety_identifier", "modalities", "prediction",
        "web_search_options", "verbosity",
    }
)  # fmt: skip
# Client headers that never reach LGOS on /v1 (Bifrost builds its own request).
FORWARDED_PREFIX = "x-bf-eh-"


class Upstream:
    """Where LGOS is, and the key Bifrost's ``openai`` provider sends it."""

    def __init__(self, origin: str, key: str) -> None:
        self.origin = origin.rstrip("/")
        self.key = key
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(600, connect=10))

    def headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The headers of a request to LGOS: the provider key, then ``extra``."""
        return {"Authorization": f"Bearer {self.key}", **(extra or {})}


def extra_fields(request_type: str, model: str | None = None) -> dict[str, Any]:
    """Bifrost's ``extra_fields`` (R5, R7), without the timing values."""
    fields: dict[str, Any] = {"request_type": request_type, "provider": PROVIDER}
    if model is not None:
        fields["model_requested"] = model
    fields.update({"latency": 0, "chunk_index": 0})
    return fields


def bifrost_error(status: int, message: str) -> JSONResponse:
    """Bifrost's own error (R3): ``is_bifrost_error`` false, only a message."""
    body = {
        "is_bifrost_error": False,
        "status_code": status,
        "error": {"message": message},
        "extra_fields": {},
    }
    return JSONResponse(body, status_code=status)


def wrapped_error(
    status: int, content: bytes, request_type: str, model: str
) -> JSONResponse:
    """LGOS's error inside Bifrost's wrapper (R7)."""
    try:
        error = json.loads(content)["error"]
        inner = {key: value for key, value in error.items() if value is not None}
    except (ValueError, KeyError, TypeError, AttributeError):
        inner = {"message": content.decode(errors="replace")}
    body = {
        "is_bifrost_error": False,
        "status_code": status,
        "error": inner,
        "extra_fields": {
            "provider": PROVIDER,
            "model_requested": model,
            "request_type": request_type,
        },
    }
    return JSONResponse(body, status_code=status)


def strip_phase(item: Any) -> Any:
    """A message item without ``phase`` (R5); other values unchanged."""
    if isinstance(item, dict) and item.get("type", "message") == "message":
        item.pop("phase", None)
    return item


def rewrite_responses_request(body: dict[str, Any]) -> None:
    """R4 on a Responses body (in place): ``input`` as items, no ``phase``."""
    items = body.get("input")
    if isinstance(items, str):
        body["input"] = [{"role": "user", "content": items}]
        return
    for item in items if isinstance(items, list) else ():
        strip_phase(item)
        content = item.get("content") if isinstance(item, dict) else None
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "output_text":
                part.setdefault("logprobs", None)


def index_tool_calls(message: Any) -> None:
    """Give each ``tool_calls`` entry of ``message`` its ``index`` (R4, R5)."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict):
            call.setdefault("index", position)


def rewrite_chat_request(body: dict[str, Any]) -> None:
    """R4 on a Chat Completions body (in place): ``index`` on replayed calls."""
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, dict) and message.get("role") == "assistant":
            index_tool_calls(message)


def rewrite_response(response: dict[str, Any], model: str) -> dict[str, Any]:
    """R5 on a Response object: no ``phase``, Bifrost's ``extra_fields``."""
    for item in response.get("output") or ():
        strip_phase(item)
    response["extra_fields"] = extra_fields("responses", model)
    return response


def rewrite_completion(completion: dict[str, Any], model: str) -> dict[str, Any]:
    """R5 on a Chat Completion: ``index`` on the calls, ``extra_fields``."""
    for choice in completion.get("choices") or ():
        index_tool_calls(choice.get("message"))
    completion["extra_fields"] = extra_fields("chat_completion", model)
    return completion


def rewrite_event(event: dict[str, Any], model: str) -> dict[str, Any]:
    """R5 on one Responses stream event."""
    strip_phase(event.get("item"))
    response = event.get("response")
    if isinstance(response, dict):
        for item in response.get("output") or ():
            strip_phase(item)
    event["extra_fields"] = extra_fields("responses_stream", model)
    return event


class ChatChunks:
    """R6: the Chat chunks of one stream as Bifrost sends them on."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.finish: dict[str, Any] | None = None

    def feed(self, chunk: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks to send for one chunk from LGOS (none, one or two)."""
        choices = chunk.get("choices") or []
        delta = choices[0].get("delta", {}) if choices else {}
        if choices and set(delta) == {"role"} and not choices[0].get("finish_reason"):
            return []  # the role-only first chunk
        if choices and choices[0].get("finish_reason"):
            self.finish = chunk  # held until the usage chunk
            return []
        if not choices and self.finish is not None:
            merged = self.finish
            self.finish = None
            merged.update({"created": 0, "model": "", "usage": chunk.get("usage")})
            return [self.tag(merged)]
        return [self.tag(chunk)]

    def flush(self) -> list[dict[str, Any]]:
        """The held finish chunk when the stream had no usage chunk."""
        held, self.finish = self.finish, None
        return [self.tag(held)] if held is not None else []

    def tag(self, chunk: dict[str, Any]) -> dict[str, Any]:
        """A chunk as Bifrost writes it: ``null`` choice members left out."""
        choices = chunk.get("choices") or []
        chunk["choices"] = [
            {key: value for key, value in choice.items() if value is not None}
            for choice in choices
        ]
        for choice in chunk["choices"]:
            index_tool_calls(choice.get("delta"))
        chunk["extra_fields"] = extra_fields("chat_completion_stream", self.model)
        return chunk


async def sse_blocks(response: httpx.Response) -> AsyncIterator[str]:
    """The blank-line separated blocks of an SSE body, as they arrive."""
    buffer = ""
    async for text in response.aiter_text():
        buffer += text.replace("\r\n", "\n")
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            yield block
    if buffer.strip():
        yield buffer


def split_block(block: str) -> tuple[list[str], str | None]:
    """A block's non-data lines and its ``data:`` payload (``None`` if none)."""
    others, data = [], None
    for line in block.split("\n"):
        if line.startswith("data:"):
            data = line[5:].strip()
        else:
            others.append(line)
    return others, data


async def rewritten_stream(
    upstream: httpx.Response, kind: str, model: str
) -> AsyncIterator[bytes]:
    """R5/R6 over a stream from LGOS, block by block."""
    chunks = ChatChunks(model)
    async for block in sse_blocks(upstream):
        others, data = split_block(block)
        if data is None or data == "[DONE]":
            if data == "[DONE]":
                for chunk in chunks.flush():
                    yield f"data: {json.dumps(chunk)}\n\n".encode()
            yield (block + "\n\n").encode()
            continue
        payload = json.loads(data)
        if kind == "responses":
            events = [rewrite_event(payload, model)]
        else:
            events = chunks.feed(payload)
        for event in events:
            lines = [*others, f"data: {json.dumps(event, separators=(',', ':'))}"]
            yield ("\n".join(line for line in lines if line) + "\n\n").encode()


def kept_headers(response: httpx.Response) -> dict[str, str]:
    """The LGOS response headers Bifrost's ``/v1`` keeps (``x-request-id``)."""
    value = response.headers.get("x-request-id")
    return {"x-request-id": value} if value else {}


class NotRouted(ValueError):
    """A ``/v1`` request Bifrost answers itself (R3), with this message."""


def upstream_request(
    kind: str, body: object, headers: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, str], str]:
    """R3 and R4: what Bifrost's ``/v1`` sends LGOS for one request.

    Args:
        kind: ``responses`` or ``chat``.
        body: The client's JSON body.
        headers: The client's headers.

    Returns:
        The body LGOS gets, the headers it gets besides ``Authorization``
        (``x-bf-eh-*`` ones), and the model the client asked for, without
        its provider.

    Raises:
        NotRouted: the body has no ``<provider>/<model>`` Bifrost serves.

    """
    if not isinstance(body, dict):
        raise NotRouted("failed to parse the request body")
    provider, _, model = str(body.get("model", "")).partition("/")
    if not model:
        raise NotRouted("model should be in provider/model format")
    if provider != PROVIDER:
        raise NotRouted(f"provider {provider} is not configured")
    body = {**body, "model": model}
    lowered = {name.lower(): value for name, value in headers.items()}
    if lowered.get("x-bf-passthrough-extra-params", "").lower() != "true":
        known = RESPONSES_FIELDS if kind == "responses" else CHAT_FIELDS
        body = {key: value for key, value in body.items() if key in known}
    if kind == "responses":
        rewrite_responses_request(body)
    else:
        rewrite_chat_request(body)
    forwarded = {
        name[len(FORWARDED_PREFIX) :]: value
        for name, value in lowered.items()
        if name.startswith(FORWARDED_PREFIX)
    }
    return body, forwarded, model


async def v1_generate(request: Request) -> Response:
    """``POST /v1/responses`` and ``POST /v1/chat/completions`` (R3-R7)."""
    upstream: Upstream = request.app.state.upstream
    kind = "responses" if request.url.path.endswith("/responses") else "chat"
    try:
        body, forwarded, model = upstream_request(
            kind, json.loads(await request.body()), request.headers
        )
    except ValueError as exc:
        message = str(exc) if isinstance(exc, NotRouted) else "failed to parse"
        return bifrost_error(400, message)
    stream = body.get("stream") is True
    headers = upstream.headers(forwarded)
    if stream:
        headers.update({"Accept": "text/event-stream", "Cache-Control": "no-cache"})
    path = "/v1/responses" if kind == "responses" else "/v1/chat/completions"
    sent = upstream.http.build_request(
        "POST", upstream.origin + path, json=body, headers=headers
    )
    answer = await upstream.http.send(sent, stream=True)
    request_type = "responses" if kind == "responses" else "chat_completion"
    if answer.status_code >= 400:
        content = await answer.aread()
        await answer.aclose()
        suffix = "_stream" if stream and kind == "responses" else ""
        return wrapped_error(answer.status_code, content, request_type + suffix, model)
    if stream and answer.headers.get("content-type", "").startswith(
        "text/event-stream"
    ):
        return StreamingResponse(
            rewritten_stream(answer, kind, model),
            media_type="text/event-stream",
            headers={
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
                **kept_headers(answer),
            },
            background=BackgroundTask(answer.aclose),
        )
    content = json.loads(await answer.aread())
    await answer.aclose()
    if kind == "responses":
        content = rewrite_response(content, model)
    else:
        content = rewrite_completion(content, model)
    return JSONResponse(content, headers=kept_headers(answer))


async def v1_models(request: Request) -> Response:
    """``GET /v1/models`` rebuilt (R1)."""
    upstream: Upstream = request.app.state.upstream
    answer = await upstream.http.get(
        upstream.origin + "/v1/models", headers=upstream.headers()
    )
    if answer.status_code >= 400:
        return wrapped_error(answer.status_code, answer.content, "list_models", "")
    entries = [
        {
            "id": f"{PROVIDER}/{model['id']}",
            "created": model.get("created"),
            "owned_by": model.get("owned_by"),
        }
        for model in answer.json().get("data", [])
    ]
    return JSONResponse(
        {
            "data": sorted(entries, key=lambda entry: entry["id"]),
            "extra_fields": {"request_type": "list_models", "latency": 0, "chunk_index": 0},
            "key_statuses": [{"key_id": "lgos", "status": "success", "provider": PROVIDER}],
        }
    )  # fmt: skip


async def html_page(_request: Request) -> Response:
    """A ``GET`` Bifrost does not route (R2): its UI's page, status 200."""
    return Response(HTML_PAGE, media_type="text/html; charset=utf-8")


async def not_allowed(_request: Request) -> Response:
    """``POST /v1/responses/{id}/cancel`` (R2)."""
    return Response(
        "Method Not Allowed",
        status_code=405,
        media_type=PLAIN,
        headers={"Allow": "GET, OPTIONS"},
    )


def asks_for_stream(body: bytes) -> bool:
    """Whether a passthrough request's JSON body has ``stream: true`` (R8)."""
    try:
        return bool(body) and json.loads(body).get("stream") is True
    except (ValueError, AttributeError):
        return False


def passthrough_content_type(body: bytes, lgos_type: str) -> str:
    """R8: the content type the passthrough route answers with.

    LGOS's own (``lgos_type``) when the request asked for a stream, whatever
    the answer turned out to be; ``text/plain; charset=utf-8`` otherwise.
    """
    return lgos_type if asks_for_stream(body) else PLAIN


async def passthrough(request: Request) -> Response:
    """``/openai_passthrough/v1/...`` (R8)."""
    upstream: Upstream = request.app.state.upstream
    body = await request.body()
    headers = {
        name: value
        for name, value in request.headers.items()
        if name.lower() not in {"host", "content-length", "authorization"}
    }
    stream = asks_for_stream(body)
    sent = upstream.http.build_request(
        request.method,
        f"{upstream.origin}/v1/{request.path_params['rest']}",
        params=request.query_params,
        content=body,
        headers=upstream.headers(headers),
    )
    answer = await upstream.http.send(sent, stream=True)
    passed = {
        name: value
        for name, value in answer.headers.items()
        if name.lower() not in {"content-length", "transfer-encoding", "connection"}
    }
    if not stream:
        content = await answer.aread()
        await answer.aclose()
        passed["content-type"] = passthrough_content_type(
            body, answer.headers.get("content-type", "")
        )
        return Response(content, status_code=answer.status_code, headers=passed)
    return StreamingResponse(
        answer.aiter_raw(),
        status_code=answer.status_code,
        headers=passed,
        background=BackgroundTask(answer.aclose),
    )


async def health(_request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def not_found(_request: Request) -> Response:
    return bifrost_error(404, "not routed by the recorded Bifrost intermediary")


def build(upstream_origin: str, key: str) -> Starlette:
    """The intermediary in front of LGOS at ``upstream_origin`` (no ``/v1``)."""
    methods = ["GET", "POST", "DELETE", "PUT", "PATCH"]
    app = Starlette(
        routes=[
            Route("/health", health),
            Route("/v1/models", v1_models, methods=["GET"]),
            Route("/v1/models/{model:path}", html_page, methods=["GET"]),
            Route("/v1/responses", v1_generate, methods=["POST"]),
            Route("/v1/chat/completions", v1_generate, methods=["POST"]),
            Route("/v1/responses/{rid}/cancel", not_allowed, methods=["POST"]),
            Route("/v1/responses/{rid}", html_page, methods=["GET"]),
            Route("/openai_passthrough/v1/{rest:path}", passthrough, methods=methods),
            Route("/{rest:path}", not_found, methods=methods),
        ]
    )
    app.state.upstream = Upstream(upstream_origin, key)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description="A Bifrost-shaped intermediary.")
    parser.add_argument("--upstream", required=True, help="LGOS's origin, no /v1")
    parser.add_argument("--key", default="lgos-demo", help="the provider key")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(
        build(args.upstream, args.key),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
