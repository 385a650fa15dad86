"""Draw one chat turn in Chainlit: commentary steps, answers, function calls.

:class:`ChainlitTurnView` is the :class:`~lgos_chainlit.turn_listener.TurnListener`
the app hands to :meth:`Conversation.ask`:

- each commentary message becomes its own ``cl.Step`` as soon as it arrives;
  the latest one is shown as running until the next one or the answer starts;
- answer text streams into a ``cl.Message`` that, once its response is done,
  is replaced by the rendered answer (linked citation markers and Sources, a
  refusal, an incomplete or failure note; see :mod:`lgos_chainlit.rendering`);
- each function call the UI runs is a ``tool`` step showing the arguments and
  the result;
- each tool the graph runs itself is a ``tool`` step too: a web search
  ("Searched: <query>", or marked failed) or a custom tool with its input and
  output;
- a ``display_file`` call downloads the file from the Files API (with the
  UI's own key) and shows it in a message of its own (see
  :mod:`lgos_chainlit.file_messages`);
- a background Response shows one step, "Running in the background… 12 s",
  updated after every poll;
- a stopped turn keeps its partial answer, labelled as not kept.

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chainlit as cl
from chainlit.utils import utc_now
from openai import AsyncOpenAI

from lgos_chainlit.file_messages import DISPLAY_CALL_KEY, file_element
from lgos_chainlit.literal_text import StreamedMarkdown, protect_markdown
from lgos_chainlit.mcp_tools import function_step_labels
from lgos_chainlit.rendering import (
    commentary_title,
    failure_note,
    render_custom_tool_step,
    render_function_step,
    render_response,
    search_step_title,
    stopped_note,
)
from lgos_chainlit.turn_listener import FunctionRunner, TurnListener
from lgos_chainlit.turn_result import TurnResult
from lgos_client.display_file import (
    DISPLAY_FILE,
    display_file_failure,
    fetch_display_file,
)
from lgos_client.functions import ClientFunction, FunctionCall

__all__ = [
    "COMMENTARY_STEP_TYPE",
    "FUNCTION_STEP_TYPE",
    "ChainlitTurnView",
    "background_title",
]

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
SEARCH_ICON = "search"
FAILED_ICON = "circle-x"
BACKGROUND_ICON = "hourglass"
BACKGROUND_STEP_TYPE = "run"


def background_title(status: str, elapsed: float) -> str:
    """Title the background step for a Response's status after ``elapsed``."""
    seconds = int(elapsed)
    if status == "queued":
        return f"Queued in the background… {seconds} s"
    if status == "in_progress":
        return f"Running in the background… {seconds} s"
    if status == "cancelled":
        return f"Background run cancelled after {seconds} s"
    return f"Ran in the background ({status}, {seconds} s)"


def _search_icon(item: dict[str, Any], *, done: bool) -> str:
    # A magnifier apart from the commentary's check marks; a cross on failure.
    if done and item.get("status") == "failed":
        return FAILED_ICON
    return SEARCH_ICON


