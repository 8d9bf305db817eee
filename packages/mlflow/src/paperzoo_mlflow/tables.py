"""A run's result table as CSV and Markdown, for MLflow's artifact viewer."""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from paperzoo.results import format_value

if TYPE_CHECKING:
    from paperzoo.results import Result

__all__ = ["result_csv", "result_markdown"]

COLUMNS = ("metric", "setting", "value", "paper", "unit")


def result_csv(result: Result) -> str:
    """One line per row: metric, setting, value, paper, unit (full precision, empty for none)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in result.rows:
        value = "" if row.value is None else repr(row.value)
        paper = "" if row.paper is None else repr(row.paper)
        writer.writerow([row.metric, row.setting, value, paper, row.unit])
    return out.getvalue()


def result_markdown(result: Result) -> str:
    """A Markdown table of the rows (4 significant digits, "—" for none), then the notes."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in result.rows:
        values = (row.metric, row.setting, format_value(row.value), format_value(row.paper), row.unit)
        lines.append("| " + " | ".join(cell(v) for v in values) + " |")
    if result.notes:
        lines += ["", result.notes]
    return "\n".join(lines) + "\n"
