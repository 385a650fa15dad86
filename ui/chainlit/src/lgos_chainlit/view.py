"""Draw one chat turn in Chainlit: commentary steps, answers, function calls.

:class:`ChainlitTurnView` is the :class:`~lgos_chainlit.conversation.TurnListener`
the app hands to :meth:`Conversation.ask`:

- each commentary message becomes its own ``cl.Step`` as soon as it arrives;
  the latest one is shown as running until the next one or the answer starts;
- answer text streams into a ``cl.Message`` that, once its response is done,
  is replaced by the rendered answer (linked citation markers and Sources, a
  refusal, an incomplete or failure note; see :mod:`lgos_chainlit.rendering`);
- each function call the UI runs is a ``tool`` step showing the arguments and
  the result.

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

from collections.abc import Sequence

import chainlit as cl
from chainlit.utils import utc_now

from lgos_chainlit.conversation import FunctionRunner, TurnListener, TurnResult
from lgos_chainlit.functions import FunctionCall
from lgos_chainlit.rendering import (
    commentary_title,
    failure_note,
    render_function_step,
    render_response,
)

__all__ = ["COMMENTARY_STEP_TYPE", "FUNCTION_STEP_TYPE", "ChainlitTurnView"]

COMMENTARY_STEP_TYPE = "run"
"""Chainlit step type of commentary steps (``data-step-type`` in the page)."""

FUNCTION_STEP_TYPE = "tool"
"""Chainlit step type of function-call steps."""

# Lucide icons of the steps, shown instead of an avatar. Step titles are whole
# phrases ("Outlining the answer", "Ran roll_dice"): the UI's translations leave
# out Chainlit's "Using"/"Used" prefixes, and a running commentary step
# shimmers and shows RUNNING_ICON until the next step or the answer starts.
RUNNING_ICON = "circle-dashed"
DONE_ICON = "circle-check"
FUNCTION_ICON = "wrench"


class ChainlitTurnView(TurnListener):
    """Render a turn's progress into the current Chainlit chat."""

    def __init__(self) -> None:
        self.reply: cl.Message | None = None
        self.commentary: dict[str, cl.Step] = {}
        self.running: cl.Step | None = None

    def _parent_id(self) -> str | None:
        current = cl.context.current_step
        return current.id if current is not None else None

    async def _end_running(self) -> None:
        """Mark the latest commentary step as done."""
        if self.running is not None:
            self.running.end = utc_now()
            self.running.icon = DONE_ICON
            await self.running.update()
            self.running = None

    async def _show_commentary(self, item_id: str, text: str) -> None:
        title = commentary_title(text)
        detail = text.strip() if text.strip() != title else ""
        step = self.commentary.get(item_id)
        if step is None:
            await self._end_running()
            step = cl.Step(
                name=title,
                type=COMMENTARY_STEP_TYPE,
                parent_id=self._parent_id(),
                show_input=False,
                icon=RUNNING_ICON,
            )
            step.start = utc_now()
            step.output = detail
            self.commentary[item_id] = step
            self.running = step
            await step.send()
        elif (step.name, step.output) != (title, detail):
            step.name = title
            step.output = detail
            await step.update()

    async def on_commentary(self, item_id: str, text: str) -> None:
        """Open (or grow) the commentary message's step."""
        await self._show_commentary(item_id, text)

    async def on_commentary_done(self, item_id: str, text: str) -> None:
        """Show the commentary's final text; the step runs until the next one."""
        await self._show_commentary(item_id, text)

    async def on_text(self, text: str) -> None:
        """Stream answer text into the round's answer message."""
        await self._end_running()
        if self.reply is None:
            self.reply = cl.Message(content="")
        await self.reply.stream_token(text)

    async def on_response(self, result: TurnResult) -> None:
        """Replace the streamed text with the rendered answer, notes included."""
        await self._end_running()
        reply, self.reply = self.reply, None
        if result.status == "error":
            if reply is not None:
                reply.content = f"{reply.content}\n\n{failure_note(None)}"
                await reply.send()
            await cl.ErrorMessage(content=f"The request failed: {result.error}").send()
            return
        content = render_response(
            result.answer_parts,
            refusal=result.refusal,
            status=result.status,
            incomplete_reason=result.incomplete_reason,
        )
        if reply is not None:
            reply.content = content or reply.content
            await reply.send()
        elif content:
            await cl.Message(content=content).send()
        elif result.status == "completed" and not result.function_calls:
            await cl.Message(content="_The graph answered with no text._").send()
        if result.status == "failed":
            await cl.ErrorMessage(content=f"The response failed: {result.error}").send()

    async def run_function(
        self, call: FunctionCall, run: FunctionRunner
    ) -> tuple[str, bool]:
        """Run a call inside a tool step showing its arguments and result."""
        async with cl.Step(
            name=f"Running {call.name}",
            type=FUNCTION_STEP_TYPE,
            show_input=False,
            default_open=True,
            icon=FUNCTION_ICON,
        ) as step:
            step.output = render_function_step(call.arguments, None)
            await step.update()
            output, ok = await run()
            step.output = render_function_step(call.arguments, output)
            step.name = f"Ran {call.name}" if ok else f"{call.name} failed"
            step.is_error = not ok
        return output, ok

    async def on_calls_not_run(
        self, calls: Sequence[FunctionCall], reason: str
    ) -> None:
        """Say which calls were not run, and why."""
        names = ", ".join(f"`{call.name}`" for call in calls)
        await cl.Message(
            content=f"> **Function calls not run** ({names}): {reason}."
        ).send()
