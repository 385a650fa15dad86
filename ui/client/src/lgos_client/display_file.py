"""The ``display_file`` client function: one definition for graphs and clients.

A graph that makes a file uploads the bytes to an OpenAI-compatible Files API
(the demo's Files service) and calls the client function ``display_file``
with the file's ID; the client downloads the file with its own key, shows it
in its own way, and sends a small ``function_call_output`` back:
:data:`DISPLAY_FILE_OK` (``{"displayed": true}``) or
:func:`display_file_failure` (``{"displayed": false, "error": "..."}``).
Neither the bytes nor a download URL ever enter the transcript. A resumed
chat downloads the files its ledger showed again (:func:`reshow_files`).

Clients offer the function exactly as :data:`DISPLAY_FILE_TOOL` (a Responses
flat function tool; :data:`DISPLAY_FILE_CHAT_TOOL` is the same for Chat
Completions); the demo graphs (``lgos_demo_api.display_file``) and both chat
UIs use this one definition. The arguments are strict: an object with exactly
``file_id``, ``filename`` and ``mime_type``, all strings.
"""

from __future__ import annotations

import json
import logging
import mimetypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import openai
from openai import AsyncOpenAI

from lgos_client.functions import FunctionCall, LocalFunction, function_tool

__all__ = [
    "DISPLAY_FILE",
    "DISPLAY_FILE_CHAT_TOOL",
    "DISPLAY_FILE_FUNCTION",
    "DISPLAY_FILE_OK",
    "DISPLAY_FILE_PARAMETERS",
    "DISPLAY_FILE_TOOL",
    "NO_LONGER_AVAILABLE",
    "DisplayedFile",
    "ReshownFile",
    "display_file_arguments",
    "display_file_calls",
    "display_file_error",
    "display_file_failure",
    "fetch_display_file",
    "reshow_files",
    "shown_display_calls",
]

logger = logging.getLogger(__name__)

DISPLAY_FILE: Final = "display_file"
"""The function's name, as listed in ``lgos.client_tools``."""

_DISPLAY_FILE_DESCRIPTION = (
    "Show the user a file from the Files API, such as a chart or a table the "
    "assistant just made. The client downloads the file by its ID and displays "
    "it; the result says whether it was shown."
)

DISPLAY_FILE_PARAMETERS: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "file_id": {
            "type": "string",
            "description": "The Files API ID of the file, e.g. file-abc123.",
        },
        "filename": {
            "type": "string",
            "description": "The name to show and save the file under, e.g. chart.png.",
        },
        "mime_type": {
            "type": "string",
            "description": "The file's media type, e.g. image/png or text/csv.",
        },
    },
    "required": ["file_id", "filename", "mime_type"],
    "additionalProperties": False,
}
"""The strict JSON Schema of the arguments."""

DISPLAY_FILE_TOOL: Final[dict[str, Any]] = function_tool(
    DISPLAY_FILE, _DISPLAY_FILE_DESCRIPTION, DISPLAY_FILE_PARAMETERS, strict=True
)
"""The function as a Responses ``tools`` entry (``client.responses.create``)."""

DISPLAY_FILE_CHAT_TOOL: Final[dict[str, Any]] = {
    "type": "function",
    "function": {
        key: value for key, value in DISPLAY_FILE_TOOL.items() if key != "type"
    },
}
"""The function as a Chat Completions ``tools`` entry."""

DISPLAY_FILE_OK: Final = json.dumps({"displayed": True})
"""The output a client sends back once the file is shown."""


def display_file_failure(error: str) -> str:
    """Return the output a client sends back when the file was not shown.

    ``{"displayed": false, "error": error}``; :func:`display_file_error`
    reads it back on the graph's side.
    """
    return json.dumps({"displayed": False, "error": error})


def display_file_error(output: str) -> str | None:
    """Tell whether a ``display_file`` output reports a failure (the graph's side).

    Args:
        output: The ``function_call_output`` the client sent.

    Returns:
        The reason (the ``error`` value, or a generic one) when the output is
        JSON with ``displayed: false`` or an ``error``; else None, meaning the
        file was shown.

    """
    try:
        value = json.loads(output)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    error = value.get("error")
    if error or value.get("displayed") is False:
        return str(error or "the client could not display it")
    return None


def display_file_arguments(
    file_id: str, filename: str, mime_type: str
) -> dict[str, str]:
    """Return the arguments of one ``display_file`` call (the graph's side).

    Args:
        file_id: The uploaded file's ID.
        filename: The name to show, e.g. ``revenue-by-month.png``.
        mime_type: The media type, e.g. ``image/png``.

    """
    return {"file_id": file_id, "filename": filename, "mime_type": mime_type}


def _runs_in_the_ui(**_: Any) -> Any:
    raise ValueError("display_file needs the chat UI to show the file")


