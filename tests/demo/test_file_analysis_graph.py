"""The `files` graph through the OpenAI SDK: attachments in, charts out."""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI
from PIL import Image

from langgraph_openai_serve import ClientFunctionTool, GraphRequest
from langgraph_openai_serve import NamedFunctionToolChoice as Named
from lgos_demo_api.display_file import (
    DISPLAY_FILE_CHAT_TOOL,
    DISPLAY_FILE_OK,
    DISPLAY_FILE_PARAMETERS,
    DISPLAY_FILE_TOOL,
    display_file_error,
)
from lgos_demo_api.graphs.file_analysis import files_context, files_graph_config
from lgos_demo_api.graphs.file_analysis_offline import files_plan_responder
from lgos_demo_api.settings import DemoApiSettings
from lgos_demo_api.tables import (
    csv_table,
    numbers_from_text,
    render_chart,
    series_from_csv,
)
from tests.contract.openapi import validate
from tests.demo.fake_files import FakeFiles, files_client, make_pdf
from tests.demo.stubs import sdk_client

pytestmark = pytest.mark.anyio

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SALES = b"month,revenue,cost\nJan,100,80\nFeb,250,90\nMar,300,120\nApr,350,100\n"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "demo" / "files-graph.md"


@dataclass
class Env:
    client: AsyncOpenAI
    fake: FakeFiles


@pytest.fixture
async def env(offline_settings: DemoApiSettings) -> AsyncIterator[Env]:
    fake = FakeFiles()
    async with files_client(fake) as files:
        config = files_graph_config(offline_settings, files=files)
        async for client, _ in sdk_client({"files": config}):
            yield Env(client, fake)


def wire(obj: Any) -> dict[str, Any]:
    return obj.model_dump(mode="json", exclude_unset=True)


async def respond(env: Env, **request: Any) -> dict[str, Any]:
    response = wire(await env.client.responses.create(model="files", **request))
    validate("Response", response)
    assert response["status"] == "completed"
    return response


async def respond_streaming(env: Env, **request: Any) -> dict[str, Any]:
    events = []
    async with await env.client.responses.create(
        model="files", stream=True, **request
    ) as stream:
        async for event in stream:
            events.append(wire(event))
            validate("ResponseStreamEvent", events[-1])
    assert events[-1]["type"] == "response.completed"
    validate("Response", events[-1]["response"])
    return events[-1]["response"]


def user(text: str, *file_ids: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [
            {"type": "input_text", "text": text},
            *({"type": "input_file", "file_id": i} for i in file_ids),
        ],
    }


def answer_text(response: dict[str, Any]) -> str:
    texts = [
        part["text"]
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    ]
    assert len(texts) == 1
    return texts[0]


def display_calls(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        item
        for item in response["output"]
        if item["type"] == "function_call" and item["name"] == "display_file"
    ]


# -- answers ------------------------------------------------------------------


async def test_discovery_advertises_files_and_display_file(env: Env) -> None:
    model = await env.client.models.retrieve("files")
    extension = model.model_extra["lgos"]  # type: ignore[index]
    assert extension["features"] == ["file_inputs"]
    assert extension["client_tools"] == ["display_file"]
    assert "display_file" in extension["description"]


async def test_a_question_about_a_csv_gets_a_grounded_answer(env: Env) -> None:
    sales = env.fake.add("sales.csv", SALES, "text/csv")
    request = {"input": [user("What is in this file?", sales)]}
    text = answer_text(await respond(env, **request))
    assert (
        "**sales.csv** is a CSV file with 4 rows and 3 columns (month, revenue, "
        "cost). The revenue column adds up to 1,000 (mean 250)."
    ) in text
    assert text.startswith(
        'This is the offline demo model. You asked: "What is in this file?" Here'
    )
    # plan and answer both read the file: one download for the run.
    assert env.fake.downloads[sales] == 1
    streamed = await respond_streaming(env, **request)
    assert answer_text(streamed) == text
    assert env.fake.downloads[sales] == 2


