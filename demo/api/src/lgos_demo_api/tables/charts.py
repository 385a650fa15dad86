"""Drawing a `DataSeries` as a PNG chart with matplotlib (Agg, no display)."""

from __future__ import annotations

import io
from typing import Final

from lgos_demo_api.tables.parsing import DataSeries

__all__ = ["MAX_BARS", "render_chart"]

MAX_BARS: Final = 30
"""A series of up to this many values is drawn as bars, a longer one as a line."""


def render_chart(series: DataSeries, title: str) -> bytes:
    """Draw the series as a PNG (matplotlib's Agg backend, no display needed).

    Up to `MAX_BARS` (30) values become a bar chart, more a line chart.

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
    if len(positions) <= MAX_BARS:
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
