"""The `files` graph: reads attachments, draws charts and tables, displays them.

Served with `GraphFeature.FILE_INPUTS` (clients may attach Files API IDs) and
`client_tools={"display_file"}` (the one client function it calls)::

    START -.-> plan -.-> answer | make_file
    START -.-> answer            (when a display_file result came back)

- `plan` (private, `TAG_NOSTREAM`) asks the model, through structured
  output, what the user wants: an `answer`, a `chart` or a `table`, with a
  title and the CSV column to use.
- `answer` (streams) answers from the conversation with every attachment
  resolved to text by `resolve_file_inputs`. After a `display_file` result it
  tells the user what was shown (or that it could not be).
- `make_file` takes the data from the latest CSV attachment or, failing
  that, from numbers in the user's message; draws a PNG with matplotlib
  (Agg) or writes a CSV; uploads it to the Files API (purpose `user_data`);
  and ends with a `display_file` call carrying strict arguments
  `{"file_id", "filename", "mime_type"}`. Without a client that offers
  `display_file` (or with `tool_choice: "none"`) it says that it cannot show
  files instead, and uploads nothing.

File IDs stay in the graph state; attachments are downloaded only for the
model calls that read them, once per run (the run's `FileCache` lives in the
runtime context). The offline stand-in answers deterministically from the
resolved text: it quotes text and PDF files and counts and sums CSV columns.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from langgraph_openai_serve import (
    ClientSettings,
    GraphConfig,
    GraphFeature,
    GraphRequest,
    NamedFunctionToolChoice,
    status_event,
)
from lgos_demo_api.display_file import (
    DISPLAY_FILE,
    display_file_arguments,
    display_file_failure,
)
from lgos_demo_api.attachments import (
    Attachment,
    FileCache,
    file_ids,
    own_text,
    parse_attachments,
    resolve_file_inputs,
)
from lgos_demo_api.files_client import FilesClient, StoredFile
from lgos_demo_api.models import answered_by, chat_model, uses_offline_model
from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "ANSWER_PROMPT",
    "PLAN_PROMPT",
    "DataSeries",
    "FileTask",
    "FilesContext",
    "build_files_graph",
    "csv_table",
    "files_answer_responder",
    "files_context",
    "files_graph_config",
    "files_plan_responder",
    "numbers_from_text",
    "offline_files_model",
    "render_chart",
    "series_from_csv",
]

PLAN_PROMPT = """\
You decide what the user wants from their latest message. Attachments appear \
in their messages under "## Attachment: <name>" headings. Choose "chart" \
when they ask for a chart, plot or graph of data; "table" when they ask for a \
CSV file or a table to download; otherwise "answer". For a chart or table, \
give a short title (e.g. "Revenue by month") and the CSV column to use, \
written exactly as in the header, or "" to let the application choose."""

ANSWER_PROMPT = """\
You answer questions about the files the user attached. Each attachment \
appears in their message as its text under a "## Attachment: <name>" \
heading, or as a note in square brackets when it could not be read; say so \
when that matters. Answer from the attachments' content and quote it where \
it helps. When the conversation ends with the result of a display_file call, \
tell the user in a sentence or two what the displayed file shows, or that it \
could not be shown."""

NO_DISPLAY = (
    "I can make {what}, but I cannot show files here: your client did not "
    "offer the display_file function{reason}. Use a client that displays "
    "files, such as the demo's Chainlit UI."
)

NO_DATA = (
    "I found no data for {what}. Attach a CSV file with a header row and at "
    "least one numeric column, or list the numbers in your message, e.g. "
    '"Plot apples: 3, pears: 5, plums: 2".'
)

UPLOAD_FAILED = (
    "I made {filename} but could not upload it to the Files API ({reason}), "
    "so I cannot show it. Please try again later."
)

_MAX_POINTS = 500
_MAX_BARS = 30
_SLUG = re.compile(r"[^a-z0-9]+")


class FileTask(BaseModel):
    """The `plan` step's private structured output."""

    action: Literal["answer", "chart", "table"] = Field(
        description="answer: reply in text; chart: draw a chart; table: make a "
        "CSV file."
    )
    title: str = Field(
        description='A short title for the chart or table, e.g. "Revenue by '
        'month"; "" for an answer.'
    )
    column: str = Field(
        description="The CSV column to chart or summarise, exactly as in the "
        'header; "" to let the application choose.'
    )


