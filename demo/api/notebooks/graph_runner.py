"""Direct `run_langgraph` calls beside OpenAI SDK Responses calls, timed.

Open it with `just demo/marimo` (read-only) or `just demo/marimo --editable`,
or run it as a script (UI elements keep their defaults; flags override them):

    uv run python demo/api/notebooks/graph_runner.py --model chat --runs 5 \
        --summary timings.json --figure timings.png
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="LGOS: direct runner vs Responses")

with app.setup:
    import asyncio
    import json
    import statistics
    import threading
    import time
    from collections.abc import Awaitable, Callable, Iterator
    from contextlib import contextmanager
    from dataclasses import dataclass
    from pathlib import Path
    from typing import Any

    import httpx
    import marimo as mo
    import uvicorn
    from fastapi import FastAPI
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.store.memory import InMemoryStore
    from matplotlib.figure import Figure
    from openai import AsyncOpenAI
    from openai.types.responses import (
        Response,
        ResponseCompletedEvent,
        ResponseIncompleteEvent,
        ResponseOutputItemAddedEvent,
        ResponseTextDeltaEvent,
    )

    from langgraph_openai_serve import GraphFeature, GraphRegistry
    from langgraph_openai_serve.graph.coordinator import InMemoryRunCoordinator
    from langgraph_openai_serve.graph.runner import (
        TextChunk,
        run_langgraph,
        run_langgraph_stream,
    )
    from langgraph_openai_serve.server import (
        ServerResources,
        ServerSettings,
        create_app,
    )
    from lgos_demo_api.models import answered_by
    from lgos_demo_api.presets import PRESETS, Preset
    from lgos_demo_api.registry import create_registry
    from lgos_demo_api.settings import DemoApiSettings


@app.cell(hide_code=True)
def _():
    mo.md(r"""
    # Direct runner or OpenAI API?

    LGOS gives you two ways to run a registered graph:

    * **in process**, with `run_langgraph` (one awaited answer) or
      `run_langgraph_stream` (text chunks and status events, then the answer)
      from `langgraph_openai_serve.graph.runner`;
    * **over HTTP**, with any OpenAI client calling `POST /v1/responses`,
      in the foreground (plain or `stream=True`) or, for graphs that declare
      `GraphFeature.BACKGROUND`, with `background=True` and polling
      `responses.retrieve`.

    This notebook runs the same demo graph through each of these paths and
    times them. The server is the real one `lgos serve` runs
    (`create_app` over the demo registry), listening on a free loopback port
    in a background thread, so the OpenAI SDK streams over a real socket.
    Graphs answer with the deterministic offline model unless you switch to
    the upstream model configured in `.env`.
    """)
    return


@app.class_definition
@dataclass(frozen=True)
class Timing:
    """One timed run of one mode.

    Attributes:
        mode: Which call was timed (a `MODES` key).
        run: The run's number, from 1.
        total_s: Seconds from the call to the complete answer.
        first_text_s: Seconds to the first streamed answer text (streaming
            modes only).
        queued_s: Seconds until the background Response was accepted
            (background mode only).
        answer: The final answer text (commentary excluded).

    """

    mode: str
    run: int
    total_s: float
    first_text_s: float | None
    queued_s: float | None
    answer: str


@app.function
def in_memory_resources() -> ServerResources:
    """Checkpointer, store and run coordinator for one process, in memory."""
    return ServerResources(InMemorySaver(), InMemoryStore(), InMemoryRunCoordinator())


@app.function
def answer_text(result: object) -> str:
    """The text of a runner result.

    Raises:
        RuntimeError: The run paused for review (an interrupt batch).

    """
    if not isinstance(result, AIMessage):
        msg = f"The graph paused instead of answering: {result!r}"
        raise RuntimeError(msg)
    return result.text


@app.function
def final_answer_text(response: Response | None) -> str:
    """The answer text of a Response: its messages, commentary left out.

    `Response.output_text` would also include `phase="commentary"` messages.

    Raises:
        RuntimeError: No response arrived or it did not complete.

    """
    if response is None or response.status != "completed":
        status = None if response is None else response.status
        msg = f"The Response did not complete (status {status})."
        raise RuntimeError(msg)
    return "".join(
        part.text
        for item in response.output
        if item.type == "message" and item.phase != "commentary"
        for part in item.content
        if part.type == "output_text"
    )


@app.function
@contextmanager
def serve_in_thread(api: FastAPI) -> Iterator[str]:
    """Serve an ASGI app with Uvicorn on a free loopback port in a thread.

    `httpx.ASGITransport` would be simpler, but it hands the SDK a response
    only once the app has finished it, which hides what streaming buys.

    Yields:
        The OpenAI base URL, e.g. `http://127.0.0.1:43817/v1`.

    Raises:
        RuntimeError: The server did not start within 30 seconds.

    """
    server = uvicorn.Server(
        uvicorn.Config(api, host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, name="lgos-notebook", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("The in-process LGOS server did not start.")
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


@app.function
def build_modes(
    registry: GraphRegistry,
    client: AsyncOpenAI,
    model: str,
    preset: Preset,
    poll_interval: float,
) -> dict[str, Callable[[float], Awaitable[Timing]]]:
    """One timed call per mode, keyed by the mode's label.

    Each call takes its start time (`time.perf_counter()`) and returns a
    `Timing` with `run=0`. The background mode is included only when the
    model declares `GraphFeature.BACKGROUND`.
    """
    request = preset.graph_request(model)
    messages = [HumanMessage(preset.prompt)]
    kwargs = preset.responses_kwargs(model)

    def timing(mode: str, start: float, answer: str, **marks: float | None) -> Timing:
        total = time.perf_counter() - start
        return Timing(
            mode=mode,
            run=0,
            total_s=total,
            first_text_s=marks.get("first_text_s"),
            queued_s=marks.get("queued_s"),
            answer=answer,
        )

    async def direct(start: float) -> Timing:
        result = await run_langgraph(request, messages, registry)
        return timing("run_langgraph", start, answer_text(result))

    async def direct_stream(start: float) -> Timing:
        first = result = None
        async for event in run_langgraph_stream(request, messages, registry):
            if isinstance(event, TextChunk) and first is None:
                first = time.perf_counter() - start
            result = event
        return timing(
            "run_langgraph_stream", start, answer_text(result), first_text_s=first
        )

    async def sdk(start: float) -> Timing:
        response = await client.responses.create(**kwargs)
        return timing("responses.create", start, final_answer_text(response))

    async def sdk_stream(start: float) -> Timing:
        first = final = None
        phases: dict[int, str | None] = {}
        async with await client.responses.create(stream=True, **kwargs) as stream:
            async for event in stream:
                if isinstance(event, ResponseOutputItemAddedEvent):
                    phases[event.output_index] = getattr(event.item, "phase", None)
                elif (
                    isinstance(event, ResponseTextDeltaEvent)
                    and first is None
                    and phases.get(event.output_index) != "commentary"
                ):
                    first = time.perf_counter() - start
                elif isinstance(
                    event, ResponseCompletedEvent | ResponseIncompleteEvent
                ):
                    final = event.response
        return timing(
            "responses.create(stream=True)",
            start,
            final_answer_text(final),
            first_text_s=first,
        )

    async def sdk_background(start: float) -> Timing:
        response = await client.responses.create(background=True, **kwargs)
        queued = time.perf_counter() - start
        while response.status in ("queued", "in_progress"):
            await asyncio.sleep(poll_interval)
            response = await client.responses.retrieve(response.id)
        return timing(
            "responses.create(background=True)",
            start,
            final_answer_text(response),
            queued_s=queued,
        )

    modes: dict[str, Callable[[float], Awaitable[Timing]]] = {
        "run_langgraph": direct,
        "run_langgraph_stream": direct_stream,
        "responses.create": sdk,
        "responses.create(stream=True)": sdk_stream,
    }
    if registry.get_graph(model).supports(GraphFeature.BACKGROUND):
        modes["responses.create(background=True)"] = sdk_background
    return modes


@app.function
async def compare(
    model: str,
    preset: Preset,
    settings: DemoApiSettings,
    *,
    runs: int,
    poll_interval: float = 0.02,
) -> list[Timing]:
    """Time every mode `runs` times on one demo graph.

    Each mode runs once untimed first (imports, connections, caches), then
    the modes take turns run by run so that drift hits them alike.

    Args:
        model: The demo graph's model name.
        preset: Its prompt, settings and server tools.
        settings: The demo settings both registries are built from.
        runs: Timed runs per mode (>= 1).
        poll_interval: Seconds between `responses.retrieve` polls of a
            background Response; its total includes up to one interval.

    Returns:
        One `Timing` per mode and run, in execution order.

    """
    registry = create_registry(in_memory_resources(), settings=settings)
    server_settings = ServerSettings(
        openai_api_prefix="/v1",
        postgres_uri=None,
        background_engine="memory",
        interrupt_sweep_interval_minutes=0,
    )
    api = create_app(
        lambda resources: create_registry(resources, settings=settings),
        settings=server_settings,
    )
    timings: list[Timing] = []
    with serve_in_thread(api) as base_url:
        async with httpx.AsyncClient(timeout=600) as http:
            client = AsyncOpenAI(
                base_url=base_url, api_key="notebook", http_client=http, max_retries=0
            )
            modes = build_modes(registry, client, model, preset, poll_interval)
            for call in modes.values():
                await call(time.perf_counter())
            for run in range(1, runs + 1):
                for call in modes.values():
                    result = await call(time.perf_counter())
                    timings.append(
                        Timing(
                            mode=result.mode,
                            run=run,
                            total_s=result.total_s,
                            first_text_s=result.first_text_s,
                            queued_s=result.queued_s,
                            answer=result.answer,
                        )
                    )
    return timings


@app.function
def summarize(timings: list[Timing]) -> list[dict[str, Any]]:
    """One row per mode: times in milliseconds and answer agreement.

    `total (ms)` is the median total time and `fastest (ms)` the smallest;
    `first text (ms)` and `queued (ms)` are medians too, and `None` where
    the mode has no such moment (a non-streaming or a foreground call), so
    every time column stays numeric. `same answer` compares each run's
    answer with the first `run_langgraph` answer; with the offline model
    every path must agree.
    """
    reference = next(t.answer for t in timings if t.mode == "run_langgraph")
    rows = []
    for mode in dict.fromkeys(t.mode for t in timings):
        runs = [t for t in timings if t.mode == mode]

        def median_ms(values: list[float | None]) -> float | None:
            present = [v for v in values if v is not None]
            return round(statistics.median(present) * 1000, 1) if present else None

        rows.append(
            {
                "mode": mode,
                "runs": len(runs),
                "total (ms)": median_ms([t.total_s for t in runs]),
                "fastest (ms)": round(min(t.total_s for t in runs) * 1000, 1),
                "first text (ms)": median_ms([t.first_text_s for t in runs]),
                "queued (ms)": median_ms([t.queued_s for t in runs]),
                "same answer": all(t.answer == reference for t in runs),
            }
        )
    return rows


@app.function
def not_applicable(note: str) -> Callable[[float | None], str]:
    """A table formatter: a time with one decimal, a missing one `n/a (note)`.

    Only the displayed cell changes; the table sorts on the numbers.
    """

    def show(value: float | None) -> str:
        return f"n/a ({note})" if value is None else f"{value:.1f}"

    return show


@app.function
def summary_table(summary: list[dict[str, Any]]) -> mo.ui.table:
    """The `summarize` rows as a marimo table that fits the notebook's width.

    Column names stay short (a tooltip on each name says what it measures),
    and a time a mode does not have reads `n/a (…)` instead of `None`.
    """
    return mo.ui.table(
        summary,
        selection=None,
        label="Timings per mode",
        format_mapping={
            "first text (ms)": not_applicable("not streamed"),
            "queued (ms)": not_applicable("foreground"),
        },
        text_justify_columns={
            "first text (ms)": "right",
            "queued (ms)": "right",
        },
        header_tooltip={
            "runs": "Timed runs (an untimed warm-up run comes first).",
            "total (ms)": "Median time from the call to the complete answer.",
            "fastest (ms)": "The shortest total of the timed runs.",
            "first text (ms)": (
                "Median time to the first streamed answer text (streaming modes only)."
            ),
            "queued (ms)": (
                "Median time until the background Response was accepted "
                "(background mode only)."
            ),
            "same answer": (
                "Every run gave the same final text as run_langgraph "
                "(commentary excluded)."
            ),
        },
    )


@app.function
def plot_timings(timings: list[Timing], title: str) -> Figure:
    """A horizontal bar chart: median total per mode, each run, first text.

    Direct runner modes are blue, HTTP modes orange; black dots are single
    runs, red ticks the median time to the first answer text, green ticks
    the median time until a background Response was queued.
    """
    modes = list(dict.fromkeys(t.mode for t in timings))
    figure = Figure(figsize=(8, 1.2 + 0.55 * len(modes)), layout="constrained")
    axes = figure.subplots()
    for y, mode in enumerate(modes):
        runs = [t for t in timings if t.mode == mode]
        totals = [t.total_s * 1000 for t in runs]
        color = "tab:blue" if mode.startswith("run_langgraph") else "tab:orange"
        axes.barh(y, statistics.median(totals), color=color, alpha=0.55)
        axes.scatter(totals, [y] * len(totals), color="black", s=10, zorder=3)
        for attribute, mark, label in (
            ("first_text_s", "tab:red", "first answer text (median)"),
            ("queued_s", "tab:green", "queued (median)"),
        ):
            values = [getattr(t, attribute) for t in runs]
            if all(v is not None for v in values):
                axes.scatter(
                    statistics.median(values) * 1000,
                    y,
                    marker="|",
                    s=400,
                    color=mark,
                    zorder=4,
                    label=label,
                )
    handles, labels = axes.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    if unique:
        # Below the plot: inside it, the legend covered a bar.
        figure.legend(
            unique.values(),
            unique.keys(),
            loc="outside lower center",
            ncols=len(unique),
            frameon=False,
        )
    axes.set_yticks(range(len(modes)), labels=modes)
    axes.invert_yaxis()
    axes.set_xlabel("milliseconds (bar: median total, dots: each run)")
    axes.set_title(title)
    return figure


@app.cell
def _():
    args = mo.cli_args()
    return (args,)


@app.cell(hide_code=True)
def _(args):
    model = mo.ui.dropdown(
        options=list(PRESETS),
        value=str(args.get("model", "deep-research")),
        label="Graph (model)",
    )
    runs = mo.ui.slider(
        1,
        10,
        value=int(args.get("runs", 3)),
        label="Timed runs per mode",
        show_value=True,
    )
    delay_ms = mo.ui.slider(
        0,
        20,
        value=int(args.get("delay-ms", 0)),
        label="Offline model: milliseconds between streamed words",
        show_value=True,
    )
    upstream = mo.ui.switch(
        value=args.get("upstream") in ("", True),
        label="Use the upstream model configured in .env (DEMO_API_OPENAI_API_KEY)",
    )
    mo.vstack([model, runs, delay_ms, upstream])
    return delay_ms, model, runs, upstream


@app.cell(hide_code=True)
def _(delay_ms, model, upstream):
    if upstream.value:
        # The environment and .env, exactly as `lgos serve` would read them.
        settings = DemoApiSettings()
    else:
        # Offline whatever .env says: the explicit values win over it.
        settings = DemoApiSettings(
            _env_file=None,  # type: ignore[call-arg]
            openai_api_key=None,
            web_search_backend="offline",
            offline_chunk_delay=delay_ms.value / 1000,
        )
    preset = PRESETS[model.value]
    mo.md(
        f"""
        **{model.value}** — prompt: _{preset.prompt}_
        — settings: `{preset.metadata.get("lgos_settings", "defaults")}`
        — server tools: `{", ".join(preset.server_tools) or "none"}`.
        {answered_by(settings)}
        """
    )
    return preset, settings


@app.cell(hide_code=True)
def _():
    mo.md(r"""
    ## The five calls

    ```python
    # Direct, in this process: no HTTP, no OpenAI types.
    answer = await run_langgraph(request, messages, registry)
    async for event in run_langgraph_stream(request, messages, registry):
        ...  # TextChunk, status dicts, server tool events, then the AIMessage

    # Through the OpenAI SDK and LGOS's Responses route.
    response = await client.responses.create(model=model, input=prompt)
    async with await client.responses.create(..., stream=True) as stream:
        async for event in stream:
            ...  # response.output_text.delta, commentary messages, ...
    queued = await client.responses.create(..., background=True)
    while queued.status in ("queued", "in_progress"):
        queued = await client.responses.retrieve(queued.id)
    ```

    `request` is a `GraphRequest(model=..., metadata=..., server_tools=...)`,
    the protocol-neutral form both HTTP routes decode requests into.
    """)
    return


@app.cell
async def _(model, preset, runs, settings):
    with mo.status.spinner(title=f"Timing {model.value}…"):
        timings = await compare(model.value, preset, settings, runs=runs.value)
    summary = summarize(timings)
    summary_table(summary)
    return summary, timings


@app.cell
def _(model, settings, timings):
    figure = plot_timings(
        timings,
        f"{model.value}: "
        + ("offline model" if settings.openai_api_key is None else "upstream model"),
    )
    figure
    return (figure,)


@app.cell(hide_code=True)
def _():
    mo.md(r"""
    ## Reading the timings

    * **Direct versus HTTP.** The gap between `run_langgraph` and
      `responses.create` is what the OpenAI layer costs: decoding the
      request, rendering the Response, one loopback HTTP round trip and the
      SDK's parsing. With the offline model (no model latency at all) it is
      most of the time; against a real provider it is lost in the model's
      own seconds.
    * **Streaming versus not.** A streaming run also subscribes to
      LangGraph's `messages` and `custom` streams, and over HTTP every text
      chunk becomes one server-sent event, so with the default zero delay
      streaming costs more in total. What it buys is the red tick: the first
      answer text, long before the end. The offline model waits between
      words only when it streams (a non-streaming call gets the whole answer
      at once), so raising the delay slider lengthens only the streaming
      bars; with a real model both totals are about the same and the first
      text still comes early.
    * **Background.** `background=True` returns as soon as the run is queued
      (green tick); the total then includes polling, so it is quantised by the
      poll interval (20 ms here). Only graphs declaring
      `GraphFeature.BACKGROUND` (in the demo: `deep-research`) accept it.
    * **Same answer** checks that every path produced the same final text
      as `run_langgraph` (commentary excluded): LGOS renders, it does not
      rewrite. Expect `False` with a real, non-deterministic model.
    """)
    return


@app.cell(hide_code=True)
def _(timings):
    mo.accordion(
        {
            "The answer (from run_langgraph)": mo.md(
                next(t.answer for t in timings if t.mode == "run_langgraph")
            )
        }
    )
    return


@app.cell
def _(args, figure, model, summary):
    # Script mode: `--summary PATH` writes the table as JSON and
    # `--figure PATH` saves the chart, for tests and CI artifacts.
    if summary_path := args.get("summary"):
        Path(str(summary_path)).write_text(
            json.dumps({"model": model.value, "modes": summary}, indent=2)
        )
    if figure_path := args.get("figure"):
        figure.savefig(str(figure_path))
    if mo.app_meta().mode == "script":
        for row in summary:
            print(
                f"{model.value:>14} {row['mode']:<34} "
                f"median {row['total (ms)']:>8} ms  "
                f"same answer: {row['same answer']}"
            )
    return


if __name__ == "__main__":
    app.run()
