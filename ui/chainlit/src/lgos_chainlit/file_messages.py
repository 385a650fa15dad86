"""Files in the Chainlit chat: a downloaded file's element, and files shown again.

A ``display_file`` call's file is shown in a message of its own, whose
metadata names the call (:data:`DISPLAY_CALL_KEY`): images inline and large
enough to read (``cl.Image``), other files as downloads (``cl.File``). A
resumed chat puts the files its ledger showed back on those messages
(:func:`show_reshown_files`), since Chainlit keeps no elements.

It must run inside a Chainlit callback (it uses Chainlit's context).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import chainlit as cl
from chainlit.element import ElementSize

from lgos_client.display_file import DisplayedFile, ReshownFile

__all__ = [
    "DISPLAY_CALL_KEY",
    "IMAGE_SIZE",
    "display_messages",
    "file_element",
    "show_reshown_files",
]

DISPLAY_CALL_KEY = "lgos_display_call_id"
"""Metadata of a shown file's message: the ``display_file`` call's ID, so a
resumed chat can put the file back on that message."""


IMAGE_SIZE: ElementSize = "large"
"""Chainlit size of a shown image: ``large`` lets it be up to 600 px wide in the
message (Chainlit's default, ``medium``, caps it at 300 px, too small to read a
chart's labels); a click still opens it full size."""


def file_element(file: DisplayedFile) -> cl.Image | cl.File:
    """Build the Chainlit element showing a downloaded file.

    Images are inline and :data:`IMAGE_SIZE`; other files are downloads.
    """
    if file.is_image:
        return cl.Image(
            name=file.filename,
            content=file.content,
            mime=file.mime_type,
            display="inline",
            size=IMAGE_SIZE,
        )
    return cl.File(
        name=file.filename, content=file.content, mime=file.mime_type, display="inline"
    )


def _step_metadata(step: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = step.get("metadata")
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return {}
    return metadata if isinstance(metadata, Mapping) else {}


def display_messages(steps: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Map ``display_file`` call IDs to the IDs of the messages that showed them."""
    found: dict[str, str] = {}
    for step in steps:
        call_id = _step_metadata(step).get(DISPLAY_CALL_KEY)
        step_id = step.get("id")
        if isinstance(call_id, str) and isinstance(step_id, str):
            found.setdefault(call_id, step_id)
    return found


def _unavailable(item: ReshownFile) -> str:
    return f"📎 **{item.filename}** is {item.note}."


async def show_reshown_files(
    reshown: Sequence[ReshownFile], steps: Iterable[Mapping[str, Any]]
) -> None:
    """Put files shown earlier back into a resumed chat.

    Each file goes back on the history message that first showed it (the
    element is sent, not saved: the data layer has no storage client). Files
    whose message is not in the history (threads saved before messages
    named their call) are listed in one "Files shown in this conversation"
    message at the end; that message is not saved either, since every resume
    makes it again.
    """
    placed = display_messages(steps)
    rest: list[ReshownFile] = []
    for item in reshown:
        message_id = placed.get(item.call_id)
        if message_id is None:
            rest.append(item)
            continue
        element: cl.Image | cl.File | cl.Text = (
            file_element(item.file)
            if item.file is not None
            else cl.Text(
                name=f"{item.filename} (unavailable)",
                content=_unavailable(item),
                display="inline",
            )
        )
        await element.send(for_id=message_id, persist=False)
    if not rest:
        return
    lines = ["**Files shown in this conversation**", ""]
    elements: list[cl.Image | cl.File] = []
    for item in rest:
        if item.file is None:
            lines.append(f"- {_unavailable(item)}")
        else:
            lines.append(f"- 📎 **{item.filename}**")
            elements.append(file_element(item.file))
    message = cl.Message(content="\n".join(lines), elements=list(elements))
    message.persisted = True  # made again on every resume: never saved
    await message.send()
