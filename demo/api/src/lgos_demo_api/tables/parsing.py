"""Reading data to chart or tabulate: CSV files and numbers in a message.

`csv_table` parses CSV text (the delimiter sniffed) into a `CsvTable`;
`series_from_csv` picks one labelled numeric column from it, and
`numbers_from_text` finds labelled or bare numbers in what the user typed.
Both give a `DataSeries` of at most `MAX_POINTS` values.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "MAX_POINTS",
    "CsvTable",
    "DataSeries",
    "csv_table",
    "numbers_from_text",
    "parse_number",
    "series_from_csv",
]

MAX_POINTS: Final = 500
"""The most values a series takes from a CSV file or a message."""


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


def parse_number(text: str) -> float | None:
    """Read a CSV cell as a number: `1,234.5`, `$12`, `45%`, `−3` (a minus sign).

    Args:
        text: The cell.

    Returns:
        The finite number, or None for anything else (an empty cell too).

    """
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
            if cells and all(parse_number(cell) is not None for cell in cells):
                numeric.append(index)
        return numeric

    def column_values(self, index: int) -> list[float]:
        """Return the numbers of a numeric column (empty cells skipped)."""
        return [
            value
            for row in self.rows
            if (value := parse_number(row[index])) is not None
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
        At most `MAX_POINTS` values, or None without a numeric column.

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
        value = parse_number(row[chosen])
        if value is None:
            continue
        labels.append(row[label_index] if label_index is not None else str(number))
        values.append(value)
        if len(values) == MAX_POINTS:
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
            tuple(label for label, _ in pairs[:MAX_POINTS]),
            tuple(float(value) for _, value in pairs[:MAX_POINTS]),
            "item",
            "value",
            "your message",
        )
    numbers = [float(n) for n in _BARE.findall(text)][:MAX_POINTS]
    if len(numbers) < 2:
        return None
    return DataSeries(
        tuple(str(n) for n in range(1, len(numbers) + 1)),
        tuple(numbers),
        "position",
        "value",
        "your message",
    )