async def test_text_pdf_and_unreadable_attachments(env: Env) -> None:
    notes = env.fake.add("notes.md", b"# Launch\n\nShip on Friday.\n")
    report = env.fake.add(
        "report.pdf", make_pdf(["Revenue grew 12%.", "Costs fell."]), "application/pdf"
    )
    image = env.fake.add("photo.png", PNG_SIGNATURE + b"\x00" * 8)
    text = answer_text(
        await respond(
            env, input=[user("Summarise", notes, report, image, "file-expired")]
        )
    )
    assert "- **notes.md** (text/markdown) has 2 lines of text; it begins:" in text
    assert "> # Launch\n> Ship on Friday." in text
    assert "- **report.pdf** is a PDF with 1 page; its text begins:" in text
    assert "> Revenue grew 12%.\n> Costs fell." in text
    assert "[attachment photo.png: image/png, 16 bytes — not readable]" in text
    assert "[attachment file-expired: not available — file not found:" in text


async def test_no_attachment_explains_what_to_do(env: Env) -> None:
    text = answer_text(await respond(env, input="Hello"))
    assert "I see no attachments." in text


# -- charts and tables ------------------------------------------------------------


async def test_chart_round_trip_on_responses(env: Env) -> None:
    sales = env.fake.add("sales.csv", SALES, "text/csv")
    ledger: list[Any] = [user("Plot the revenue, please", sales)]
    first = await respond_streaming(env, input=ledger, tools=[DISPLAY_FILE_TOOL])
    (call,) = display_calls(first)
    arguments = json.loads(call["arguments"])
    assert set(arguments) == {"file_id", "filename", "mime_type"}
    assert arguments["filename"] == "revenue-by-month.png"
    assert arguments["mime_type"] == "image/png"
    # Progress as commentary, then only the call: no bytes or URLs.
    assert [(item["type"], item.get("phase")) for item in first["output"]] == [
        ("message", "commentary")
    ] * 2 + [("function_call", None)]
    assert [item["content"][0]["text"] for item in first["output"][:2]] == [
        "Drawing a chart: Revenue by month",
        "Uploading revenue-by-month.png",
    ]

    stored = env.fake.objects[arguments["file_id"]]
    assert stored.purpose == "user_data"
    content = await files_sdk(env).files.content(arguments["file_id"])
    png = content.content
    assert png.startswith(PNG_SIGNATURE)
    assert Image.open(io.BytesIO(png)).size == (800, 450)

    ledger += [
        *first["output"],
        {
            "type": "function_call_output",
            "call_id": call["call_id"],
            "output": DISPLAY_FILE_OK,
        },
    ]
    final = await respond_streaming(env, input=ledger, tools=[DISPLAY_FILE_TOOL])
    assert display_calls(final) == []
    assert answer_text(final) == (
        "Here is the chart of revenue by month (revenue-by-month.png)."
    )


def files_sdk(env: Env) -> AsyncOpenAI:
    """An SDK client on the fake Files API (what a UI backend would use)."""
    import httpx

    from tests.demo.fake_files import API_KEY, BASE_URL

    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=env.fake.app))
    return AsyncOpenAI(base_url=BASE_URL, api_key=API_KEY, http_client=http)


async def test_chart_round_trip_on_chat_completions(env: Env) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Draw a chart of apples: 3, pears: 5, plums: 2"}
    ]
    completion = wire(
        await env.client.chat.completions.create(
            model="files", messages=messages, tools=[DISPLAY_FILE_CHAT_TOOL]
        )
    )
    validate("CreateChatCompletionResponse", completion)
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    arguments = json.loads(call["function"]["arguments"])
    assert arguments["filename"] == "value-by-item.png"
    assert env.fake.objects[arguments["file_id"]].data.startswith(PNG_SIGNATURE)

    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": DISPLAY_FILE_OK},
    ]
    final = wire(
        await env.client.chat.completions.create(
            model="files", messages=messages, tools=[DISPLAY_FILE_CHAT_TOOL]
        )
    )
    validate("CreateChatCompletionResponse", final)
    assert final["choices"][0]["message"]["content"] == (
        "Here is the chart of value by item (value-by-item.png)."
    )


async def test_chat_file_parts_reach_the_graph(env: Env) -> None:
    sales = env.fake.add("sales.csv", SALES, "text/csv")
    completion = await env.client.chat.completions.create(
        model="files",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "How much revenue?"},
                    {"type": "file", "file": {"file_id": sales}},
                ],
            }
        ],
    )
    assert "The revenue column adds up to 1,000" in (
        completion.choices[0].message.content or ""
    )