class FilesState(MessagesState):
    """The graph's state: the conversation (file blocks and all) and the task."""

    task: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class FilesContext:
    """The `files` graph's runtime context, built per request.

    Attributes:
        display_file: Whether the graph may call the client's `display_file`
            (offered in `tools` and not ruled out by `tool_choice`).
        offered: Whether the client offered `display_file` at all.
        file_cache: This run's downloads (see `FileCache`).

    """

    display_file: bool = False
    offered: bool = False
    file_cache: FileCache = field(default_factory=FileCache, compare=False, repr=False)


def files_context(
    request: GraphRequest, settings: ClientSettings | None = None
) -> FilesContext:
    """Build the runtime context (`GraphConfig.context_factory`).

    `display_file` may be called when the client offered it and `tool_choice`
    is not `"none"` and does not name another function.

    Args:
        request: The normalized request.
        settings: Unused (the graph publishes no settings).

    Returns:
        A context with a fresh `FileCache`.

    """
    offered = any(tool.name == DISPLAY_FILE for tool in request.tools)
    choice = request.tool_choice
    allowed = choice != "none" and not (
        isinstance(choice, NamedFunctionToolChoice) and choice.name != DISPLAY_FILE
    )
    return FilesContext(display_file=offered and allowed, offered=offered)


# --------------------------------------------------------------------------
# Data: CSV attachments and numbers in a message
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DataSeries:
    """Labelled numbers to chart or tabulate.

    Attributes:
        labels: One label per value.
        values: The numbers.
        label_name: What the labels are (an axis title).
        value_name: What the values are (an axis title).
        source: Where they came from, e.g. `sales.csv` or `your message`.

    """

    labels: tuple[str, ...]
    values: tuple[float, ...]
    label_name: str
    value_name: str
    source: str

    @property
    def subject(self) -> str:
        """A default title, e.g. `revenue by month`."""
        return f"{self.value_name} by {self.label_name}"


