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
runtime context). The data, the charts and the CSV files come from
`lgos_demo_api.tables`. The offline stand-in for the model,
`lgos_demo_api.graphs.file_analysis_offline`, answers deterministically from
the resolved text: it quotes text and PDF files and counts and sums CSV
columns.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
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
from lgos_demo_api.attachments import FileCache, file_ids, own_text, resolve_file_inputs
from lgos_demo_api.display_file import DISPLAY_FILE, display_file_arguments
from lgos_demo_api.files_client import FilesClient, StoredFile, files_tenant
from lgos_demo_api.graphs.file_analysis_offline import offline_files_model
from lgos_demo_api.graphs.tool_calls import call_id, with_tool_calls
from lgos_demo_api.graphs.transcript import latest_human
from lgos_demo_api.models import answered_by, chat_model, uses_offline_model
from lgos_demo_api.settings import DemoApiSettings
from lgos_demo_api.tables import (
    csv_table,
    numbers_from_text,
    render_chart,
    series_csv,
    series_from_csv,
    summary_csv,
)

__all__ = [
    "ANSWER_PROMPT",
    "PLAN_PROMPT",
    "FileTask",
    "FilesContext",
    "build_files_graph",
    "files_context",
    "files_graph_config",
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
        file_cache: This run's downloads (see `FileCache`), made for the
            caller's tenant, which also owns the files the run uploads.

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
        A context with a fresh `FileCache` for the caller's tenant
        (`files_tenant`: the run's server-trusted scope).

    """
    offered = any(tool.name == DISPLAY_FILE for tool in request.tools)
    choice = request.tool_choice
    allowed = choice != "none" and not (
        isinstance(choice, NamedFunctionToolChoice) and choice.name != DISPLAY_FILE
    )
    return FilesContext(
        display_file=offered and allowed,
        offered=offered,
        file_cache=FileCache(tenant=files_tenant(request)),
    )


def _slug(title: str) -> str:
    return _SLUG.sub("-", title.casefold()).strip("-")[:60] or "file"


FilesGraph = CompiledStateGraph[FilesState, FilesContext, FilesState, FilesState]
"""The compiled `files` graph type."""


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
        # No tools are bound; never forward stray calls.
        return {"messages": [with_tool_calls(reply, [])]}

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
        human = latest_human(state["messages"])
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
            uploaded = await files.upload(
                data,
                filename=filename,
                mime_type=mime_type,
                tenant=context.file_cache.tenant,
            )
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
            "id": call_id(
                uploaded.id, len(state["messages"]), prefix="call_display_", digits=20
            ),
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