async def test_a_table_request_uploads_a_csv(env: Env) -> None:
    sales = env.fake.add("sales.csv", SALES, "text/csv")
    response = await respond(
        env,
        input=[user("Make a summary table as CSV", sales)],
        tools=[DISPLAY_FILE_TOOL],
    )
    (call,) = display_calls(response)
    arguments = json.loads(call["arguments"])
    assert arguments["mime_type"] == "text/csv"
    assert arguments["filename"] == "revenue-by-month.csv"
    data = env.fake.objects[arguments["file_id"]].data.decode()
    assert data.splitlines() == [
        "column,count,sum,min,max,mean",
        "revenue,4,1000.0,100.0,350.0,250.0",
        "cost,4,390.0,80.0,120.0,97.5",
    ]


async def test_without_display_file_the_graph_says_so(env: Env) -> None:
    before = len(env.fake.objects)
    text = answer_text(await respond(env, input="Plot 3, 5, 8 and 13"))
    assert "your client did not offer the display_file function" in text
    none = await respond(
        env, input="Plot 3, 5, 8 and 13", tools=[DISPLAY_FILE_TOOL], tool_choice="none"
    )
    assert display_calls(none) == []
    assert "tool_choice rules it out" in answer_text(none)
    assert len(env.fake.objects) == before  # nothing was uploaded


async def test_a_chart_without_data_asks_for_some(env: Env) -> None:
    response = await respond(env, input="Plot it", tools=[DISPLAY_FILE_TOOL])
    assert display_calls(response) == []
    assert answer_text(response).startswith("I found no data for a chart.")


async def test_a_failed_display_is_reported(env: Env) -> None:
    first = await respond(env, input="Plot 1, 4, 9", tools=[DISPLAY_FILE_TOOL])
    (call,) = display_calls(first)
    file_id = json.loads(call["arguments"])["file_id"]
    output = json.dumps({"displayed": False, "error": "download failed"})
    final = await respond(
        env,
        input=[
            {"role": "user", "content": "Plot 1, 4, 9"},
            call,
            {
                "type": "function_call_output",
                "call_id": call["call_id"],
                "output": output,
            },
        ],
        tools=[DISPLAY_FILE_TOOL],
    )
    assert answer_text(final) == (
        "Your client could not display value-by-position.png: download failed. "
        f"The chart is stored in the Files API as {file_id}."
    )


async def test_an_unavailable_files_api_does_not_fail_the_run(
    offline_settings: DemoApiSettings,
) -> None:
    fake = FakeFiles()
    async with files_client(fake) as files:
        config = files_graph_config(offline_settings, files=files)
        async for client, _ in sdk_client({"files": config}):
            fake.fail_with = 503
            env = Env(client, fake)
            text = answer_text(await respond(env, input=[user("Read", "file-abc")]))
            assert "the Files API answered HTTP 503" in text
            upload = await respond(env, input="Plot 1, 2", tools=[DISPLAY_FILE_TOOL])
            assert answer_text(upload).startswith(
                "I made value-by-position.png but could not upload it to the "
                "Files API (HTTP 503)"
            )


# -- pieces -------------------------------------------------------------------


def test_context_allows_display_file_only_when_offered() -> None:
    display = ClientFunctionTool(
        name="display_file", parameters=DISPLAY_FILE_PARAMETERS
    )
    other = ClientFunctionTool(name="roll_dice")

    def ctx(**request: Any) -> tuple[bool, bool]:
        built = files_context(GraphRequest(model="files", **request))
        return built.display_file, built.offered

    assert ctx() == (False, False)
    assert ctx(tools=(other,)) == (False, False)
    assert ctx(tools=(display,)) == (True, True)
    assert ctx(tools=(display,), tool_choice="required") == (True, True)
    assert ctx(tools=(display,), tool_choice="none") == (False, True)
    assert ctx(tools=(display, other), tool_choice=Named("roll_dice")) == (False, True)
    assert ctx(tools=(display,), tool_choice=Named("display_file")) == (True, True)
    # Each request gets its own download cache.
    assert files_context(GraphRequest(model="f")).file_cache is not (
        files_context(GraphRequest(model="f")).file_cache
    )


