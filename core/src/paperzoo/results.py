"""Results: what an experiment returns.

A :class:`Result` is data, not text: rows of ``(metric, value, paper, unit,
setting)`` plus artifacts. The core renders it (terminal table, ``--json``,
report); experiments never print tables themselves.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from paperzoo.errors import ResultError
from paperzoo.references import Ref, find_reference

__all__ = ["Artifact", "Result", "Row", "format_setting", "format_value"]


def format_setting(setting: str | Mapping[str, Any]) -> str:
    """``{"alpha": 0.5, "n": 10}`` → ``"alpha=0.5, n=10"``; strings pass through."""
    if isinstance(setting, str):
        return setting
    return ", ".join(f"{k}={v}" for k, v in setting.items())


def format_value(value: float | None) -> str:
    """A table cell: 4 significant digits, scientific outside [1e-3, 1e5), "—" for none."""
    if value is None:
        return "—"
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.3e}"
    return f"{value:.4g}"


def _number(metric: str, what: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ResultError(
            f"row {metric!r}: {what} must be a real number, got {type(value).__name__} {value!r}",
            hint="convert it with float(...) in the experiment",
        )
    out = float(value)
    return out if math.isfinite(out) else None


@dataclass(frozen=True)
class Row:
    """One number of a result table.

    Attributes:
        metric: What was measured, e.g. ``"relative PPS (top 10)"``.
        value: Our value (``None`` when it is undefined: NaN or infinite).
        paper: The paper's value for the same cell, when it reports one.
        unit: ``"%"``, ``"s"``, ``"bits/key"``... ("" when dimensionless).
        setting: The cell's setting, e.g. ``"alpha=0.5, rule=SCUP"``.
        ref_source: Where ``paper`` comes from (``"Table 2"``), when it came from
            a declared :class:`~paperzoo.references.Ref`.
        ref_kind: What ``paper`` is: ``"paper"``, ``"theorem"``,
            ``"official-code"`` or ``"oracle"`` ("" when undeclared).
    """

    metric: str
    value: float | None
    paper: float | None = None
    unit: str = ""
    setting: str = ""
    ref_source: str = ""
    ref_kind: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.metric, str) or not self.metric:
            raise ResultError(f"row metric must be a non-empty string, got {self.metric!r}")
        object.__setattr__(self, "value", _number(self.metric, "value", self.value))
        object.__setattr__(self, "paper", _number(self.metric, "paper value", self.paper))
        object.__setattr__(self, "setting", format_setting(self.setting))

    @property
    def ratio(self) -> float | None:
        """``value / paper`` when both exist and the paper's value is non-zero."""
        if self.value is None or not self.paper:
            return None
        return self.value / self.paper

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "metric": self.metric,
            "value": self.value,
            "paper": self.paper,
            "unit": self.unit,
            "setting": self.setting,
            "ref_source": self.ref_source,
            "ref_kind": self.ref_kind,
        }


@dataclass(frozen=True)
class Artifact:
    """A file an experiment produced, relative to its run directory.

    Attributes:
        path: POSIX path relative to the run directory, e.g. ``"artifacts/pps.png"``.
        kind: ``"figure"``, ``"table"``, ``"json"``, ``"checkpoint"`` or ``"file"``.
        title: What it shows.
    """

    path: str
    kind: str = "file"
    title: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {"path": self.path, "kind": self.kind, "title": self.title}


@dataclass
class Result:
    """The outcome of one experiment run.

    Example:
        >>> r = Result().add("accuracy", 0.91, paper=0.93, unit="", setting={"n": 10})
        >>> r.rows[0].setting
        'n=10'
    """

    rows: list[Row] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    notes: str = ""

    def add(
        self,
        metric: str,
        value: float | None,
        *,
        paper: float | None = None,
        unit: str = "",
        setting: str | Mapping[str, Any] = "",
        ref: Ref | None = None,
    ) -> Result:
        """Append a row and return ``self`` (chainable).

        ``ref`` gives a reference computed at run time (an oracle value that
        depends on the settings) with its kind and source; fixed paper numbers
        belong in the experiment's ``references`` instead.
        """
        if ref is not None:
            if paper is not None:
                raise ResultError(f"row {metric!r}: give paper= or ref=, not both")
            row = Row(metric, value, ref.value, unit, format_setting(setting), ref.source, ref.kind)
        else:
            row = Row(metric, value, paper, unit, format_setting(setting))
        self.rows.append(row)
        return self

    def extend(self, rows: Iterable[Row]) -> Result:
        """Append rows and return ``self``."""
        for row in rows:
            if not isinstance(row, Row):
                raise ResultError(f"expected a paperzoo.Row, got {type(row).__name__}")
            self.rows.append(row)
        return self

    def with_references(self, refs: Sequence[Ref], settings: Mapping[str, Any]) -> Result:
        """Rows without a ``paper`` value get the first matching reference (in place; returns ``self``)."""
        for i, row in enumerate(self.rows):
            if row.paper is not None or not refs:
                continue
            ref = find_reference(refs, row.metric, row.setting, settings)
            if ref is not None:
                self.rows[i] = replace(row, paper=ref.value, ref_source=ref.source, ref_kind=ref.kind)
        return self

    def value(self, metric: str, setting: str | Mapping[str, Any] = "") -> float | None:
        """The value of the row with this metric and setting.

        Raises:
            KeyError: no such row.
        """
        wanted = format_setting(setting)
        for row in self.rows:
            if row.metric == metric and row.setting == wanted:
                return row.value
        raise KeyError(f"no row {metric!r} with setting {wanted!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain data, JSON-serialisable (NaN becomes ``null``)."""
        return {
            "rows": [r.to_dict() for r in self.rows],
            "artifacts": [a.to_dict() for a in self.artifacts],
            "notes": self.notes,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        """Inverse of :meth:`to_dict`."""
        return cls(
            rows=[Row(**r) for r in data.get("rows", [])],
            artifacts=[Artifact(**a) for a in data.get("artifacts", [])],
            notes=str(data.get("notes", "")),
        )
