"""Own a prepared run across a JSON or streaming HTTP response."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from langgraph_openai_serve.api.json import json_response
from langgraph_openai_serve.api.sse import FinalChunk, sse_response
from langgraph_openai_serve.errors import (
    SERVER_ERROR,
    GraphError,
    OpenAIHTTPException,
    ServerError,
)
from langgraph_openai_serve.graph.coordinator import LeaseLostError
from langgraph_openai_serve.graph.interrupt import InterruptResume
from langgraph_openai_serve.graph.request import GraphRequest
from langgraph_openai_serve.graph.runner import PreparedRun, prepare_run
from langgraph_openai_serve.ids import new_id
from langgraph_openai_serve.request_context import (
    REQUEST_ID_HEADER,
    bind_log_fields,
    current_request_id,
)

__all__ = [
    "RUN_LEASE_LOST",
    "failure_code",
    "failure_message",
    "resolve_scope",
    "respond",
]

logger = logging.getLogger(__name__)

T = TypeVar("T")


async def resolve_scope(http_request: Request) -> str:
    """Return the server-trusted checkpoint scope for this HTTP request.

    A resolver may refuse a request by raising an ``HTTPException`` (401 for
    a request without a tenant, say) or an :class:`OpenAIHTTPException`:
    the client gets its status and message in the OpenAI envelope.

    Raises:
        HTTPException: The resolver's own refusal, unchanged.
        OpenAIHTTPException: The resolver's own refusal, unchanged.
        ServerError: The resolver failed otherwise (logged with its
            traceback) or returned something other than a non-empty string.

    """
    resolver = http_request.app.state.checkpoint_scope
    try:
        scope = resolver(http_request)
        if inspect.isawaitable(scope):
            scope = await scope
    except (HTTPException, OpenAIHTTPException):
        raise
    except Exception as exc:
        logger.exception("The checkpoint scope resolver failed")
        raise ServerError("The checkpoint scope could not be resolved.") from exc
    if not isinstance(scope, str) or not scope:
        logger.error("The checkpoint scope resolver returned %r", scope)
        raise ServerError("The checkpoint scope could not be resolved.")
    return scope


def failure_message(exc: BaseException) -> str:
    """Client-safe text for a failed run: LGOS's own messages, else a generic one.

    Exceptions raised by graph code may carry internal details, so only
    messages LGOS wrote reach the client: :class:`GraphError` and
    :class:`~langgraph_openai_serve.graph.coordinator.LeaseLostError`.
    """
    if isinstance(exc, GraphError | LeaseLostError):
        return str(exc)
    return "The graph run failed."


RUN_LEASE_LOST = "run_lease_lost"
"""The error ``code`` of a run stopped because its lease was lost (HTTP 503)."""


def failure_code(exc: BaseException) -> str:
    """Return a failed run's error ``code``: ``run_lease_lost`` or ``server_error``."""
    return RUN_LEASE_LOST if isinstance(exc, LeaseLostError) else SERVER_ERROR


CLIENT_CLOSED_REQUEST = 499
"""The status logged for a request whose client left before its answer."""


class ClientLeft(Exception):
    """The client disconnected before a non-streaming answer was ready."""


async def _wait_for_disconnect(request: Request, deadline: asyncio.Timeout) -> None:
    # The body has been read, so the next ASGI message is the disconnect
    # (or, once the answer is sent, nothing this task lives to see).
    while (await request.receive())["type"] != "http.disconnect":
        pass
    deadline.reschedule(asyncio.get_running_loop().time())


async def _unless_client_leaves(request: Request, work: Awaitable[T]) -> T:
    """Await ``work``; cancel it at once if the client disconnects first.

    Streams stop when their client leaves (sse-starlette watches for the
    disconnect); this does the same for non-streaming answers, so a run
    nobody waits for stops at its graph's next ``await``.

    Raises:
        ClientLeft: The client disconnected; ``work`` was cancelled.

    """
    deadline = asyncio.timeout(None)
    try:
        async with deadline:
            watcher = asyncio.ensure_future(_wait_for_disconnect(request, deadline))
            try:
                return await work
            finally:
                watcher.cancel()
    except TimeoutError:
        if deadline.expired():  # not a TimeoutError the graph raised
            raise ClientLeft from None
        raise


async def respond(
    http_request: Request,
    graph_request: GraphRequest,
    messages: Sequence[BaseMessage],
    *,
    stream: bool,
    collect: Callable[[PreparedRun], Awaitable[dict[str, Any]]],
    encode: Callable[[PreparedRun], AsyncGenerator[bytes, None]],
    resume: InterruptResume | None = None,
    run_id: uuid.UUID | None = None,
    instructions: str | None = None,
) -> Response:
    """Prepare a run, then answer with JSON (``collect``) or SSE (``encode``).

    Preparation errors (unknown model, invalid settings, busy or conflicting
    interrupt runs) surface before any byte is sent, so they keep their HTTP
    status; other preparation failures are logged and become a 500. The run
    (and an interrupt run's lease) is released when the JSON is built, or
    when the event stream ends, fails, or the client disconnects. A stream's
    terminal chunk (a :class:`~langgraph_openai_serve.api.sse.FinalChunk`
    from ``encode``) is sent only after that release, so a client reading
    the terminal event finds the run free (and a finished run's checkpoint
    deleted).

    The run's ``lgos.request_id`` is the request's ``x-request-id``, and the
    model becomes a log field of the request. ``instructions`` (Responses)
    are recorded with a new interrupt run, so its resumes may repeat them.
    """
    bind_log_fields(model=graph_request.model)
    request_id = current_request_id()
    headers: dict[str, str] = {}
    if request_id is None:  # routes served without the mount's middleware
        request_id = new_id("req")
        headers[REQUEST_ID_HEADER] = request_id
    stack = AsyncExitStack()
    try:
        run = await stack.enter_async_context(
            prepare_run(
                graph_request,
                messages,
                http_request.app.state.graph_registry,
                checkpoint_scope=await resolve_scope(http_request),
                resume=resume,
                run_id=run_id,
                request_id=request_id,
                instructions=instructions,
            )
        )
    except (HTTPException, OpenAIHTTPException):
        raise
    except Exception as exc:
        # A graph factory or adapter failed: logged here once.
        logger.exception("Graph run preparation failed (model %s)", graph_request.model)
        raise ServerError(failure_message(exc)) from exc
    if not stream:
        async with stack:
            try:
                response = json_response(
                    await _unless_client_leaves(http_request, collect(run))
                )
            except ClientLeft:
                # Nobody is listening: the run was cancelled, as a stream's is.
                return Response(status_code=CLIENT_CLOSED_REQUEST)
            except OpenAIHTTPException:
                raise
            except LeaseLostError as exc:
                logger.error(
                    "Run stopped: its lease was lost (model %s)", graph_request.model
                )
                raise ServerError(
                    str(exc), code=RUN_LEASE_LOST, status_code=503
                ) from exc
            except Exception as exc:
                logger.exception("Graph run failed (model %s)", graph_request.model)
                raise ServerError(failure_message(exc)) from exc
        response.headers.update(headers)
        return response

    async def body() -> AsyncIterator[bytes]:
        final: bytes | None = None
        async with stack, contextlib.aclosing(encode(run)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, FinalChunk):
                    final = chunk
                    break
                yield chunk
        # Encoder closed and run released: the terminal event goes out last.
        if final is not None:
            yield final

    response = sse_response(body())
    response.headers.update(headers)
    return response