def _number(text: str) -> float | None:
    cleaned = text.strip().replace("\u2212", "-")
    cleaned = re.sub(r"^[$€£]|[%$€£]$", "", cleaned).replace(",", "").strip()
    if not cleaned:
        return None
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass(frozen=True, slots=True)
class CsvTable:
    """A parsed CSV file: its header and rows (short rows padded with "")."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def numeric_columns(self) -> list[int]:
        """Return the columns whose non-empty cells are all numbers."""
        numeric = []
        for index in range(len(self.header)):
            cells = [row[index] for row in self.rows if row[index].strip()]
            if cells and all(_number(cell) is not None for cell in cells):
                numeric.append(index)
        return numeric

    def column_values(self, index: int) -> list[float]:
        """Return the numbers of a numeric column (empty cells skipped)."""
        return [
            value for row in self.rows if (value := _number(row[index])) is not None
        ]


def csv_table(text: str) -> CsvTable | None:
    """Parse CSV text with a header row; None when it has no data rows."""
    sample = text[:4096]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = [row for row in csv.reader(io.StringIO(text), dialect) if any(row)]
    if len(rows) < 2:
        return None
    width = max(len(row) for row in rows)
    header = tuple(
        (rows[0][i].strip() if i < len(rows[0]) else "") or f"column {i + 1}"
        for i in range(width)
    )
    body = tuple(
        tuple(row[i].strip() if i < len(row) else "" for i in range(width))
        for row in rows[1:]
    )
    return CsvTable(header, body)


def series_from_csv(
    table: CsvTable, source: str, column: str = "", question: str = ""
) -> DataSeries | None:
    """Pick labelled values from a CSV table.

    The value column is `column` when it names a numeric column (any case),
    else the first numeric column named in `question`, else the first numeric
    column. Labels come from the first non-numeric column, else row numbers.

    Args:
        table: The parsed CSV.
        source: Its filename.
        column: The column the model chose, or "".
        question: The user's message.

    Returns:
        At most `_MAX_POINTS` values, or None without a numeric column.

    """
    numeric = table.numeric_columns()
    if not numeric:
        return None
    names = {table.header[i].casefold(): i for i in numeric}
    words = question.casefold()
    chosen = names.get(column.strip().casefold())
    if chosen is None:
        chosen = next(
            (
                i
                for i in numeric
                if re.search(rf"\b{re.escape(table.header[i].casefold())}\b", words)
            ),
            numeric[0],
        )
    label_index = next((i for i in range(len(table.header)) if i not in numeric), None)
    labels: list[str] = []
    values: list[float] = []
    for number, row in enumerate(table.rows, start=1):
        value = _number(row[chosen])
        if value is None:
            continue
        labels.append(row[label_index] if label_index is not None else str(number))
        values.append(value)
        if len(values) == _MAX_POINTS:
            break
    return DataSeries(
        tuple(labels),
        tuple(values),
        table.header[label_index] if label_index is not None else "row",
        table.header[chosen],
        source,
    )


_PAIR = re.compile(r"([A-Za-z0-9][\w'/.-]*)\s*[:=]\s*(-?\d+(?:\.\d+)?)")
_BARE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def numbers_from_text(text: str) -> DataSeries | None:
    """Find numbers to chart in a message.

    `label: number` (or `label = number`) pairs, when there are at least two,
    give labelled values ("apples: 3, pears: 5"); otherwise at least two bare
    numbers give values labelled 1, 2, 3, ...

    Args:
        text: The user's message.

    Returns:
        The values, or None when the message has fewer than two numbers.

    """
    pairs = _PAIR.findall(text)
    if len(pairs) >= 2:
        return DataSeries(
            tuple(label for label, _ in pairs[:_MAX_POINTS]),
            tuple(float(value) for _, value in pairs[:_MAX_POINTS]),
            "item",
            "value",
            "your message",
        )
    numbers = [float(n) for n in _BARE.findall(text)][:_MAX_POINTS]
    if len(numbers) < 2:
        return None
    return DataSeries(
        tuple(str(n) for n in range(1, len(numbers) + 1)),
        tuple(numbers),
        "position",
        "value",
        "your message",
    )


def render_chart(series: DataSeries, title: str) -> bytes:
    """Draw the series as a PNG (matplotlib's Agg backend, no display needed).

    Up to 30 values become a bar chart, more a line chart.

    Args:
        series: The data.
        title: The chart's title.

    Returns:
        The PNG bytes.

    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 4.5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    positions = list(range(len(series.values)))
    if len(positions) <= _MAX_BARS:
        axes.bar(positions, series.values, color="#3b6ea8")
        axes.set_xticks(positions)
        long_labels = any(len(label) > 6 for label in series.labels)
        axes.set_xticklabels(
            [label[:20] for label in series.labels],
            rotation=45 if long_labels or len(positions) > 12 else 0,
            ha="right" if long_labels or len(positions) > 12 else "center",
            parse_math=False,
        )
    else:
        axes.plot(positions, series.values, color="#3b6ea8")
        step = max(1, len(positions) // 10)
        axes.set_xticks(positions[::step])
        axes.set_xticklabels(
            [label[:20] for label in series.labels[::step]],
            rotation=45,
            ha="right",
            parse_math=False,
        )
    # Labels are user data: never parse "$...$" as mathtext.
    axes.set_title(title, parse_math=False)
    axes.set_xlabel(series.label_name, parse_math=False)
    axes.set_ylabel(series.value_name, parse_math=False)
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _format(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _csv_bytes(rows: Sequence[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def summary_csv(table: CsvTable) -> bytes:
    """Summarise every numeric column: count, sum, min, max, mean."""
    rows: list[list[Any]] = [["column", "count", "sum", "min", "max", "mean"]]
    for index in table.numeric_columns():
        values = table.column_values(index)
        total = sum(values)
        rows.append(
            [
                table.header[index],
                len(values),
                round(total, 6),
                min(values),
                max(values),
                round(total / len(values), 6),
            ]
        )
    return _csv_bytes(rows)


def series_csv(series: DataSeries) -> bytes:
    """Write the series as a two-column CSV with a header."""
    rows: list[list[Any]] = [[series.label_name, series.value_name]]
    rows += [
        [label, value]
        for label, value in zip(series.labels, series.values, strict=True)
    ]
    return _csv_bytes(rows)


def _slug(title: str) -> str:
    return _SLUG.sub("-", title.casefold()).strip("-")[:60] or "file"


def _call_id(*parts: object) -> str:
    return "call_display_" + hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


# --------------------------------------------------------------------------
# The graph
# --------------------------------------------------------------------------

FilesGraph = CompiledStateGraph[FilesState, FilesContext, FilesState, FilesState]
"""The compiled `files` graph type."""


def _latest_human(messages: Sequence[BaseMessage]) -> HumanMessage | None:
    return next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)


def build_files_graph(model: BaseChatModel, files: FilesClient | None) -> FilesGraph:
    """Compile the `files` graph.

    Args:
        model: The chat model: `plan` uses it through private structured
            output, `answer` streams it.
        files: The Files API client for attachments and uploads; None means
            none is configured (attachments become notes, nothing is made).

    Returns:
        The compiled graph, named `files`, without a checkpointer.

    """
    private: RunnableConfig = {"tags": [TAG_NOSTREAM]}
    planner = model.with_structured_output(FileTask, include_raw=True)

    def route(state: FilesState) -> Literal["plan", "answer"]:
        messages = state["messages"]
        return (
            "answer" if messages and isinstance(messages[-1], ToolMessage) else "plan"
        )

    async def plan(state: FilesState, runtime: Runtime[FilesContext]) -> dict[str, Any]:
        context = runtime.context or FilesContext()
        messages = await resolve_file_inputs(
            [SystemMessage(PLAN_PROMPT), *state["messages"]],
            files,
            cache=context.file_cache,
        )
        result = await planner.ainvoke(messages, config=private)
        parsed = result.get("parsed") if isinstance(result, dict) else None
        task = (
            parsed
            if isinstance(parsed, FileTask)
            else FileTask(action="answer", title="", column="")
        )
        return {"task": task.model_dump()}

    def after_plan(state: FilesState) -> Literal["answer", "make_file"]:
        task = state.get("task") or {}
        return "make_file" if task.get("action") in ("chart", "table") else "answer"

    async def answer(
        state: FilesState, runtime: Runtime[FilesContext]
    ) -> dict[str, Any]:
        context = runtime.context or FilesContext()
        messages = await resolve_file_inputs(
            [SystemMessage(ANSWER_PROMPT), *state["messages"]],
            files,
            cache=context.file_cache,
        )
        reply = await model.ainvoke(messages)
        assert isinstance(reply, AIMessage)
        if reply.tool_calls:  # no tools are bound; never forward stray calls
            reply = reply.model_copy(
                update={"tool_calls": [], "invalid_tool_calls": []}
            )
        return {"messages": [reply]}

    async def latest_csv(
        messages: Sequence[BaseMessage], context: FilesContext
    ) -> StoredFile | None:
        for file_id in reversed(file_ids(messages)):
            found = await context.file_cache.fetch(files, file_id)
            if isinstance(found, StoredFile) and found.is_csv:
                return found
        return None

    async def make_file(
        state: FilesState, runtime: Runtime[FilesContext]
    ) -> dict[str, Any]:
        context = runtime.context or FilesContext()
        task = FileTask.model_validate(state.get("task") or {})
        chart = task.action == "chart"
        what = "a chart" if chart else "a table"
        if not context.display_file:
            reason = (
                " (tool_choice rules it out for this request)"
                if context.offered
                else ""
            )
            text = NO_DISPLAY.format(what=what, reason=reason)
            return {"messages": [AIMessage(content=text)]}
        human = _latest_human(state["messages"])
        question = own_text(human) if human is not None else ""
        stored = await latest_csv(state["messages"], context)
        table = (
            csv_table(stored.data.decode("utf-8-sig", "replace")) if stored else None
        )
        series = None
        if stored is not None and table is not None:
            series = series_from_csv(table, stored.filename, task.column, question)
        from_csv = series is not None
        if series is None:
            series = numbers_from_text(question)
        if series is None or not series.values:
            return {"messages": [AIMessage(content=NO_DATA.format(what=what))]}
        title = task.title.strip() or series.subject[:1].upper() + series.subject[1:]
        write = get_stream_writer()
        if chart:
            write(status_event(f"Drawing a chart: {title}"))
            data = await asyncio.to_thread(render_chart, series, title)
            filename, mime_type = f"{_slug(title)}.png", "image/png"
        else:
            write(status_event(f"Writing a table: {title}"))
            # A CSV attachment is summarised; numbers from the message listed.
            data = summary_csv(table) if from_csv and table else series_csv(series)
            filename, mime_type = f"{_slug(title)}.csv", "text/csv"
        if files is None:
            text = UPLOAD_FAILED.format(
                filename=filename, reason="no Files API is configured"
            )
            return {"messages": [AIMessage(content=text)]}
        write(status_event(f"Uploading {filename}"))
        try:
            uploaded = await files.upload(data, filename=filename, mime_type=mime_type)
        except openai.APIError as error:
            reason = (
                f"HTTP {error.status_code}"
                if isinstance(error, openai.APIStatusError)
                else "it could not be reached"
            )
            text = UPLOAD_FAILED.format(filename=filename, reason=reason)
            return {"messages": [AIMessage(content=text)]}
        call = {
            "name": DISPLAY_FILE,
            "args": display_file_arguments(uploaded.id, filename, mime_type),
            "id": _call_id(uploaded.id, len(state["messages"])),
        }
        return {"messages": [AIMessage(content="", tool_calls=[call])]}

    builder = StateGraph(FilesState, context_schema=FilesContext)
    builder.add_node("plan", plan)
    builder.add_node("answer", answer)
    builder.add_node("make_file", make_file)
    builder.add_conditional_edges(START, route, ["plan", "answer"])
    builder.add_conditional_edges("plan", after_plan, ["answer", "make_file"])
    builder.add_edge("answer", END)
    builder.add_edge("make_file", END)
    return builder.compile(name="files")


# --------------------------------------------------------------------------
# The offline stand-in for a real model
# --------------------------------------------------------------------------

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
    human = _latest_human(messages)
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
                line += (
                    f" The {table.header[numeric[0]]} column adds up to "
                    f"{_format(total)} (mean {_format(total / len(values))})."
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
    calls = {
        call["id"]: call
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    }
    sentences = []
    for message in messages[::-1]:
        if not isinstance(message, ToolMessage):
            break
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
        failure = display_file_failure(str(message.text))
        if failure is None:
            sentences.insert(0, f"Here is the {kind} of {subject} ({filename}).")
        else:
            sentences.insert(
                0,
                f"Your client could not display {filename}: {failure}. The "
                f"{kind} is stored in the Files API as "
                f"{call['args'].get('file_id', 'an uploaded file')}.",
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
    human = _latest_human(messages)
    question = " ".join(own_text(human).split()) if human is not None else ""
    attachments = parse_attachments(messages)
    said = f'This is the offline demo model. You asked: "{question}".'
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
        "(A real model would answer your question from this content.)"
    )


def offline_files_model(*, chunk_delay: float = 0.0) -> OfflineChatModel:
    """Build the offline model that plays `plan` and `answer`."""
    return OfflineChatModel(
        chunk_delay=chunk_delay,
        responder=files_answer_responder,
        structured_responder=files_plan_responder,
    )


def files_graph_config(
    settings: DemoApiSettings,
    *,
    model: BaseChatModel | None = None,
    files: FilesClient | None = None,
) -> GraphConfig:
    """Register the `files` graph.

    Args:
        settings: The demo settings: the model (the scripted offline model
            without an API key) and the Files API (`files_base_url`,
            `files_api_key`).
        model: A chat model to use instead of the one the settings select.
        files: A Files API client to use instead of one built from the
            settings.

    Returns:
        A `GraphConfig` with `GraphFeature.FILE_INPUTS`, `display_file` as
        its client tool, and `files_context`.

    """
    if model is None:
        model = (
            offline_files_model(chunk_delay=settings.offline_chunk_delay)
            if uses_offline_model(settings)
            else chat_model(settings)
        )
    return GraphConfig(
        graph=build_files_graph(model, files or FilesClient.from_settings(settings)),
        description=(
            "Reads your attachments (text, Markdown, CSV, PDF) and answers "
            "questions about them; draws charts and writes CSV tables from a "
            "CSV attachment or numbers you give, and shows them through your "
            "client's display_file function. Try: attach a CSV and ask to plot "
            "it, or: plot apples: 3, pears: 5, plums: 2. "
            f"{answered_by(settings)}"
        ),
        features=frozenset({GraphFeature.FILE_INPUTS}),
        client_tools=frozenset({DISPLAY_FILE}),
        context_factory=files_context,
    )
