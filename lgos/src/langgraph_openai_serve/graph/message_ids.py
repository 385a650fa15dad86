"""Give input messages their IDs as ``add_messages`` would, at a fraction of its cost.

LangGraph's ``add_messages`` reducer gives every message without an ID a
``str(uuid.uuid4())`` through pydantic's ``__setattr__``: about 2.5 µs a
message, more than half of a trivial graph's own time on a replayed
conversation of 500 messages. LGOS builds the input messages itself, so it
gives them the same IDs first, from one read of the random source (about
0.5 µs a message), and the reducer finds nothing left to do.

It does so only where the graph would do the same: the default graph input
(no ``request_to_input``) into a ``messages`` channel reduced by
``add_messages`` itself. A graph with another reducer, a plain ``messages``
channel or its own input adapter receives the messages exactly as decoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.graph.message import add_messages

from langgraph_openai_serve.graph.config import GraphConfig
from langgraph_openai_serve.ids import uuid4_strings

__all__ = ["graph_messages"]


def _reduces_with_add_messages(graph: Any) -> bool:
    channels = getattr(graph, "channels", None)
    channel = channels.get("messages") if isinstance(channels, dict) else None
    return (
        isinstance(channel, BinaryOperatorAggregate)
        and channel.operator is add_messages
    )


def graph_messages(
    config: GraphConfig, graph: Any, messages: Sequence[BaseMessage]
) -> list[BaseMessage]:
    """Return the messages for ``config.build_input``, with IDs where due.

    Where the graph's ``add_messages`` would give a message without an ID a
    random UUID string, the message gets one here, in place, the way the
    reducer sets it (the field's value and the model's set of given fields);
    messages with an ID keep it.
    """
    listed = list(messages)
    if config.request_to_input is not None or not _reduces_with_add_messages(graph):
        return listed
    missing = [message for message in listed if message.id is None]
    for message, new in zip(missing, uuid4_strings(len(missing)), strict=True):
        vars(message)["id"] = new
        message.__pydantic_fields_set__.add("id")
    return listed