@pytest.mark.parametrize(
    ("text", "labels", "values"),
    [
        ("Plot apples: 3, pears: 5, plums: 2", ("apples", "pears", "plums"), (3, 5, 2)),
        ("chart Q1=10.5; Q2=12", ("Q1", "Q2"), (10.5, 12)),
        ("plot 3 5 8 13", ("1", "2", "3", "4"), (3, 5, 8, 13)),
        ("plot -1.5 and 2", ("1", "2"), (-1.5, 2)),
    ],
)
def test_numbers_from_text(text: str, labels: tuple, values: tuple) -> None:
    series = numbers_from_text(text)
    assert series is not None
    assert (series.labels, series.values) == (labels, values)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("Plot the revenue", "chart"),
        ("Chart the costs please", "chart"),
        ("Can you make a bar chart of apples: 3, pears: 5", "chart"),
        ("Visualise these numbers: 1 2 3", "chart"),
        ("What does this chart show?", "answer"),
        ("How does LangGraph work?", "answer"),
        ("What's in this CSV?", "answer"),
        ("Make a summary table as CSV", "table"),
        ("Export the totals to a spreadsheet", "table"),
        ("Give me that as a table", "table"),
    ],
)
def test_offline_plan_tells_requests_apart(text: str, action: str) -> None:
    from langchain_core.messages import HumanMessage

    plan = files_plan_responder([HumanMessage(text)], None)
    assert plan == {"action": action, "title": "", "column": ""}


def test_numbers_from_text_needs_two() -> None:
    assert numbers_from_text("plot 42") is None
    assert numbers_from_text("plot my data") is None


def test_series_from_csv_picks_the_column() -> None:
    table = csv_table(SALES.decode())
    assert table is not None
    assert table.numeric_columns() == [1, 2]
    by_default = series_from_csv(table, "sales.csv")
    assert by_default is not None
    assert (by_default.value_name, by_default.values) == (
        "revenue",
        (100, 250, 300, 350),
    )
    named = series_from_csv(table, "sales.csv", question="plot the cost")
    assert named is not None and named.value_name == "cost"
    chosen = series_from_csv(table, "sales.csv", column="COST")
    assert chosen is not None and chosen.labels == ("Jan", "Feb", "Mar", "Apr")
    semicolons = csv_table("city;people\nOslo;700\nBergen;290\n")
    assert semicolons is not None
    city = series_from_csv(semicolons, "x.csv")
    assert city is not None and city.subject == "people by city"
    assert series_from_csv(csv_table("a,b\nx,y\n"), "t.csv") is None  # type: ignore[arg-type]


def test_display_file_schema_is_strict_and_documented() -> None:
    parameters = DISPLAY_FILE_TOOL["parameters"]
    assert DISPLAY_FILE_TOOL["strict"] is True
    assert parameters["additionalProperties"] is False
    assert sorted(parameters["required"]) == sorted(parameters["properties"])
    assert all(p["type"] == "string" for p in parameters["properties"].values())
    assert DISPLAY_FILE_CHAT_TOOL["function"]["parameters"] == parameters
    validate("FunctionTool", DISPLAY_FILE_TOOL)
    # The documentation shows exactly this JSON.
    blocks = re.findall(r"```json\n(.*?)\n```", DOCS.read_text(), re.DOTALL)
    assert DISPLAY_FILE_TOOL in [json.loads(block) for block in blocks]


def test_display_file_error() -> None:
    assert display_file_error(DISPLAY_FILE_OK) is None
    assert display_file_error("shown") is None
    assert display_file_error('{"displayed": false}') == (
        "the client could not display it"
    )
    assert display_file_error('{"error": "too big"}') == "too big"


@pytest.mark.parametrize("rows", [3, 120])
def test_charts_draw_any_labels(rows: int) -> None:
    text = "name,amount\n" + "".join(
        f"$\\frac{{{n}}} {{broken$,{n * 1.5}\n" for n in range(rows)
    )
    table = csv_table(text)
    assert table is not None
    series = series_from_csv(table, "odd.csv")
    assert series is not None and len(series.values) == rows
    png = render_chart(series, "Cost in $ ^{ per $ unit")
    assert png.startswith(PNG_SIGNATURE)
