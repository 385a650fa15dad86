"""The mapping from OpenAI model names to served graphs."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from starlette import status

from langgraph_openai_serve.errors import InvalidRequestError
from langgraph_openai_serve.graph.config import GraphConfig, GraphFeature

__all__ = ["GraphRegistry"]


@dataclass
class GraphRegistry:
    """Registered graphs, keyed by the OpenAI ``model`` value that selects them.

    Usage::

        GraphRegistry(graphs={"chat": GraphConfig(graph=g, description="Chat.")})

    Attributes:
        graphs: A plain dict of model ID to :class:`GraphConfig`.
        run_coordinator: Lease provider shared by interrupt-enabled graphs;
            required when any graph declares ``GraphFeature.INTERRUPTS``.

    Raises:
        ValueError: At construction, for an empty registry, a model ID that is
            empty, contains ``/`` or is ``.``/``..`` (each model must be
            addressable as ``GET /models/{model}``), or interrupt graphs
            without a run coordinator.

    """

    graphs: dict[str, GraphConfig]
    run_coordinator: Any = None

    def __post_init__(self) -> None:
        if not self.graphs:
            msg = "GraphRegistry must contain at least one graph."
            raise ValueError(msg)
        for model_id, config in self.graphs.items():
            if not isinstance(model_id, str) or not model_id or "/" in model_id:
                msg = f"Model ID {model_id!r} is not addressable."
                raise ValueError(msg)
            if model_id in {".", ".."}:
                msg = f"Model ID {model_id!r} is not addressable."
                raise ValueError(msg)
            if not isinstance(config, GraphConfig):
                msg = f"Model {model_id!r} must map to a GraphConfig."
                raise ValueError(msg)
        if self.run_coordinator is None and any(
            config.supports(GraphFeature.INTERRUPTS) for config in self.graphs.values()
        ):
            msg = (
                "Interrupt-enabled graphs need a GraphRegistry run_coordinator: "
                "in lgos serve's factory, GraphRegistry(graphs=..., "
                "run_coordinator=resources.run_coordinator); see "
                "docs/how-to/interrupts.md."
            )
            raise ValueError(msg)

    def get_graph(self, model: str) -> GraphConfig:
        """Return the graph served as ``model``.

        Raises:
            InvalidRequestError: 404 ``model_not_found`` with ``param="model"``.

        """
        try:
            return self.graphs[model]
        except KeyError:
            raise InvalidRequestError(
                f"The model '{_shown(model)}' does not exist.{self._suggest(model)}",
                param="model",
                code="model_not_found",
                status_code=status.HTTP_404_NOT_FOUND,
            ) from None

    def _suggest(self, model: str, shown: int = 5) -> str:
        """Name the model meant (same letters in another case, else the closest).

        Otherwise list the first ``shown`` models and how many there are: the
        models list is what a client may ask for anyway.
        """
        ids = list(self.graphs)
        folded = {model_id.casefold(): model_id for model_id in ids}
        meant = folded.get(model.casefold())
        if meant is None:
            close = difflib.get_close_matches(model, ids, n=1, cutoff=0.75)
            meant = close[0] if close else None
        if meant is not None:
            return f" Did you mean '{meant}'?"
        listed = ", ".join(f"'{model_id}'" for model_id in ids[:shown])
        more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
        return f" This server serves {listed}{more}." if ids else ""


def _shown(name: str, limit: int = 100) -> str:
    """``name`` as an error message shows it: at most ``limit`` characters."""
    return name if len(name) <= limit else f"{name[:limit]}…"
