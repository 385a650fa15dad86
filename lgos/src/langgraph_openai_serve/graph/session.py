"""A run's lifecycle in one object: prepare → events → release → result.

Every caller runs a graph through a :class:`RunSession`: both HTTP routes,
the background worker, and ``run_langgraph``/``run_langgraph_stream``. The
session takes a :class:`~.run_spec.RunSpec` (:meth:`RunSession.from_spec`;
the constructor builds one from its arguments) and holds what
:func:`~.prepare.prepare_spec` built (and an interrupt run's lease) from
:meth:`~RunSession.prepare`, the one place preparation starts, until it is
released; its :meth:`~RunSession.batches` hand out the graph's events, and
the result (the answer, or the pause) only once the run is released, so
whoever receives the result finds the run free and a finished run's
checkpoint deleted.

The session also records the run's Prometheus metrics
(:mod:`langgraph_openai_serve.metrics`): the run in flight from preparation
to release, an accepted resume, a new pause, and the request's first
streamed text.

Usage::

    async with RunSession(request, messages, registry) as session:
        async for batch in session.batches(stream=True):
            ...  # the last batch is the result, after the release
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncGenerator, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Self

from langchain_core.messages import BaseMessage
from langchain_core.messages.ai import UsageMetadata

from langgraph_openai_serve.errors import GraphError
from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.execution import (
    RunEvent,
    TextChunk,
    is_result,
    stream_run_batches,
)
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.interrupt import (
    InterruptResume,
    LangGraphInterruptBatch,
)
from langgraph_openai_serve.graph.prepare import (
    DEFAULT_CHECKPOINT_SCOPE,
    PreparedRun,
    prepare_spec,
)
from langgraph_openai_serve.graph.registry import GraphRegistry
from langgraph_openai_serve.graph.run_spec import RunSpec
from langgraph_openai_serve.graph.run_stop import RunStop
from langgraph_openai_serve.metrics import (
    INTERRUPTS_PAUSED,
    INTERRUPTS_RESUMED,
    RUNS_IN_FLIGHT,
    note_first_token,
)

__all__ = ["RunSession"]


class RunSession:
    """One graph run, from preparation to its released result.

    The constructor's arguments are those of a :class:`~.run_spec.RunSpec`
    and of :meth:`from_spec`.

    Args:
        request: The normalized request; ``request.model`` selects the graph.
        messages: The conversation as LangChain messages (unused on resume).
        registry: Where the graph is registered.
        config: ``request.model``'s graph when the caller already looked it
            up (a decoder does, once per request); else looked up here.
        checkpoint_scope: Server-trusted scope of interrupt checkpoints.
        resume: The answers to a paused run, or None.
        run_id: The run UUID of a new interrupt run (random when None).
        request_id: Correlation ID recorded in the run's config metadata.
        instructions: A new interrupt run's system instructions (their
            digest is kept so that resumes may repeat them).
        fingerprint: A first request's fingerprint
            (:attr:`~.run_spec.RunSpec.fingerprint`), or None.
        stop: A switch that stops the run early (a server shutting down);
            also settable as the ``stop`` attribute before :meth:`batches`.

    Raises:
        NotPausedError: A resume with a ``config`` that never pauses (the
            spec's rule; without ``config`` it surfaces in :meth:`prepare`).

    """

    def __init__(
        self,
        request: GraphRequest,
        messages: Sequence[BaseMessage],
        registry: GraphRegistry,
        *,
        config: GraphConfig | None = None,
        checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
        resume: InterruptResume | None = None,
        run_id: uuid.UUID | None = None,
        request_id: str | None = None,
        instructions: str | None = None,
        fingerprint: str | None = None,
        stop: RunStop | None = None,
    ) -> None:
        spec = RunSpec(
            request, messages, config, resume, run_id, instructions, fingerprint
        )
        self._hold(spec, registry, checkpoint_scope, request_id, stop)

    def _hold(
        self,
        spec: RunSpec,
        registry: GraphRegistry,
        checkpoint_scope: str,
        request_id: str | None,
        stop: RunStop | None,
    ) -> None:
        self.spec = spec
        self.registry = registry
        self.checkpoint_scope = checkpoint_scope
        self.request_id = request_id
        self.stop = stop
        self._stack = AsyncExitStack()
        self._run: PreparedRun | None = None
        self._in_flight = False

    @classmethod
    def from_spec(
        cls,
        spec: RunSpec,
        registry: GraphRegistry,
        *,
        checkpoint_scope: str = DEFAULT_CHECKPOINT_SCOPE,
        request_id: str | None = None,
        stop: RunStop | None = None,
    ) -> RunSession:
        """Return the (unprepared) session of the run ``spec`` describes.

        Args:
            spec: The run, as a decoder (or a direct caller) specified it.
            registry: Where the graph is registered.
            checkpoint_scope: Server-trusted scope of interrupt checkpoints.
            request_id: Correlation ID recorded in the run's config metadata.
            stop: A switch that stops the run early (a server shutting down).

        """
        session = cls.__new__(cls)
        session._hold(spec, registry, checkpoint_scope, request_id, stop)
        return session

    @property
    def request(self) -> GraphRequest:
        """The normalized request (``request.model`` names the graph)."""
        return self.spec.request

    @property
    def run(self) -> PreparedRun:
        """The prepared run.

        Raises:
            RuntimeError: :meth:`prepare` has not succeeded.

        """
        if self._run is None:
            msg = "The run session is not prepared."
            raise RuntimeError(msg)
        return self._run

    @property
    def usage(self) -> UsageMetadata | None:
        """Aggregated usage of the run's model calls so far, or None."""
        return self._run.usage if self._run is not None else None

    async def prepare(self) -> PreparedRun:
        """Prepare the run; its errors surface here, before any event.

        Raises:
            Exception: Whatever :func:`~.prepare.prepare_spec` raises (unknown
                model, invalid settings, a busy lease, a resume the run
                cannot take, a failing graph factory); nothing is held then.

        """
        prepared = prepare_spec(
            self.spec,
            self.registry,
            checkpoint_scope=self.checkpoint_scope,
            request_id=self.request_id,
        )
        self._run = await self._stack.enter_async_context(prepared)
        model = self.request.model
        RUNS_IN_FLIGHT.labels(model).inc()
        self._in_flight = True
        if self.spec.resume is not None:
            INTERRUPTS_RESUMED.labels(model).inc()
        return self._run

    async def release(self) -> None:
        """Release the run: free its lease, delete a finished run's checkpoint.

        Idempotent; clean-up is shielded from cancellation.
        """
        if self._in_flight:
            self._in_flight = False
            RUNS_IN_FLIGHT.labels(self.request.model).dec()
        await self._stack.aclose()

    async def batches(self, *, stream: bool) -> AsyncGenerator[list[RunEvent], None]:
        """Execute the run and yield its events in batches; the result comes last.

        The events are those of
        :func:`~.execution.stream_run_batches`. The last batch holds only the
        result (the answer ``AIMessage`` or the pause) and is yielded after
        :meth:`release`. When the graph fails, or the iterator is closed or
        cancelled early, the run is released before the error propagates.

        Raises:
            Exception: Whatever the graph raised.
            GraphError: The final output cannot be rendered.
            RunStoppedError: :attr:`stop` was triggered while the graph ran.

        """
        result: list[RunEvent] | None = None
        texted = False
        run = self.run
        try:
            batches = stream_run_batches(run, stream=stream, stop=self.stop)
            async with contextlib.aclosing(batches) as parts:
                async for batch in parts:
                    if len(batch) == 1 and is_result(batch[0]):
                        result = batch  # always alone, in the last batch
                        break
                    if not texted and any(isinstance(e, TextChunk) for e in batch):
                        texted = True
                        note_first_token()
                    yield batch
        finally:
            await self.release()
        if result is None:  # pragma: no cover - the stream ends with a result
            raise GraphError("The graph finished without producing output.")
        if isinstance(result[0], LangGraphInterruptBatch) and run.pending is None:
            # A new pause (a repeated request re-delivers a pending one).
            INTERRUPTS_PAUSED.labels(self.request.model).inc()
        yield result

    async def __aenter__(self) -> Self:
        await self.prepare()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.release()
