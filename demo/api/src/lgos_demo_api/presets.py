"""A prompt, runtime settings and server tools that suit each demo graph.

The notebooks under ``demo/api/notebooks`` send these to the graphs they
compare, so every path they time or show gets the same request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from langgraph_openai_serve import GraphRequest

__all__ = ["PRESETS", "Preset"]


@dataclass(frozen=True)
class Preset:
    """One demo request.

    Attributes:
        prompt: The user message.
        settings: Public runtime settings, sent as ``metadata.lgos_settings``.
        server_tools: Server tools to select (``web_search`` selects the
            graph's web search).

    """

    prompt: str
    settings: dict[str, Any] = field(default_factory=dict)
    server_tools: tuple[str, ...] = ()

    @property
    def metadata(self) -> dict[str, str]:
        """The request metadata: compact ``lgos_settings`` JSON, if any."""
        if not self.settings:
            return {}
        return {"lgos_settings": json.dumps(self.settings, separators=(",", ":"))}

    def graph_request(self, model: str) -> GraphRequest:
        """Return the ``GraphRequest`` a direct runner call receives."""
        return GraphRequest(
            model=model, metadata=self.metadata, server_tools=self.server_tools
        )

    def responses_kwargs(self, model: str) -> dict[str, Any]:
        """Return the keyword arguments of the equivalent ``responses.create``."""
        kwargs: dict[str, Any] = {"model": model, "input": self.prompt}
        if self.metadata:
            kwargs["metadata"] = self.metadata
        if self.server_tools:
            kwargs["tools"] = [{"type": name} for name in self.server_tools]
        return kwargs


PRESETS: dict[str, Preset] = {
    "deep-research": Preset(
        "Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
        {"review_plan": False, "research_rounds": 1},
        ("web_search",),
    ),
    "chat": Preset("What is LangGraph?"),
    "writer": Preset("How does LGOS stream progress?", {"sections": 2, "pace": 0.0}),
    "citations": Preset("Compare Chat Completions and the Responses API"),
}
"""The request each notebook sends to each graph, by model ID."""
