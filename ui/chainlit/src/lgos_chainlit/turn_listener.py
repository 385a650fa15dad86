"""Who hears a turn's progress, and the reporting streaming and polling share.

:class:`TurnListener` receives the progress of a turn: commentary messages,
answer text deltas, server tool items (searches, custom tools), each
finished response, each function call. :class:`AnswerSink` is where answer
text goes, and :func:`report_finished_item` reports one finished output item;
the stream decoder and background polling both report through them, so a
polled answer is shown the way a streamed one is.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lgos_chainlit.turn_result import TurnResult
from lgos_client.functions import FunctionCall
from lgos_client.items import message_text

__all__ = [
    "SERVER_TOOL_ITEMS",
    "AnswerSink",
    "FunctionRunner",
    "TextSink",
    "TurnListener",
    "report_finished_item",
]

TextSink = Callable[[str], Awaitable[None]]
FunctionRunner = Callable[[], Awaitable[tuple[str, bool]]]

SERVER_TOOL_ITEMS = frozenset(
    {"web_search_call", "custom_tool_call", "custom_tool_call_output"}
)
"""Output item types of tools the graph runs itself, shown as tool steps."""


class TurnListener:
    """Receives the progress of a turn; every hook does nothing by default.

    The Chainlit app subclasses it to draw steps and messages; tests subclass
    it to record what happened.
    """

    async def on_commentary(self, item_id: str, text: str) -> None:
        """Show a commentary message that grew; ``text`` is all of it so far."""

    async def on_commentary_done(self, item_id: str, text: str) -> None:
        """Finish a commentary message; ``text`` is all of it."""

    async def on_text(self, text: str) -> None:
        """Show a delta of answer text (never commentary)."""

    async def on_server_tool(self, item: dict[str, Any], *, done: bool) -> None:
        """Show a tool the graph ran itself, as its output item arrives.

        ``item`` is a ``web_search_call`` (also reported when it starts,
        with ``done=False``), a ``custom_tool_call`` or a
        ``custom_tool_call_output`` (JSON-ready dicts).
        """

    async def on_response(self, result: TurnResult) -> None:
        """Show one finished (or failed) response; called once per request."""

    async def on_background(
        self, response_id: str, status: str, elapsed: float
    ) -> None:
        """Show a background Response's progress; called after every poll."""

    async def run_function(
        self, call: FunctionCall, run: FunctionRunner
    ) -> tuple[str, bool]:
        """Run one function call: ``await run()`` returns ``(output, ok)``.

        Override to show the call; return what ``run()`` returned.
        """
        return await run()

    async def on_calls_not_run(
        self, calls: Sequence[FunctionCall], reason: str
    ) -> None:
        """Report function calls of the last response that were not run."""


@dataclass(slots=True)
class AnswerSink:
    """Where a request's answer text goes: ``on_text``, then the listener.

    Calling it with text sends the text to both (empty text is dropped) and
    remembers that an answer was shown.

    Attributes:
        listener: Hears each piece in ``on_text``.
        on_text: An extra receiver of each piece (``None``: none).
        streamed: Whether any answer text has gone out.

    """

    listener: TurnListener
    on_text: TextSink | None = None
    streamed: bool = False

    async def __call__(self, text: str) -> None:
        """Send one piece of answer text (nothing when it is empty)."""
        if not text:
            return
        self.streamed = True
        if self.on_text is not None:
            await self.on_text(text)
        await self.listener.on_text(text)

    async def finish(self, result: TurnResult) -> TurnResult:
        """Show a finished response's answer if no delta of it was shown.

        A polled answer (or one whose deltas an intermediary buffered) goes
        out whole, from the terminal response; then ``result.streamed`` says
        whether any answer text was shown.

        Returns:
            ``result``, updated.

        """
        if not self.streamed and result.answer:
            await self(result.answer)
        result.streamed = self.streamed
        return result


async def report_finished_item(
    listener: TurnListener, item: dict[str, Any], *, phase: str | None
) -> None:
    """Report one finished output item: a commentary message or a server tool.

    Args:
        listener: Hears ``on_commentary_done`` or ``on_server_tool(done=True)``.
        item: The output item, JSON-ready.
        phase: The message's ``phase`` as the caller knows it (the stream
            decoder takes it from the item's ``output_item.added`` event).

    """
    kind = item.get("type", "message")
    if kind == "message" and phase == "commentary":
        await listener.on_commentary_done(str(item.get("id")), message_text(item))
    elif kind in SERVER_TOOL_ITEMS:
        await listener.on_server_tool(item, done=True)
