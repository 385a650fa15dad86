"""The ``display_file`` client function: its definition, download, showing again.

A graph that makes a file uploads it to an OpenAI-compatible Files API (the
demo's Files service) and calls the client function ``display_file``; the UI
downloads the bytes with its own key and shows them. Neither bytes nor
download URLs ever enter the ledger: the ``function_call_output`` is
``{"displayed": true}`` or ``{"displayed": false, "error": "..."}``. A
resumed chat downloads the files its ledger showed again
(:func:`reshow_files`).

Nothing here depends on Chainlit.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import openai
from openai import AsyncOpenAI

from lgos_chainlit.functions import FunctionCall, LocalFunction

__all__ = [
    "DISPLAY_FILE",
    "DISPLAY_FILE_FUNCTION",
    "DISPLAY_FILE_OK",
    "NO_LONGER_AVAILABLE",
    "DisplayedFile",
    "ReshownFile",
    "display_file_calls",
    "display_file_failure",
    "fetch_display_file",
    "reshow_files",
    "shown_display_calls",
]

logger = logging.getLogger(__name__)

DISPLAY_FILE = "display_file"
"""The client function's name, as listed in ``lgos.client_tools``."""

# The same definition as ``lgos_demo_api.display_file.DISPLAY_FILE_TOOL``
# (copied so the UI does not depend on the demo package; a test compares them).
_DESCRIPTION = (
    "Show the user a file from the Files API, such as a chart or a table the "
    "assistant just made. The client downloads the file by its ID and displays "
    "it; the result says whether it was shown."
)
_PARAMETERS: dict[str, Any] = {
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

DISPLAY_FILE_OK = json.dumps({"displayed": True})
"""The output sent back once the file is shown."""


def display_file_failure(error: str) -> str:
    """Return the output sent back when the file could not be shown."""
    return json.dumps({"displayed": False, "error": error})


def _runs_in_the_ui(**_: Any) -> Any:
    raise ValueError("display_file needs the chat UI to show the file")


DISPLAY_FILE_FUNCTION = LocalFunction(
    name=DISPLAY_FILE,
    description=_DESCRIPTION,
    parameters=_PARAMETERS,
    run=_runs_in_the_ui,
    strict=True,
)
"""``display_file`` as an offered function; the Chainlit view runs its calls."""


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
        mime_type = "application/octet-stream"
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
