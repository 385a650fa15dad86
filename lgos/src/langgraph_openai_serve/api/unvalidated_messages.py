"""Build LangChain messages from request parts that are already validated.

Decoding a replayed conversation builds one LangChain message per item, and
pydantic validating each message again (after the request model validated
the same values) is most of that cost. :class:`MessageBuilder` fills in the
fields the way ``model_construct`` does — the defaults of the message class,
the given values, the set of given fields — without validating them, and
without ``model_construct``'s own per-call overhead.

It is used only where the values come from the validated request and have
the types the message declares (strings, lists of content blocks, dicts of
strings). At first use each builder compares what it builds with the class's
own constructor; if they ever differ (another LangChain or pydantic version),
it falls back to the constructor for good.
"""

from __future__ import annotations

import logging
from typing import Any, Generic, TypeVar

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)

__all__ = ["MessageBuilder", "ai_message", "human_message", "system_message"]

logger = logging.getLogger(__name__)

MessageT = TypeVar("MessageT", bound=BaseMessage)

_set = object.__setattr__  # past pydantic's __setattr__, as model_construct sets them

# Field values the self-check builds with, covering every field LGOS passes.
_PROBES: tuple[dict[str, Any], ...] = (
    {"content": "probe"},
    {"content": [{"type": "text", "text": "probe"}], "id": "msg_1", "name": "n"},
    {"content": "", "additional_kwargs": {"phase": "commentary"}},
)


class MessageBuilder(Generic[MessageT]):
    """Build ``cls`` messages from trusted values, as its constructor would.

    ``builder(content, **fields)`` equals ``cls(content=content, **fields)``:
    same field values, same set of given fields, and the same defaults
    (fresh empty ``additional_kwargs``, ``response_metadata`` and, for AI
    messages, tool-call lists per message).

    Args:
        cls: A LangChain message class whose fields have no validators that
            change the values LGOS passes (``content``, ``id``, ``name``,
            ``additional_kwargs``).

    """

    __slots__ = ("_checked", "_cls", "_defaults", "_extra", "_mutable")

    def __init__(self, cls: type[MessageT]) -> None:
        self._cls = cls
        probe = cls(content="")
        self._defaults = dict(probe.__dict__)
        self._mutable = tuple(
            (name, type(value))
            for name, value in self._defaults.items()
            if isinstance(value, dict | list)
        )
        self._extra = probe.__pydantic_extra__
        self._checked: bool | None = None

    def _build(self, content: Any, fields: dict[str, Any]) -> MessageT:
        values = self._defaults.copy()
        for name, kind in self._mutable:
            values[name] = kind()
        values["content"] = content
        if fields:
            values.update(fields)
            given = {"content", *fields}
        else:
            given = {"content"}
        cls = self._cls
        message = cls.__new__(cls)
        _set(message, "__dict__", values)
        _set(message, "__pydantic_fields_set__", given)
        _set(message, "__pydantic_extra__", None if self._extra is None else {})
        _set(message, "__pydantic_private__", None)
        return message

    def _same_as_constructor(self) -> bool:
        for probe in _PROBES:
            fields = {k: v for k, v in probe.items() if k != "content"}
            built = self._build(probe["content"], fields)
            made = self._cls(**probe)
            if (
                built.__dict__ != made.__dict__
                or built.model_fields_set != made.model_fields_set
                or built.__pydantic_extra__ != made.__pydantic_extra__
                or built.__pydantic_private__ != made.__pydantic_private__
                or built.model_dump() != made.model_dump()
            ):
                return False
        return True

    def __call__(self, content: Any, **fields: Any) -> MessageT:
        """Return ``cls(content=content, **fields)``, built without validation."""
        if self._checked is None:
            self._checked = self._same_as_constructor()
            if not self._checked:
                logger.warning(
                    "%s built without validation differs from its constructor; "
                    "using the constructor.",
                    self._cls.__name__,
                )
        if not self._checked:
            return self._cls(content=content, **fields)
        return self._build(content, fields)


human_message: MessageBuilder[HumanMessage] = MessageBuilder(HumanMessage)
ai_message: MessageBuilder[AIMessage] = MessageBuilder(AIMessage)
system_message: MessageBuilder[SystemMessage] = MessageBuilder(SystemMessage)
