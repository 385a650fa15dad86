"""Tables and charts for the `files` graph: reading data, writing CSV, drawing.

- `lgos_demo_api.tables.parsing`: CSV files and numbers in a message, read
  into a `DataSeries`;
- `lgos_demo_api.tables.writing`: CSV summaries and series, numbers for
  prose;
- `lgos_demo_api.tables.charts`: a `DataSeries` drawn as a PNG.
"""

from lgos_demo_api.tables.charts import MAX_BARS, render_chart
from lgos_demo_api.tables.parsing import (
    MAX_POINTS,
    CsvTable,
    DataSeries,
    csv_table,
    numbers_from_text,
    parse_number,
    series_from_csv,
)
from lgos_demo_api.tables.writing import format_number, series_csv, summary_csv

__all__ = [
    "MAX_BARS",
    "MAX_POINTS",
    "CsvTable",
    "DataSeries",
    "csv_table",
    "format_number",
    "numbers_from_text",
    "parse_number",
    "render_chart",
    "series_csv",
    "series_from_csv",
    "summary_csv",
]
