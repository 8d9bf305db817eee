"""Aggregating the rows of several runs: mean, standard deviation, count."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from paperzoo.results import Result

__all__ = ["Aggregate", "aggregate"]


@dataclass(frozen=True)
class Aggregate:
    """One cell of a table over runs.

    Attributes:
        metric: The row's metric.
        setting: The row's setting, prefixed with the run's overrides.
        mean: Mean over the runs that reported a value.
        std: Sample standard deviation (``None`` for a single value).
        n: How many runs reported a value.
        paper: The reference value (the paper's, usually).
        unit: The unit.
        ref_kind: What the reference is (``paper``, ``theorem``, ``official-code``, ``oracle``; "" undeclared).
        ref_source: Where it comes from (``"Table 2"``).
    """

    metric: str
    setting: str
    mean: float | None
    std: float | None
    n: int
    paper: float | None
    unit: str
    ref_kind: str = ""
    ref_source: str = ""

    @property
    def reference_label(self) -> str:
        """``"paper, Table 2"``, or "" when the reference is undeclared."""
        return ", ".join(part for part in (self.ref_kind, self.ref_source) if part)


def aggregate(items: Iterable[tuple[Mapping[str, Any], Result]]) -> list[Aggregate]:
    """Group rows by (overrides, setting, metric) across runs; mean ± std of values.

    Args:
        items: ``(overrides, result)`` per run; runs with equal overrides are
            repetitions (different seeds) of one cell.
    """
    groups: dict[tuple[str, str], list[Any]] = {}
    meta: dict[tuple[str, str], tuple[float | None, str, str, str]] = {}
    for overrides, result in items:
        assigned = [f"{k}={v}" for k, v in sorted(overrides.items())]
        for row in result.rows:
            own = row.setting.split(", ") if row.setting else []
            setting = ", ".join([a for a in assigned if a not in own] + own)
            key = (setting, row.metric)
            groups.setdefault(key, [])
            meta.setdefault(key, (row.paper, row.unit, row.ref_kind, row.ref_source))
            if row.value is not None:
                groups[key].append(row.value)
    out = []
    for (setting, metric), values in groups.items():
        n = len(values)
        mean = sum(values) / n if n else None
        std = (
            math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 and mean is not None else None
        )
        paper, unit, kind, source = meta[(setting, metric)]
        out.append(Aggregate(metric, setting, mean, std, n, paper, unit, kind, source))
    return out