DISPLAY_FILE_FUNCTION = LocalFunction(
    name=DISPLAY_FILE,
    description=_DISPLAY_FILE_DESCRIPTION,
    parameters=DISPLAY_FILE_PARAMETERS,
    run=_runs_in_the_ui,
    strict=True,
)
"""``display_file`` as an offered function; the UI itself runs its calls (a
download it shows), so running it as a local function is an error."""


@dataclass(frozen=True, slots=True)
class DisplayedFile:
    """A downloaded file to show."""

    file_id: str
    filename: str
    mime_type: str
    content: bytes

    @property
    def is_image(self) -> bool:
        """Whether the chat shows it inline."""
        return self.mime_type.lower().startswith("image/")


_MISSING = "The Files API has no such file"


def _describe_error(exc: openai.OpenAIError) -> str:
    if isinstance(exc, openai.NotFoundError):
        return _MISSING
    if isinstance(exc, openai.APIStatusError):
        return f"Download failed (HTTP {exc.status_code})"
    if isinstance(exc, openai.APIConnectionError):
        return "The Files API could not be reached"
    return "Download failed"


async def fetch_display_file(
    files: AsyncOpenAI, call: FunctionCall
) -> tuple[DisplayedFile | None, str]:
    """Run a ``display_file`` call's download.

    Returns:
        ``(file, output)``: the downloaded file (``None`` on failure) and the
        ``function_call_output`` to send back (``{"displayed": true}`` is
        sent only once the caller has shown ``file``; this returns it
        optimistically). Never raises for a bad call or a failed download.

    """
    try:
        arguments = call.parsed_arguments()
    except ValueError:
        return None, display_file_failure("The arguments are not a JSON object")
    file_id = arguments.get("file_id")
    if not isinstance(file_id, str) or not file_id:
        return None, display_file_failure("file_id is missing")
    filename = arguments.get("filename")
    mime_type = arguments.get("mime_type")
    try:
        if not isinstance(filename, str) or not filename:
            filename = (await files.files.retrieve(file_id)).filename or file_id
        content = await files.files.content(file_id)
        data = content.read()
    except openai.OpenAIError as exc:
        logger.warning("display_file %s failed: %s", file_id, exc)
        return None, display_file_failure(_describe_error(exc))
    if not isinstance(mime_type, str) or not mime_type:
        mime_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return DisplayedFile(file_id, filename, mime_type, data), DISPLAY_FILE_OK


def display_file_calls(items: Sequence[Mapping[str, Any]]) -> list[FunctionCall]:
    """Return the ``display_file`` calls in a ledger, in order."""
    return [
        FunctionCall.from_item(item)
        for item in items
        if item.get("type") == "function_call" and item.get("name") == DISPLAY_FILE
    ]


def _was_displayed(output: Any) -> bool:
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except ValueError:
            return False
    return isinstance(output, Mapping) and output.get("displayed") is True


def shown_display_calls(items: Sequence[Mapping[str, Any]]) -> list[FunctionCall]:
    """Return the ``display_file`` calls of a ledger that showed their file.

    A call counts once its ``function_call_output`` (same ``call_id``) says
    ``{"displayed": true}``; failed, unanswered and incomplete calls do not.
    Each call appears once, in ledger order.
    """
    displayed = {
        str(item.get("call_id"))
        for item in items
        if item.get("type") == "function_call_output"
        and _was_displayed(item.get("output"))
    }
    calls: list[FunctionCall] = []
    seen: set[str] = set()
    for call in display_file_calls(items):
        if call.complete and call.call_id in displayed and call.call_id not in seen:
            seen.add(call.call_id)
            calls.append(call)
    return calls


@dataclass(frozen=True, slots=True)
class ReshownFile:
    """A file a resumed chat shows again.

    Attributes:
        call_id: The ``display_file`` call that first showed it.
        filename: The name it was shown under.
        file: The downloaded file, or ``None`` when it could not be fetched.
        note: Why not (``file`` is ``None``), e.g. "no longer available".

    """

    call_id: str
    filename: str
    file: DisplayedFile | None
    note: str = ""


NO_LONGER_AVAILABLE = "no longer available"


async def reshow_files(
    files: AsyncOpenAI, items: Sequence[Mapping[str, Any]]
) -> list[ReshownFile]:
    """Download again every file a ledger's ``display_file`` calls showed.

    Never raises for a missing file or an unreachable Files API: such a file
    comes back without bytes and with a short note.
    """
    reshown = []
    for call in shown_display_calls(items):
        try:
            arguments = call.parsed_arguments()
        except ValueError:
            arguments = {}
        name = arguments.get("filename")
        filename = name if isinstance(name, str) and name else call.call_id
        file, output = await fetch_display_file(files, call)
        if file is not None:
            reshown.append(ReshownFile(call.call_id, file.filename, file))
            continue
        error = str(json.loads(output).get("error", ""))
        note = (
            NO_LONGER_AVAILABLE
            if error == _MISSING or error.endswith("(HTTP 410)")
            else f"could not be loaded again: {error}"
        )
        reshown.append(ReshownFile(call.call_id, filename, None, note))
    return reshown
