"""Reference values: the numbers a result is compared with, each written once with its source.

An experiment declares them by metric name; the core fills in each result row's
``paper`` value from the first reference whose metric and setting match, so an
experiment never repeats a paper number in its code::

    >>> ref = Ref(0.605, "Table 1", setting="forecaster=exp-smoothing")
    >>> ref.matches("RCRPS", {"forecaster": "exp-smoothing", "n_samples": 25})
    True
    >>> ref.matches("RCRPS", {"forecaster": "ets"})
    False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from paperzoo.errors import ConfigError

__all__ = ["REF_KINDS", "Ref", "as_references", "find_reference", "parse_setting"]

RefKind = Literal["paper", "theorem", "official-code", "oracle"]
REF_KINDS: tuple[str, ...] = ("paper", "theorem", "official-code", "oracle")
"""What a reference value is: a number printed in the paper, a closed form a
theorem gives, a number measured with the authors' code, or an exact answer."""


def parse_setting(setting: str | Mapping[str, Any]) -> dict[str, str]:
    """``"rule=SCUP, alpha=0.5"`` (or a mapping) as ``{"rule": "SCUP", "alpha": "0.5"}``."""
    if isinstance(setting, Mapping):
        return {str(k): str(v) for k, v in setting.items()}
    out: dict[str, str] = {}
    for part in setting.split(", "):
        key, sep, value = part.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


@dataclass(frozen=True)
class Ref:
    """A reference value for one metric, in the cells whose setting matches.

    Attributes:
        value: The number.
        source: Where it comes from: ``"Table 2"``, ``"Figure 1(c)"``, ``"Theorem 3.1"``.
        kind: ``"paper"``, ``"theorem"``, ``"official-code"`` or ``"oracle"``.
        setting: ``key=value`` pairs (``"rule=SCUP, alpha=0.5"``) that a row's
            setting, or the run's settings, must all have; ``""`` matches every row.
        metric: The metric it is for (filled in from the ``references`` mapping).
    """

    value: float
    source: str
    kind: RefKind = "paper"
    setting: str = ""
    metric: str = ""

    def __post_init__(self) -> None:
        if self.kind not in REF_KINDS:
            raise ConfigError(f"reference kind {self.kind!r} is not one of {', '.join(REF_KINDS)}")
        if not isinstance(self.value, (int, float)) or isinstance(self.value, bool):
            raise ConfigError(f"reference value must be a number, got {self.value!r}")
        if not self.source:
            raise ConfigError(
                f"reference {self.value!r} has no source", hint="say where it comes from, e.g. 'Table 2'"
            )
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(
            self, "setting", ", ".join(f"{k}={v}" for k, v in parse_setting(self.setting).items())
        )

    def matches(self, metric: str, setting: Mapping[str, str | Any]) -> bool:
        """Whether this reference applies to ``metric`` in a cell with ``setting``."""
        if metric != self.metric:
            return False
        wanted = parse_setting(self.setting)
        have = {str(k): str(v) for k, v in setting.items()}
        return all(have.get(k) == v for k, v in wanted.items())

    def describe(self) -> dict[str, Any]:
        """Plain data."""
        return {"metric": self.metric, "value": self.value, "source": self.source, "kind": self.kind,
                "setting": self.setting}  # fmt: skip


def as_references(references: Mapping[str, Ref | Sequence[Ref]]) -> tuple[Ref, ...]:
    """``{"metric": Ref | [Ref, ...]}`` as a flat tuple of refs with their metric set."""
    out: list[Ref] = []
    for metric, refs in references.items():
        for ref in [refs] if isinstance(refs, Ref) else refs:
            if not isinstance(ref, Ref):
                raise ConfigError(f"reference for {metric!r} is {ref!r}, not a paperzoo.Ref")
            out.append(replace(ref, metric=metric))
    return tuple(out)


def find_reference(
    refs: Sequence[Ref], metric: str, row_setting: str, run_settings: Mapping[str, Any]
) -> Ref | None:
    """The first of ``refs`` for ``metric`` whose setting the row (then the run) has.

    Pairs in the row's own setting take precedence over the run's settings.
    """
    cell = {**{k: str(v) for k, v in run_settings.items()}, **parse_setting(row_setting)}
    for ref in refs:
        if ref.matches(metric, cell):
            return ref
    return None
