"""What to run: one frozen value handed from a decoder down to the run.

A :class:`RunSpec` is the run as a request asks for it: the neutral request,
the conversation, the graph (once looked up), and for interrupt runs the
resume and the run's identity. Both decoders return one; the HTTP run stage
(:func:`~langgraph_openai_serve.api.http_run.start_run`), the background worker
and the direct runner hand it to :class:`~.session.RunSession`, which
prepares it (:func:`~.prepare.prepare_spec`). What belongs to the server
rather than to the request (the checkpoint scope, the request ID, a stop
switch) is given beside it.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import BaseMessage

from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature
from langgraph_openai_serve.graph.graph_request import GraphRequest
from langgraph_openai_serve.graph.interrupt import InterruptResume, NotPausedError
from langgraph_openai_serve.graph.registry import GraphRegistry

__all__ = ["RunSpec", "check_resumable"]


def check_resumable(config: GraphConfig, resume: InterruptResume | None) -> None:
    """Refuse a resume of a graph that never pauses: the rule, written once.

    Only a graph declaring ``GraphFeature.INTERRUPTS`` checkpoints its runs,
    so only its runs can be resumed (the integration contract). A
    :class:`RunSpec` that knows its graph has passed this check.

    Raises:
        NotPausedError: ``resume`` is given and ``config`` never pauses
            (``interrupts=False``; the Responses API answers 400
            ``previous_response_id``).

    """
    if resume is not None and not config.supports(GraphFeature.INTERRUPTS):
        raise NotPausedError(interrupts=False)


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One run as a request specifies it; frozen, handed down unchanged.

    A spec that knows its graph is one a run can take: a resume needs a graph
    declaring ``GraphFeature.INTERRUPTS`` (:func:`check_resumable`, checked
    when the spec is made with its graph, or learns it in :meth:`for_graph`).

    Attributes:
        request: The normalized request; ``request.model`` selects the graph.
        messages: The conversation as LangChain messages (empty on resume);
            not copied, so treat it as read-only.
        config: ``request.model``'s registered graph, or None until
            :meth:`for_graph` looks it up.
        resume: The answers to a paused run, or None.
        run_id: The run UUID of a new interrupt run (random when None; a
            resume's is ``resume.run_id``).
        instructions: A new interrupt run's system instructions (their
            digest is kept so that resumes may repeat them).
        fingerprint: A first request's fingerprint: a digest its adapter
            computes over what makes two requests the same request (the
            Responses adapter: model, input, instructions, tools, settings).
            A new interrupt run keeps it with its checkpoints; a first
            request naming a paused run re-delivers the pause only when its
            fingerprint matches the one kept
            (:func:`~.interrupt.check_retried_request`). None on resumes
            and for callers that compute none.

    Raises:
        NotPausedError: ``resume`` is given and ``config`` is a graph that
            never pauses (``interrupts=False``).

    """

    request: GraphRequest
    messages: Sequence[BaseMessage] = ()
    config: GraphConfig | None = None
    resume: InterruptResume | None = None
    run_id: uuid.UUID | None = None
    instructions: str | None = None
    fingerprint: str | None = None

    def __post_init__(self) -> None:
        if self.config is not None:
            check_resumable(self.config, self.resume)

    @property
    def interrupts(self) -> bool:
        """Whether the graph is known and declares ``GraphFeature.INTERRUPTS``."""
        return self.config is not None and self.config.supports(GraphFeature.INTERRUPTS)

    def for_graph(self, registry: GraphRegistry) -> RunSpec:
        """Return this spec with its graph, looked up in ``registry`` if unknown.

        Raises:
            InvalidRequestError: ``request.model`` is not registered (404).
            NotPausedError: A resume of a graph that never pauses.

        """
        if self.config is not None:
            return self
        config = registry.get_graph(self.request.model)
        return dataclasses.replace(self, config=config)
