"""A prepared run and what its close does with its checkpoint.

:func:`~.prepare.prepare_spec` builds a :class:`PreparedRun`; the execution
(:mod:`.execution`) reads it and tells it what happened to the run's
checkpoint (:meth:`PreparedRun.start`, :meth:`PreparedRun.retain`,
:meth:`PreparedRun.finish`); the preparation's close reads its
:class:`Disposition` back.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from langchain_core.messages.ai import UsageMetadata
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.graph.coordinator import Lease
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.interrupt import LangGraphInterruptBatch
from langgraph_openai_serve.graph.usage import UsageCollector

__all__ = ["Disposition", "PreparedRun"]


class Disposition(Enum):
    """What happens to an interrupt run's checkpoint when the run closes.

    A first request cleans up unless it hands out a batch; a resume keeps the
    pause it answers until it hands out a new batch or the graph finishes, so
    a resume cut off by a disconnect, a cancellation or a failure leaves the
    pause resumable, as a crash does (more than the best-effort clean-up the
    specification asks for). The run's execution
    (:func:`~.execution.stream_run_batches`) changes it through the
    :class:`PreparedRun` methods named for what happened.
    """

    UNTOUCHED = "untouched"  # nothing executed: leave state as it is
    CLEANUP = "cleanup"  # a first run executing, or the graph finished: delete
    RETAINED = "retained"  # a batch is out (or being answered): keep the thread


@dataclass(slots=True)
class PreparedRun:
    """Everything one graph execution needs, built before it starts.

    Attributes:
        request: The normalized request.
        config: The registered graph configuration.
        graph: The resolved compiled graph.
        graph_input: The graph's input (a ``Command`` when resuming).
        context: The LangGraph runtime context, or None.
        runnable_config: Callbacks, run name, correlation metadata and, for
            interrupt runs, the checkpoint ``thread_id``.
        run_id: The run UUID of an interrupt run, else None.
        pending: A batch to re-emit without executing (a retried initial
            request whose run is already paused), else None.
        resume_from: The checkpoint ID of the pause a resume answers when a
            later checkpoint (left by an earlier, cut-off resume) hides it;
            the run forks from it. None to continue from the latest.
        lease: The interrupt run's lease, when the coordinator hands one out;
            if it is lost the run stops and writes nothing more.
        disposition: What the run's close does with its checkpoint thread;
            read it, change it only through :meth:`start`, :meth:`retain`
            and :meth:`finish`.

    """

    request: GraphRequest
    config: GraphConfig
    graph: CompiledStateGraph
    graph_input: Any
    context: Any
    runnable_config: RunnableConfig
    _usage: UsageCollector = field(repr=False)
    run_id: uuid.UUID | None = None
    pending: LangGraphInterruptBatch | None = None
    resume_from: str | None = None
    lease: Lease | None = None
    disposition: Disposition = Disposition.UNTOUCHED

    @property
    def usage(self) -> UsageMetadata | None:
        """Aggregated usage reported by the run's model calls, or None."""
        return self._usage.usage

    @property
    def interrupts(self) -> bool:
        """Whether this is an interrupt-enabled (checkpointed) run."""
        return self.run_id is not None

    @property
    def resuming(self) -> bool:
        """Whether the graph's input answers a pause (a ``Command``)."""
        return isinstance(self.graph_input, Command)

    def start(self) -> None:
        """Record that the graph starts executing.

        A first run's thread is deleted on close from now on, unless it hands
        out a batch; a resume keeps the pause it answers until the graph
        finishes. No effect on a run without interrupts.
        """
        if self.interrupts:
            self.disposition = (
                Disposition.RETAINED if self.resuming else Disposition.CLEANUP
            )

    def retain(self) -> None:
        """Record that a pause is handed out (new or re-delivered): keep the thread."""
        self.disposition = Disposition.RETAINED

    def finish(self) -> None:
        """Record that the graph finished: nothing is left to resume, delete the thread.

        No effect on a run without interrupts.
        """
        if self.interrupts:
            self.disposition = Disposition.CLEANUP
