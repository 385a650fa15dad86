"""Carry a run across an HTTP response: prepare it, answer with JSON or SSE.

The run stage of both routes. :func:`start_run` takes the run a decoder
specified (a :class:`~langgraph_openai_serve.graph.run_spec.RunSpec`) and
prepares its :class:`~langgraph_openai_serve.graph.session.RunSession` for an
HTTP request (its scope, its request ID, its server's stop switch), turning
preparation errors into OpenAI errors before any byte is sent; the returned
:class:`HttpRun` then answers with the protocol's encoder: :meth:`HttpRun.json`
(cancelled if the client leaves) or :meth:`HttpRun.sse` (the stream's terminal
event comes after the run is released, as the session hands out results only
then).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from langgraph_openai_serve.api.json_response import json_response
from langgraph_openai_serve.api.run_failures import (
    RUN_LEASE_LOST,
    failure_message,
    log_failure,
    run_error,
    shutting_down,
)
from langgraph_openai_serve.api.sse import sse_response
from langgraph_openai_serve.errors import (
    OpenAIHTTPException,
    ServerError,
)
from langgraph_openai_serve.graph.coordinator import (
    LeaseLostError,
)
from langgraph_openai_serve.graph.run_spec import RunSpec
from langgraph_openai_serve.graph.run_stop import RunStoppedError
from langgraph_openai_serve.graph.session import RunSession
from langgraph_openai_serve.ids import new_id
from langgraph_openai_serve.request_context import (
    REQUEST_ID_HEADER,
    bind_log_fields,
    current_request_id,
)

__all__ = ["HttpRun", "request_id_headers", "resolve_scope", "start_run"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

ErrorMap = Callable[[Exception], OpenAIHTTPException | None]
"""A protocol's mapping of its own neutral run errors (None: not one of them)."""


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


def request_id_headers() -> tuple[str, dict[str, str]]:
    """Return this request's ID and the headers that must carry it.

    Routes served behind the mount's middleware already send
    ``x-request-id``; others get a new ID here, sent by the route.
    """
    request_id = current_request_id()
    if request_id is not None:
        return request_id, {}
    request_id = new_id("req")
    return request_id, {REQUEST_ID_HEADER: request_id}


@dataclass(slots=True)
class HttpRun:
    """A prepared run owned by one HTTP request until its answer is sent.

    Attributes:
        http_request: The HTTP request.
        session: The prepared run.
        headers: Headers every answer carries (a generated request ID).

    """

    http_request: Request
    session: RunSession
    headers: dict[str, str] = field(default_factory=dict)

    async def json(self, work: Awaitable[dict[str, Any]]) -> Response:
        """Answer with the JSON object ``work`` builds from the run.

        The run is released when ``work`` ends, fails, or the client leaves
        (then ``work`` is cancelled and the answer is an empty 499).

        Raises:
            OpenAIHTTPException: ``work``'s own error, unchanged.
            ServerError: 503 ``run_lease_lost``; 503 ``server_shutting_down``
                (with ``Retry-After``) for a run the shutting-down server
                stopped; or 500 for a graph failure (logged with its
                traceback).

        """
        model = self.session.request.model
        try:
            body = await _unless_client_leaves(self.http_request, work)
        except ClientLeft:
            # Nobody is listening: the run was cancelled, as a stream's is.
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        except OpenAIHTTPException:
            raise
        except LeaseLostError as exc:
            logger.error("Run stopped: its lease was lost (model %s)", model)
            raise ServerError(str(exc), code=RUN_LEASE_LOST, status_code=503) from exc
        except RunStoppedError as exc:
            logger.warning("Run stopped: the server is shutting down (model %s)", model)
            raise shutting_down(str(exc)) from exc
        except Exception as exc:
            log_failure(logger, f"Graph run failed (model {model})", exc)
            raise ServerError(failure_message(exc)) from exc
        finally:
            await self.session.release()
        response = json_response(body)
        response.headers.update(self.headers)
        return response

    def sse(self, chunks: AsyncGenerator[bytes, None]) -> Response:
        """Answer with the event stream ``chunks`` encodes from the run.

        The run is released when the stream ends, fails, or the client
        disconnects (which closes ``chunks``), and at the latest when the
        response is over: a client gone before the stream started never
        iterates ``chunks`` at all.
        """
        session = self.session

        async def body() -> AsyncIterator[bytes]:
            # Closed or cancelled, the encoder (and through it the graph)
            # stops first; the release comes after.
            try:
                async with contextlib.aclosing(chunks):
                    async for chunk in chunks:
                        yield chunk
            finally:
                await session.release()

        response = sse_response(body(), on_close=session.release)
        response.headers.update(self.headers)
        return response


async def start_run(
    http_request: Request,
    spec: RunSpec,
    *,
    errors: ErrorMap | None = None,
) -> HttpRun:
    """Prepare the run ``spec`` describes for an HTTP request; errors before any byte.

    Args:
        http_request: The HTTP request; its app holds the graph registry
            (``state.graph_registry``), the scope resolver and the
            :class:`~langgraph_openai_serve.graph.run_stop.RunStop` of its
            shutdown (``state.run_stop``), handed to the run.
        spec: The run, as the protocol's decoder specified it; it runs in
            the request's checkpoint scope with the request's ID
            (``lgos.request_id`` of the run).
        errors: The protocol's mapping of its own neutral errors (the
            Responses API maps resume errors), tried before the lease errors.

    Raises:
        OpenAIHTTPException: A mapped preparation error (unknown model,
            invalid settings, ``run_busy``, a resume the run cannot take …),
            or a 500 for any other failure (logged once).
        HTTPException: The scope resolver's own refusal.

    """
    request_id, headers = request_id_headers()
    scope = await resolve_scope(http_request)
    state = http_request.app.state
    run = RunSession.from_spec(
        spec,
        state.graph_registry,
        checkpoint_scope=scope,
        request_id=request_id,
        # The app's shutdown stops its runs that outlive their grace period.
        stop=getattr(state, "run_stop", None),
    )
    bind_log_fields(model=spec.request.model)
    try:
        await run.prepare()
    except (HTTPException, OpenAIHTTPException):
        raise
    except Exception as exc:
        mapped = (errors(exc) if errors is not None else None) or run_error(exc)
        if mapped is not None:
            raise mapped from None
        # A graph factory or adapter failed: logged here once.
        model = spec.request.model
        log_failure(logger, f"Graph run preparation failed (model {model})", exc)
        raise ServerError(failure_message(exc)) from exc
    return HttpRun(http_request, run, headers)
