"""One user turn: requests to LGOS until an answer, a pause or a failure.

:class:`Turn` sends the ledger (streamed, or in the background and polled),
shows the run as text and events, runs the client calls (``display_file``,
the demo's functions, MCP tools) and sends their outputs back, and asks an
interrupt's questions; what it leaves (the answer's items, a pause) is saved
by the ``Pipe``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openai import APIError, AsyncOpenAI

from lgos_client.api_errors import api_error_message
from lgos_client.background import BACKGROUND_RUNNING, wait_background
from lgos_client.display_file import (
    DISPLAY_FILE,
    DISPLAY_FILE_TOOL,
    display_file_failure,
    fetch_display_file,
)
from lgos_client.extension import ModelCapabilities
from lgos_client.functions import LOCAL_FUNCTIONS, FunctionCall, completed_calls
from lgos_client.interrupts import answers_input, is_interrupt_call
from lgos_client.ledger import MAX_FUNCTION_ROUNDS, calls_not_run_reason
from lgos_open_webui.client_calls import (
    call_output,
    local_function_calls,
    run_local_function,
)
from lgos_open_webui.events import EventEmitter, Translator, files_event, status_event
from lgos_open_webui.mcp_tools import McpTool
from lgos_open_webui.plumbing import to_dict
from lgos_open_webui.questions import (
    answers_from_user_input,
    pause_note,
    questions_of,
    user_input_request,
)

BACKGROUND_STATUS_EVERY = 10
"""Seconds between the "Running in the background" status lines of a polled
run (Open WebUI keeps every status line in the message's history)."""


@dataclass(slots=True)
class Turn:
    """One user turn: requests to LGOS until an answer, pause or failure."""

    client: AsyncOpenAI
    model: ModelCapabilities
    emit: EventEmitter
    files: AsyncOpenAI | None = None
    ask: EventEmitter | None = None
    poll_interval: float = 1.0
    save_pause: Callable[[Mapping[str, Any] | None], None] = lambda _pause: None
    transcript: str = ""
    items: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None
    finished: bool = False
    base_input: list[dict[str, Any]] = field(default_factory=list)
    background_seconds: int = 0
    mcp: Mapping[str, McpTool] = field(default_factory=dict)
    steps: int = 0
    waited: bool = False

    async def run(
        self,
        ledger: list[dict[str, Any]],
        *,
        metadata: dict[str, str],
        tools: list[dict[str, Any]],
        background: bool,
    ) -> AsyncIterator[str]:
        """Send the ledger; yield the answer's text; ask any questions."""
        if DISPLAY_FILE in self.model.client_tools:
            tools = [*tools, DISPLAY_FILE_TOOL]
        tools = tools + [
            LOCAL_FUNCTIONS[name].tool()
            for name in dict.fromkeys(self.model.client_tools)
            if name in LOCAL_FUNCTIONS
        ]
        tools = tools + [tool.tool() for tool in self.mcp.values()]
        self.base_input = ledger
        request: dict[str, Any] = {
            "model": self.model.id,
            "input": ledger,
            "metadata": metadata,
            "tools": tools,
        }
        async for text in self._loop(request, background=background, carried=[]):
            yield text

    async def resume_typed(
        self, pause: Mapping[str, Any], reply: str
    ) -> AsyncIterator[str]:
        """Answer a saved pause with the user's typed ``reply``."""
        self.base_input = list(pause.get("input") or [])
        questions = questions_of(pause.get("calls", []))
        answers = {}
        for question in questions:
            value = question.answer_for(reply)
            if value is None:
                choices = ", ".join(question.choices)
                self.pending = dict(pause)
                text = f"Please answer one of: {choices}."
                self.transcript += text
                yield text
                return
            answers[question.call_id] = value
        request = self._resume_request(pause, answers)
        async for text in self._loop(
            request,
            background=bool(pause.get("background")),
            carried=list(pause.get("carried") or []),
        ):
            yield text

    def _resume_request(
        self, pause: Mapping[str, Any], answers: Mapping[str, str]
    ) -> dict[str, Any]:
        return {
            "model": self.model.id,
            "previous_response_id": pause["response_id"],
            "input": answers_input(answers),
            "metadata": dict(pause.get("metadata") or {}),
            "tools": list(pause.get("tools") or []),
        }

    async def _loop(
        self,
        request: dict[str, Any],
        *,
        background: bool,
        carried: list[dict[str, Any]],
    ) -> AsyncIterator[str]:
        rounds = 0
        while True:
            translator = Translator()
            if background:
                stream = self._background(request, translator)
            else:
                stream = self._stream(request, translator)
            async for text in stream:
                self.transcript += text
                yield text
            response = translator.response or {}
            if translator.error is not None:
                await self._close_statuses()
                raise RuntimeError(f"LGOS: {translator.error}")
            output = [dict(item) for item in response.get("output") or ()]
            calls = [item for item in output if is_interrupt_call(item)]
            kept = [item for item in output if not is_interrupt_call(item)]
            shows = (
                completed_calls(kept, {DISPLAY_FILE})
                + local_function_calls(kept)
                + completed_calls(kept, self.mcp)
            )
            if shows and not calls:
                if (
                    calls_not_run_reason(
                        response.get("status"), rounds, MAX_FUNCTION_ROUNDS
                    )
                    is None
                ):
                    outputs = [await self._run_client_call(call) for call in shows]
                    carried = carried + kept + outputs
                    rounds += 1
                    # Stateless: the ledger, this turn's items, the outputs.
                    request = {
                        "model": self.model.id,
                        "input": self.base_input + carried,
                        "metadata": request.get("metadata") or {},
                        "tools": request.get("tools") or [],
                    }
                    continue
                not_run = display_file_failure("not run")
                kept = kept + [call_output(call, not_run) for call in shows]
            if not calls:
                self.items = carried + kept
                self.finished = True
                await self._close_statuses()
                return
            carried = carried + kept
            questions = questions_of(calls)
            pause = {
                "model": self.model.id,
                "response_id": response.get("id"),
                "calls": calls,
                "metadata": request.get("metadata") or {},
                "tools": request.get("tools") or [],
                "carried": carried,
                "background": background,
                "input": self.base_input,
            }
            # Saved before the dialog opens: a Stop or a closed tab while it
            # is open leaves the pause answerable by the next message.
            self.save_pause(pause)
            await self._close_statuses()
            answers = None
            if self.ask is not None:
                reply = await self.ask(user_input_request(questions))
                answers = answers_from_user_input(questions, reply)
            self.save_pause(None)
            if answers is None:
                note = pause_note(questions)
                prefix = "\n\n" if self.transcript else ""
                self.transcript += prefix + note
                yield prefix + note
                self.pending = pause
                return
            await self.emit_step(
                status_event("Answered: " + "; ".join(answers.values()))
            )
            request = self._resume_request(pause, answers)

    async def emit_step(self, event: dict[str, Any]) -> None:
        """Emit ``event``; a status line counts as one step of the turn."""
        if event.get("type") == "status":
            self.steps += 1
        await self.emit(event)

    async def _close_statuses(self) -> None:
        """End the status lines shown so far with one line marked done.

        Open WebUI appends every status event to the message's history and
        shows the last one folded (shimmering until one is ``done``), so the
        closing line sums the steps up ("Done after 5 steps") instead of
        repeating the last one; a background run without steps gets
        "Finished in the background after N s". Called when the turn ends,
        fails or pauses for a question.
        """
        if self.steps:
            plural = "" if self.steps == 1 else "s"
            line = f"Done after {self.steps} step{plural}"
        elif self.waited:
            line = f"Finished in the background after {self.background_seconds} s"
        else:
            return
        self.steps, self.waited = 0, False
        await self.emit(status_event(line, done=True))

    async def _run_client_call(self, call: Mapping[str, Any]) -> dict[str, Any]:
        """Run one client call (``display_file``, a local function or an MCP tool).

        Returns:
            Its ``function_call_output`` item; a local function's or an MCP
            tool's call and result also go into a status line.

        """
        if call.get("name") == DISPLAY_FILE:
            return call_output(call, await self._show(call))
        tool = self.mcp.get(str(call.get("name")))
        if tool is not None:
            output, ok = await tool.run(call.get("arguments"))
            verb = "Ran" if ok else "Failed"
            await self.emit_step(
                status_event(
                    f"{verb} {tool.name}({call.get('arguments')}) on MCP → {output}"
                )
            )
            return call_output(call, output)
        output, ok = run_local_function(call)
        verb = "Ran" if ok else "Failed"
        await self.emit_step(
            status_event(
                f"{verb} {call.get('name')}({call.get('arguments')}) → {output}"
            )
        )
        return call_output(call, output)

    async def _show(self, call: Mapping[str, Any]) -> str:
        if self.files is None:
            return display_file_failure("No Files API configured")
        file, output = await fetch_display_file(
            self.files, FunctionCall.from_item(call)
        )
        if file is None:
            return output
        await self.emit(files_event(file.filename, file.mime_type, file.content))
        await self.emit_step(status_event(f"Showed {file.filename}"))
        return output

    async def _stream(
        self, request: dict[str, Any], translator: Translator
    ) -> AsyncIterator[str]:
        try:
            stream = await self.client.responses.create(**request, stream=True)
            async with stream:
                async for event in stream:
                    for action in translator.feed(to_dict(event)):
                        if action[0] == "text":
                            yield action[1]
                        else:
                            await self.emit_step(action[1])
        except APIError as error:
            raise RuntimeError(f"LGOS: {api_error_message(error)}") from error

    async def _background(
        self, request: dict[str, Any], translator: Translator
    ) -> AsyncIterator[str]:
        shown = -1

        async def on_poll(_response_id: str, status: str, elapsed: float) -> None:
            # One line at the start, then one every BACKGROUND_STATUS_EVERY s.
            nonlocal shown
            seconds = int(elapsed)
            self.background_seconds = seconds
            if status not in BACKGROUND_RUNNING:
                return
            if seconds // BACKGROUND_STATUS_EVERY != shown:
                shown = seconds // BACKGROUND_STATUS_EVERY
                self.waited = True  # not a step of the graph's
                await self.emit(
                    status_event(
                        "Running in the background…"
                        + (f" {seconds} s" if shown else "")
                    )
                )

        try:
            # Stop in Open WebUI cancels the run on the server too.
            response = await wait_background(
                self.client,
                {**request, "background": True},
                on_poll=on_poll,
                poll_interval=self.poll_interval,
            )
        except APIError as error:
            raise RuntimeError(f"LGOS: {api_error_message(error)}") from error
        data = to_dict(response)
        for action in translator.replay(data):
            if action[0] == "text":
                yield action[1]
            else:
                await self.emit_step(action[1])
        translator.response = data
        if data.get("status") == "failed":
            error = data.get("error") or {}
            translator.error = str(error.get("message") or "the run failed")
        elif data.get("status") == "cancelled":
            translator.error = "the background run was cancelled"
