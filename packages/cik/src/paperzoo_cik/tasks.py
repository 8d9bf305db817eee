"""The 355 Context-is-Key task instances (71 tasks × seeds 1–5), as typed, frozen records.

Source: ``results/all_tasks.json`` of ServiceNow/context-is-key-forecasting (one JSON
object a line). Series are pandas JSON strings ``{"<column>": {"<ISO time>": value}}``;
the last column is the target (Williams et al., ICML 2025, §3 and App. B).

Each task's ``weight`` is a fraction string: a cluster's weight is split evenly across
its tasks, so weights sum to 105 over the 355 instances (21 over the 71 tasks).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from paperzoo.data import fetch
from paperzoo.errors import DataError
from paperzoo_cik.plugin import CONTEXT_TYPES, TASKS_FILE

__all__ = [
    "CONTEXT_TYPES",
    "DOMAINS",
    "TASKS_FILE",
    "Constraint",
    "TaskInstance",
    "domain_of",
    "filter_instances",
    "load_tasks",
    "parse_instance",
]

#: Domain of each task family, by a prefix/substring of the task name [reconstructed from the names].
_DOMAIN_RULES: tuple[tuple[str, str], ...] = (
    ("Irradiance", "Climatology"),
    ("Solar", "Energy"),
    ("Electricity", "Energy"),
    ("ATM", "Retail"),
    ("CashDepleted", "Retail"),
    ("IncreasedWithdrawal", "Retail"),
    ("Traffic", "Transportation"),
    ("Sensor", "Transportation"),
    ("Speed", "Mechanics"),
    ("Pressure", "Mechanics"),
    ("SVAR", "Synthetic"),
    ("MontrealFire", "Public Safety"),
    ("Unemployment", "Economics"),
    ("Constraints", "Mixed"),
)
DOMAINS = tuple(sorted({d for _, d in _DOMAIN_RULES}))


def domain_of(task: str) -> str:
    """Domain label of a task name (first matching rule of ``_DOMAIN_RULES``)."""
    for key, domain in _DOMAIN_RULES:
        if key in task:
            return domain
    raise DataError(
        f"task {task!r} matches no domain rule", hint="add it to paperzoo_cik.tasks._DOMAIN_RULES"
    )


@dataclass(frozen=True)
class Constraint:
    """A bound on the forecast: ``kind`` is ``"min"`` or ``"max"``.

    ``threshold`` is a scalar, or one value per step in ``steps`` (per-step bounds are
    averaged over those steps only); ``steps`` is ``None`` for the whole horizon.
    """

    kind: str
    threshold: float | tuple[float, ...]
    steps: tuple[int, ...] | None = None


@dataclass(frozen=True, eq=False)
class TaskInstance:
    """One instance of a CiK task: history, future, context and the metric's parameters.

    Attributes:
        task: Task (class) name, e.g. ``"ElectricityIncreaseInPredictionTask"``.
        seed: Instance seed (1–5).
        weight: Task weight (``Fraction``); each instance of the task carries it.
        past_time, past_values: History timestamps (``"YYYY-MM-DD HH:MM:SS"``) and target values.
        future_time, future_values: Horizon timestamps and the true future.
        background, scenario, constraints_text: Context texts ("" when absent).
        context_sources: The data's context codes (``"c_i"``, ``"c_cov"``, ...).
        region_of_interest: Horizon step indices of the ROI (empty: none).
        constraints: Numeric bounds used by the metric's penalty.
        metric_scaling: α, the per-task scaling of the RCRPS.
        seasonal_period: Period in steps, or −1 when the task gives none.
        domain: Domain label (see :func:`domain_of`).
        skills: The data's skill labels.
    """

    task: str
    seed: int
    weight: Fraction
    past_time: tuple[str, ...]
    past_values: np.ndarray
    future_time: tuple[str, ...]
    future_values: np.ndarray
    background: str
    scenario: str
    constraints_text: str
    context_sources: tuple[str, ...]
    region_of_interest: tuple[int, ...]
    constraints: tuple[Constraint, ...]
    metric_scaling: float
    seasonal_period: int
    domain: str
    skills: tuple[str, ...]

    @property
    def key(self) -> str:
        """``"<task>/<seed>"``."""
        return f"{self.task}/{self.seed}"

    def timestamps(self, which: str = "future") -> np.ndarray:
        """``past_time`` or ``future_time`` as ``datetime64[s]``."""
        return np.array(self.past_time if which == "past" else self.future_time, dtype="datetime64[s]")

    @property
    def horizon(self) -> int:
        return len(self.future_values)

    @property
    def context_types(self) -> tuple[str, ...]:
        """Context types in the paper's words (``"intemporal"``, ``"future"``, ...)."""
        return tuple(CONTEXT_TYPES[c] for c in self.context_sources)

    def __repr__(self) -> str:
        return f"TaskInstance({self.key}, history={len(self.past_values)}, horizon={self.horizon})"


