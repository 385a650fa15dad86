"""What the notebooks look like: tables fit the page, the legend covers no bar.

`wire_events` is opened in Chromium at 1400 px from `just demo/marimo`; its
tables are measured. `graph_runner`'s chart is a matplotlib figure, measured
after drawing it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.browsers import launch
from tests.demo.notebooks import load_notebook

WIDTH = 1400

_MEASURE = """(table) => {
    const box = table.getBoundingClientRect();
    const scroller = table.parentElement;
    return {
        left: box.left,
        right: box.right,
        overflow: scroller.scrollWidth - scroller.clientWidth,
        heads: [...table.querySelectorAll("thead th")].map((cell) => ({
            text: cell.innerText.trim(),
            right: cell.getBoundingClientRect().right,
        })),
        columns: [...table.querySelectorAll("tbody tr")].reduce((filled, row) => {
            [...row.children].forEach((cell, index) => {
                filled[index] = filled[index] || cell.innerText.trim() !== "";
            });
            return filled;
        }, []),
    };
}"""


def _measure(page: Any, header: str) -> dict[str, Any]:
    """The first table with a `header` column, measured in the page."""
    table = page.locator("table", has=page.locator("th", has_text=header)).first
    table.scroll_into_view_if_needed()
    return table.evaluate(_MEASURE)


def _within_page(found: dict[str, Any]) -> None:
    assert found["left"] >= 0 and found["right"] <= WIDTH, found
    assert all(head["right"] <= WIDTH for head in found["heads"]), found
    assert found["overflow"] <= 0, found  # nothing to scroll sideways to


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_wire_events_tables_fit_a_1400_px_page(gallery: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
            page.goto(f"{gallery}/?file=wire_events.py")
            page.get_by_text("finish_reason=stop").first.wait_for(timeout=120_000)
            page.locator("th", has_text="finish_reason").first.wait_for()
            page.wait_for_timeout(1000)  # marimo sizes table columns once drawn

            side = _measure(page, "aspect")
            _within_page(side)
            assert [head["text"] for head in side["heads"]] == [
                "aspect",
                "Responses",
                "Chat Completions",
            ], side
            assert all(side["columns"]), side  # no empty column
            # The columns take the table's whole width: no blank space after.
            assert side["heads"][-1]["right"] >= side["right"] - 1, side

            for header in ("event", "finish_reason"):  # the two chunk tables
                _within_page(_measure(page, header))
        finally:
            browser.close()


def test_graph_runner_legend_covers_no_bar() -> None:
    graph_runner: ModuleType = load_notebook("graph_runner")
    modes = {  # the last bar is the longest: a legend inside would cover it
        "run_langgraph": (0.08, None, None),
        "run_langgraph_stream": (0.09, 0.05, None),
        "responses.create": (0.1, None, None),
        "responses.create(stream=True)": (0.12, 0.07, None),
        "responses.create(background=True)": (0.2, None, 0.02),
    }
    timings = [
        graph_runner.Timing(
            mode=mode,
            run=run,
            total_s=total,
            first_text_s=first,
            queued_s=queued,
            answer="same",
        )
        for run in (1, 2)
        for mode, (total, first, queued) in modes.items()
    ]
    figure = graph_runner.plot_timings(timings, "deep-research: offline model")
    figure.draw_without_rendering()
    legends = [*figure.legends, *(a.get_legend() for a in figure.axes)]
    legends = [legend for legend in legends if legend is not None]
    assert len(legends) == 1
    legend = legends[0].get_window_extent()
    [axes] = figure.axes
    assert [text.get_text() for text in legends[0].get_texts()] == [
        "first answer text (median)",
        "queued (median)",
    ]
    bars = [patch.get_window_extent() for patch in axes.patches]
    assert len(bars) == len(modes)
    assert not any(legend.overlaps(bar) for bar in bars)
    assert not legend.overlaps(axes.get_window_extent())  # outside the plot
    assert figure.bbox.contains(legend.x0, legend.y0)  # and on the figure
    assert figure.bbox.contains(legend.x1, legend.y1)
