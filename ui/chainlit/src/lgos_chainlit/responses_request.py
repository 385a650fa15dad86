"""Build the keyword arguments of one ``client.responses.create`` call.

LGOS keeps no conversation, so every request carries the whole input ledger
and ``store`` is always false. Nothing here depends on Chainlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["build_request"]


def build_request(
    *,
    model: str,
    input: Sequence[Mapping[str, Any]],
    metadata: Mapping[str, str] | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    previous_response_id: str | None = None,
    background: bool = False,
) -> dict[str, Any]:
    """Build the keyword arguments of one streamed ``responses.create`` call.

    ``store`` is always false (LGOS keeps nothing; the client keeps the
    ledger); ``metadata`` and ``tools`` are sent when not empty, and
    ``previous_response_id`` only to resume a paused run. A ``background``
    request is polled, never streamed.

    Returns:
        ``{"model", "input", "stream", "store"}`` plus the optional keys above,
        every value a fresh copy.

    """
    request: dict[str, Any] = {
        "model": model,
        "input": [dict(item) for item in input],
        "stream": True,
        "store": False,
    }
    if metadata:
        request["metadata"] = dict(metadata)
    if tools:
        request["tools"] = [dict(tool) for tool in tools]
    if previous_response_id is not None:
        request["previous_response_id"] = previous_response_id
    if background:
        # Polled, never streamed (LGOS rejects stream with background).
        request["stream"] = False
        request["background"] = True
    return request
