"""User-facing status updates that graphs publish while they work."""

from __future__ import annotations

from typing import Any

__all__ = ["STATUS_EVENT_TYPE", "StatusEvent", "parse_status_event", "status_event"]

STATUS_EVENT_TYPE = "lgos.status"


def status_event(description: str, *, hidden: bool = False) -> dict[str, Any]:
    """Build a status update for a node to write with ``get_stream_writer()``.

    Usage::

        from langgraph.config import get_stream_writer

        get_stream_writer()(status_event("Searching the web"))

    Args:
        description: User-facing text; empty descriptions are not shown.
        hidden: When true the status is kept private (graph-owned flag).

    Returns:
        ``{"type": "lgos.status", "description": description}`` (plus
        ``"hidden": True`` when hidden), a value of LangGraph's ``custom``
        stream mode.

    """
    event: dict[str, Any] = {"type": STATUS_EVENT_TYPE, "description": description}
    if hidden:
        event["hidden"] = True
    return event


class StatusEvent(str):
    """A validated, visible status description (a ``str`` subclass)."""


def parse_status_event(data: Any) -> StatusEvent | None:
    """Return the visible description of a ``status_event()`` value, or None.

    Anything else written to LangGraph's custom stream (other dicts, malformed
    status values, hidden or empty statuses, non-JSON objects) stays private
    and yields None.
    """
    if not isinstance(data, dict) or data.get("type") != STATUS_EVENT_TYPE:
        return None
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        return None
    if data.get("hidden") is True:
        return None
    if set(data) - {"type", "description", "hidden", "done", "namespace"}:
        return None
    return StatusEvent(description)
