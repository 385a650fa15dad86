"""The offline model's script for the `files` graph: `plan` and `answer`.

`offline_files_model()` is an `OfflineChatModel` that plays both model steps
deterministically, from what the user typed and the attachments as
`resolve_file_inputs` rendered them:

- `plan` (`files_plan_responder`): chart and table requests are told by
  their words; anything else gets an answer.
- `answer` (`files_answer_responder`): one line per attachment (a CSV's
  size and the total and mean of its first numeric column, the first lines
  of a text or PDF file, the note of an unreadable one), or, after a
  `display_file` result, a sentence on what was shown.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage

from lgos_demo_api.attachments import Attachment, own_text, parse_attachments
from lgos_demo_api.display_file import DISPLAY_FILE, display_file_error
from lgos_demo_api.graphs.transcript import (
    latest_human,
    latest_typed_text,
    tool_calls_by_id,
    trailing_tool_results,
)
from lgos_demo_api.offline import OfflineChatModel, quoted
from lgos_demo_api.tables import csv_table, format_number

__all__ = [
    "files_answer_responder",
    "files_plan_responder",
    "offline_files_model",
]

_CHART_WORDS = re.compile(
    r"\b(?:plot|draw|visuali[sz]e)\b|\b(?:chart|graph) (?:of|the|my|it|this|these)\b"
    r"|\b(?:make|create|build|generate|produce|give me|show me|as)\b.*"
    r"\b(?:chart|graph)\b|\b(?:bar|line|pie) (?:chart|graph)\b",
    re.IGNORECASE,
)
_TABLE_WORDS = re.compile(
    r"\b(?:make|create|build|generate|export|produce|write|give me|save)\b.*"
    r"\b(?:csv|table|spreadsheet)\b|\bas (?:a )?(?:csv|table)\b|\bsummary table\b",
    re.IGNORECASE,
)


def files_plan_responder(messages: list[BaseMessage], schema: Any) -> dict[str, Any]:
    """Play `plan` offline: chart and table requests are told by their words.

    "plot", "draw", "visualize", "chart the ...", "make/create/show me ...
    chart" ask for a chart ("What does this chart show?" does not);
    "make/create/export ... csv/table" and "as a table" ask for a table;
    anything else gets an answer. Title and column are left to the graph
    ("").
    """
    human = latest_human(messages)
    text = own_text(human) if human is not None else ""
    if _CHART_WORDS.search(text):
        action = "chart"
    elif _TABLE_WORDS.search(text):
        action = "table"
    else:
        action = "answer"
    return {"action": action, "title": "", "column": ""}


def _quote(text: str, lines: int = 3) -> str:
    shown = [line.strip() for line in text.splitlines() if line.strip()][:lines]
    return "\n".join(f"> {line[:160]}" for line in shown)


def _describe(attachment: Attachment) -> str:
    if not attachment.readable:
        return f"- I could not read it: {attachment.text}"
    name = f"**{attachment.name}**"
    if attachment.mime_type == "text/csv" or attachment.name.lower().endswith(".csv"):
        table = csv_table(attachment.text)
        if table is not None:
            columns = ", ".join(table.header)
            line = (
                f"- {name} is a CSV file with {len(table.rows)} rows and "
                f"{len(table.header)} columns ({columns})."
            )
            numeric = table.numeric_columns()
            if numeric:
                values = table.column_values(numeric[0])
                total = sum(values)
                mean = format_number(total / len(values))
                line += (
                    f" The {table.header[numeric[0]]} column adds up to "
                    f"{format_number(total)} (mean {mean})."
                )
            return line
    lines = [line for line in attachment.text.splitlines() if line.strip()]
    if attachment.pages is not None:
        noun = "page" if attachment.pages == 1 else "pages"
        intro = f"- {name} is a PDF with {attachment.pages} {noun}; its text begins:"
    else:
        noun = "line" if len(lines) == 1 else "lines"
        intro = (
            f"- {name} ({attachment.mime_type}) has {len(lines)} {noun} of text; "
            "it begins:"
        )
    return f"{intro}\n\n{_quote(attachment.text)}"


def _after_display(messages: list[BaseMessage]) -> str:
    calls = tool_calls_by_id(messages)
    sentences = []
    for message in trailing_tool_results(messages):
        call = calls.get(message.tool_call_id)
        if call is None or call["name"] != DISPLAY_FILE:
            continue
        filename = str(call["args"].get("filename", "the file"))
        kind = (
            "chart"
            if str(call["args"].get("mime_type", "")).startswith("image/")
            else "table"
        )
        subject = filename.rsplit(".", 1)[0].replace("-", " ")
        failure = display_file_error(str(message.text))
        if failure is None:
            sentences.append(f"Here is the {kind} of {subject} ({filename}).")
        else:
            sentences.append(
                f"Your client could not display {filename}: {failure}. The "
                f"{kind} is stored in the Files API as "
                f"{call['args'].get('file_id', 'an uploaded file')}."
            )
    return " ".join(sentences) or "Done."


def files_answer_responder(
    messages: list[BaseMessage], tools: list[dict[str, Any]], tool_choice: Any
) -> str:
    """Play `answer` offline, from the resolved attachments it received.

    - After a `display_file` result: "Here is the chart of <subject>
      (<filename>)." (or that the client could not display it).
    - With attachments: one line per attachment — a CSV's row and column
      counts and the total and mean of its first numeric column; the first
      lines of a text or PDF file; the note of an unreadable one.
    - Without: how to use the graph.
    """
    if messages and isinstance(messages[-1], ToolMessage):
        return _after_display(messages)
    question = latest_typed_text(messages)
    attachments = parse_attachments(messages)
    said = f"This is the offline demo model. You asked: {quoted(question)}"
    if not attachments:
        return (
            f"{said} I see no attachments. Attach a text, Markdown, CSV or PDF "
            "file and ask about it, or ask me to plot numbers, e.g. "
            '"Plot apples: 3, pears: 5, plums: 2".'
        )
    noun = "attachment" if len(attachments) == 1 else "attachments"
    body = "\n".join(_describe(attachment) for attachment in attachments)
    return (
        f"{said} Here is what I read in your {noun}:\n\n{body}\n\n"
        "(The offline demo model shows what it read; a model with an API key "
        "answers your question from it.)"
    )


def offline_files_model(*, chunk_delay: float = 0.0) -> OfflineChatModel:
    """Build the offline model that plays `plan` and `answer`."""
    return OfflineChatModel(
        chunk_delay=chunk_delay,
        responder=files_answer_responder,
        structured_responder=files_plan_responder,
    )