class ChainlitTurnView(TurnListener):
    """Render a turn's progress into the current Chainlit chat."""

    def __init__(
        self,
        files: AsyncOpenAI | None = None,
        functions: Sequence[ClientFunction] = (),
    ) -> None:
        self.reply: cl.Message | None = None
        self.streamed = StreamedMarkdown()
        self.commentary: dict[str, cl.Step] = {}
        self.running: cl.Step | None = None
        self.tools: dict[str, cl.Step] = {}
        self.files = files
        self.background: dict[str, cl.Step] = {}
        self.polling: tuple[str, float] | None = None
        self.functions = {function.name: function for function in functions}

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
        detail = protect_markdown(text.strip()) if text.strip() != title else ""
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
        """Stream answer text into the round's answer message.

        The page gets the text protected (:mod:`lgos_chainlit.literal_text`):
        the new tail, or the whole text again when an earlier part changed.
        """
        await self._end_running()
        if self.reply is None:
            self.reply = cl.Message(content="")
            self.streamed = StreamedMarkdown()
        shown, whole = self.streamed.add(text)
        await self.reply.stream_token(shown, is_sequence=whole)

    async def on_server_tool(self, item: dict[str, Any], *, done: bool) -> None:
        """Show a search or a custom tool the graph ran as a tool step."""
        kind = item.get("type")
        if kind == "web_search_call":
            await self._show_search(item, done=done)
        elif kind == "custom_tool_call":
            await self._end_running()
            call_id = str(item.get("call_id", ""))
            tool_input = item.get("input")
            step = cl.Step(
                name=f"Running {item.get('name', 'a tool')}",
                type=FUNCTION_STEP_TYPE,
                parent_id=self._parent_id(),
                show_input=False,
                icon=FUNCTION_ICON,
            )
            step.start = utc_now()
            step.output = render_custom_tool_step(
                tool_input if isinstance(tool_input, str) else "", None
            )
            step.metadata = {"tool_input": tool_input, "tool": item.get("name")}
            self.tools[f"custom:{call_id}"] = step
            await step.send()
        elif kind == "custom_tool_call_output":
            call_id = str(item.get("call_id", ""))
            output = item.get("output")
            text = output if isinstance(output, str) else ""
            step = self.tools.pop(f"custom:{call_id}", None)
            if step is None:
                step = cl.Step(
                    name="Tool result",
                    type=FUNCTION_STEP_TYPE,
                    parent_id=self._parent_id(),
                    show_input=False,
                )
                step.output = render_custom_tool_step("", text)
                step.end = utc_now()
                await step.send()
                return
            tool_input = step.metadata.get("tool_input")
            step.output = render_custom_tool_step(
                tool_input if isinstance(tool_input, str) else "", text
            )
            step.name = f"Ran {step.metadata.get('tool') or 'a tool'}"
            step.end = utc_now()
            await step.update()

    async def _show_search(self, item: dict[str, Any], *, done: bool) -> None:
        key = f"search:{item.get('id', '')}"
        step = self.tools.get(key)
        title = search_step_title(item, done=done)
        if step is None:
            await self._end_running()
            step = cl.Step(
                name=title,
                type=FUNCTION_STEP_TYPE,
                parent_id=self._parent_id(),
                show_input=False,
                icon=_search_icon(item, done=done),
            )
            step.start = utc_now()
            if done:
                step.end = utc_now()
                step.is_error = item.get("status") == "failed"
                await step.send()
                return
            self.tools[key] = step
            await step.send()
            return
        if done:
            self.tools.pop(key, None)
            step.name = title
            step.end = utc_now()
            step.is_error = item.get("status") == "failed"
            step.icon = _search_icon(item, done=True)
            await step.update()

    async def on_background(
        self, response_id: str, status: str, elapsed: float
    ) -> None:
        """Show (or update) the background step of a polled Response."""
        step = self.background.get(response_id)
        title = background_title(status, elapsed)
        self.polling = (response_id, elapsed)
        if step is None:
            step = cl.Step(
                name=title,
                type=BACKGROUND_STEP_TYPE,
                parent_id=self._parent_id(),
                show_input=False,
                icon=BACKGROUND_ICON,
            )
            step.start = utc_now()
            step.output = f"Response `{response_id}`"
            self.background[response_id] = step
            await step.send()
            return
        step.name = title
        if status not in ("queued", "in_progress"):
            step.end = utc_now()
            step.icon = DONE_ICON
            self.polling = None
        await step.update()

    async def on_cancelled(
        self, *, answered: bool = False, waiting: bool = False
    ) -> None:
        """Label a stopped turn in one line: what happened, what still waits.

        A partial answer stays, marked "(stopped)"; a cancelled background
        run's step says so. ``answered``: the turn was resuming a pause;
        ``waiting``: a question is still pending (see
        :func:`~lgos_chainlit.rendering.stopped_note`).
        """
        background = self.polling is not None
        if self.polling is not None:
            response_id, elapsed = self.polling
            self.polling = None
            step = self.background[response_id]
            step.name = background_title("cancelled", elapsed)
            step.end = utc_now()
            step.icon = FAILED_ICON
            await step.update()
        await self._end_running()
        reply, self.reply = self.reply, None
        if reply is not None and reply.content:
            reply.content = f"{reply.content}\n\n_(stopped)_"
            await reply.send()
        note = stopped_note(background=background, answered=answered, waiting=waiting)
        await cl.Message(content=note).send()

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
        elif (
            result.status == "completed"
            and not result.function_calls
            and not result.interrupts
        ):
            await cl.Message(content="_The graph answered with no text._").send()
        if result.status == "failed":
            await cl.ErrorMessage(content=f"The response failed: {result.error}").send()

    async def run_function(
        self, call: FunctionCall, run: FunctionRunner
    ) -> tuple[str, bool]:
        """Run a call inside a tool step showing its arguments and result.

        An MCP tool's step names the server ("Ran convert_units on MCP
        127.0.0.1:8005") and starts with a line saying where it ran.
        """
        if call.name == DISPLAY_FILE:
            return await self._display_file(call)
        title, source = function_step_labels(call.name, self.functions)
        async with cl.Step(
            name=f"Running {title}",
            type=FUNCTION_STEP_TYPE,
            show_input=False,
            default_open=True,
            icon=FUNCTION_ICON,
        ) as step:
            step.output = source + render_function_step(call.arguments, None)
            await step.update()
            output, ok = await run()
            step.output = source + render_function_step(call.arguments, output)
            step.name = f"Ran {title}" if ok else f"{title} failed"
            step.is_error = not ok
        return output, ok

    async def _display_file(self, call: FunctionCall) -> tuple[str, bool]:
        """Download the file a ``display_file`` call names and show it."""
        async with cl.Step(
            name=f"Running {call.name}",
            type=FUNCTION_STEP_TYPE,
            show_input=False,
            default_open=False,
            icon=FUNCTION_ICON,
        ) as step:
            step.output = render_function_step(call.arguments, None)
            await step.update()
            if self.files is None:
                file, output = None, display_file_failure("No Files API configured")
            else:
                file, output = await fetch_display_file(self.files, call)
            if file is not None:
                try:
                    await cl.Message(
                        content=f"📎 **{file.filename}**",
                        elements=[file_element(file)],
                        metadata={DISPLAY_CALL_KEY: call.call_id},
                    ).send()
                except Exception:
                    file, output = None, display_file_failure("Showing the file failed")
            ok = file is not None
            step.output = render_function_step(call.arguments, output)
            step.name = f"Showed {file.filename}" if file else f"{call.name} failed"
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
