"""A scripted OpenAI-compatible API for the UI's client, and the streams it sends.

:class:`Server` records each Responses request and answers it with the next
scripted ``httpx2.Response``: :func:`streamed` events (a whole Response from
:func:`response_events`, its message items from :func:`text_message`) or an
:func:`error_response`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

import httpx2
from openai import AsyncOpenAI


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)


class Server:
    """Records requests and answers each with the next scripted response."""

    def __init__(self, *responses: httpx2.Response) -> None:
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        return self.responses.pop(0)

    def client(self) -> AsyncOpenAI:
        return AsyncOpenAI(
            base_url="http://lgos.test/v1",
            api_key="lgos-demo",
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(self)),
        )


def streamed(*events: dict[str, Any]) -> httpx2.Response:
    return httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content=sse(*events)
    )


def error_response(status: int, message: str, **fields: Any) -> httpx2.Response:
    body = {
        "error": {
            "message": message,
            "type": fields.get("type", "invalid_request_error"),
            "param": fields.get("param"),
            "code": fields.get("code"),
        }
    }
    return httpx2.Response(status, json=body)


def text_message(
    item_id: str, text: str, phase: str = "final_answer", annotations=()
) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "phase": phase,
        "content": [
            {"type": "output_text", "text": text, "annotations": list(annotations)}
        ],
    }


def response_events(
    output: Sequence[dict[str, Any]],
    *,
    status: str = "completed",
    **extra: Any,
) -> Iterator[dict[str, Any]]:
    """Stream ``output`` the way LGOS does; text arrives word by word."""
    seq = iter(range(10_000))

    def response(state: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1720000000,
            "model": "m",
            "status": state,
            "output": items,
            **(extra if state == status else {}),
        }

    yield {
        "type": "response.created",
        "sequence_number": next(seq),
        "response": response("in_progress", []),
    }
    for index, item in enumerate(output):
        if item["type"] == "message":
            yield {
                "type": "response.output_item.added",
                "sequence_number": next(seq),
                "output_index": index,
                "item": {**item, "status": "in_progress", "content": []},
            }
            for part in item["content"]:
                if part["type"] == "refusal":
                    yield {
                        "type": "response.refusal.delta",
                        "sequence_number": next(seq),
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": part["refusal"],
                    }
                    continue
                for word in re.findall(r"\S+\s*", part["text"]):
                    yield {
                        "type": "response.output_text.delta",
                        "sequence_number": next(seq),
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": word,
                        "logprobs": [],
                    }
        else:
            yield {
                "type": "response.output_item.added",
                "sequence_number": next(seq),
                "output_index": index,
                "item": {**item, "status": "in_progress", "arguments": ""},
            }
        yield {
            "type": "response.output_item.done",
            "sequence_number": next(seq),
            "output_index": index,
            "item": item,
        }
    terminal = {
        "completed": "response.completed",
        "incomplete": "response.incomplete",
        "failed": "response.failed",
    }[status]
    yield {
        "type": terminal,
        "sequence_number": next(seq),
        "response": response(status, list(output)),
    }
