"""Files the user attaches: uploaded to a Files API, sent as ``input_file`` parts.

The UI uploads each attachment to an OpenAI-compatible Files API (the demo's
Files service) with its own client and sends only the returned ID in an
``input_file`` part; the bytes never enter the ledger.

Nothing here depends on Chainlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openai import AsyncOpenAI

__all__ = ["Attachment", "upload_attachment", "user_content"]


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file the user attached, once uploaded: its Files API ID and name."""

    file_id: str
    filename: str


def user_content(
    text: str, attachments: Sequence[Attachment] = ()
) -> str | list[dict[str, Any]]:
    """Build a user turn's ``content``: the text, plus one part per file.

    Returns:
        ``text`` itself without attachments, else an ``input_text`` part
        followed by one ``input_file`` part per attachment.

    """
    if not attachments:
        return text
    parts: list[dict[str, Any]] = [{"type": "input_text", "text": text}]
    parts.extend(
        {"type": "input_file", "file_id": attachment.file_id}
        for attachment in attachments
    )
    return parts


async def upload_attachment(
    files: AsyncOpenAI, filename: str, data: bytes, mime_type: str
) -> Attachment:
    """Upload one attachment (``purpose="user_data"``) and return its ID.

    Raises:
        openai.OpenAIError: The Files API rejected it or could not be reached.

    """
    created = await files.files.create(
        file=(filename, data, mime_type), purpose="user_data"
    )
    return Attachment(file_id=created.id, filename=filename)