def _series(raw: str, where: str) -> tuple[tuple[str, ...], np.ndarray]:
    """(timestamps, values) of the last column of a pandas JSON frame string."""
    try:
        frame = json.loads(raw)
        column = frame[list(frame)[-1]]
    except (ValueError, TypeError, IndexError) as err:
        raise DataError(f"{where}: series is not a pandas JSON frame ({err})") from err
    keys = list(column)
    if keys and all(k.lstrip("-").isdigit() for k in keys):  # epoch milliseconds
        stamps = np.array([int(k) for k in keys], dtype="datetime64[ms]").astype("datetime64[s]")
    else:
        stamps = np.array([k.rstrip("Z") for k in keys], dtype="datetime64[ms]").astype("datetime64[s]")
    times = tuple(str(t).replace("T", " ") for t in stamps)
    values = np.array([np.nan if v is None else v for v in column.values()], dtype=float)
    return times, values


def parse_instance(row: dict, where: str = "row") -> TaskInstance:
    """Build a :class:`TaskInstance` from one decoded line of ``all_tasks.json``."""
    missing = {"name", "seed", "weight", "past_time", "future_time", "metric_scaling"} - set(row)
    if missing:
        raise DataError(f"{where}: missing field(s) {sorted(missing)}")
    past_time, past_values = _series(row["past_time"], f"{where} past_time")
    future_time, future_values = _series(row["future_time"], f"{where} future_time")
    constraints: list[Constraint] = []
    if row.get("constraint_min") is not None:
        constraints.append(Constraint("min", float(row["constraint_min"])))
    if row.get("constraint_max") is not None:
        constraints.append(Constraint("max", float(row["constraint_max"])))
    if row.get("constraint_variable_max_index"):
        idx = tuple(int(i) for i in row["constraint_variable_max_index"])
        thr = tuple(float(v) for v in row["constraint_variable_max_values"])
        if len(idx) != len(thr):
            raise DataError(f"{where}: {len(idx)} per-step max indices but {len(thr)} values")
        constraints.append(Constraint("max", thr, idx))
    return TaskInstance(
        task=row["name"],
        seed=int(row["seed"]),
        weight=Fraction(str(row["weight"])),
        past_time=past_time,
        past_values=past_values,
        future_time=future_time,
        future_values=future_values,
        background=row.get("background") or "",
        scenario=row.get("scenario") or "",
        constraints_text=row.get("constraints") or "",
        context_sources=tuple(row.get("context_sources") or ()),
        region_of_interest=tuple(int(i) for i in row.get("region_of_interest") or ()),
        constraints=tuple(constraints),
        metric_scaling=float(row["metric_scaling"]),
        seasonal_period=int(row.get("seasonal_period") or -1),
        domain=domain_of(row["name"]),
        skills=tuple(row.get("skills") or ()),
    )


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[TaskInstance, ...]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError as err:
                    raise DataError(f"{path}:{n}: not JSON ({err})") from err
                out.append(parse_instance(row, f"{path.name}:{n}"))
    return tuple(out)


def load_tasks(path: str | Path | None = None) -> tuple[TaskInstance, ...]:
    """All task instances of ``all_tasks.json`` (default: the pinned, checksummed file), in file order."""
    return _load(Path(path) if path is not None else fetch(TASKS_FILE))


def filter_instances(
    instances: Iterable[TaskInstance],
    *,
    tasks: Sequence[str] | None = None,
    seeds: Sequence[int] | None = None,
    context_type: str | None = None,
    domain: str | None = None,
    limit: int | None = None,
) -> list[TaskInstance]:
    """Instances matching every given filter (task names, seeds, one context type, one domain)."""
    out = []
    for inst in instances:
        if tasks is not None and inst.task not in tasks:
            continue
        if seeds is not None and inst.seed not in seeds:
            continue
        if context_type is not None and context_type not in inst.context_types + inst.context_sources:
            continue
        if domain is not None and inst.domain != domain:
            continue
        out.append(inst)
    return out[:limit] if limit is not None else out
