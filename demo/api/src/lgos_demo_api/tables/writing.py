"""Writing tables out: CSV files of a summary or a series, numbers for prose."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from lgos_demo_api.tables.parsing import CsvTable, DataSeries

__all__ = ["format_number", "series_csv", "summary_csv"]


def format_number(value: float) -> str:
    """Write a number for prose: `1,234` when whole, else `1,234.57`."""
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
