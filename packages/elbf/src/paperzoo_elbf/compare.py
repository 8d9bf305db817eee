"""Every filter of the package on one problem, at one budget, side by side.

``compare_methods`` builds each method from the keys and held-out non-keys
(choosing, for the single-oracle methods, the oracle whose analytic FPR on the
held-out set is lowest — never looking at the test queries), then measures its
FPR on the test non-keys, and times build and query. Methods:

* ``bloom`` — a plain Bloom filter with all the bits;
* ``lbf``, ``sandwiched``, ``plbf`` — the best single oracle in each structure;
* ``ensemble`` — the ensemble LBF, correlated optimiser (default);
* ``ensemble-independent`` — chosen by the independent-oracle DP only;
* ``ensemble-2`` — forced to use two oracles (shows the low-budget case);
* ``ensemble-shared`` — two oracles with one shared backup (the ablation).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_elbf.bloom import BloomFilter
from paperzoo_elbf.filters import (
    BudgetError,
    EnsembleLearnedBloomFilter,
    LearnedBloomFilter,
    PartitionedLearnedBloomFilter,
    SandwichedLearnedBloomFilter,
)

__all__ = ["METHODS", "MethodResult", "compare_methods"]

METHODS = ("bloom", "lbf", "sandwiched", "plbf", "ensemble", "ensemble-independent", "ensemble-2",
           "ensemble-shared")  # fmt: skip

_SINGLE = {
    "lbf": LearnedBloomFilter,
    "sandwiched": SandwichedLearnedBloomFilter,
    "plbf": PartitionedLearnedBloomFilter,
}
_ENSEMBLE = {
    "ensemble": {},
    "ensemble-independent": {"correlated": False},
    "ensemble-2": {"min_oracles": 2},
    "ensemble-shared": {"min_oracles": 2, "shared_backup": True},
}


@dataclass(frozen=True)
class MethodResult:
    """One method's filter on one problem.

    Attributes:
        method: A name of :data:`METHODS`.
        fpr: Share of the test non-keys accepted (empirical).
        analytic_fpr: What the built filters imply: on the ``calibration`` non-keys when
            given (unbiased), else on the held-out ones the thresholds were chosen on.
        size_in_bits: Everything counted: oracles, thresholds, filters.
        build_seconds, query_seconds: Fit time (oracle scoring included), and
            the time to query every test non-key.
        oracles: Names of the oracles it uses.
        false_negatives: Keys it rejects (must be 0).
    """

    method: str
    fpr: float
    analytic_fpr: float
    size_in_bits: int
    build_seconds: float
    query_seconds: float
    oracles: tuple[str, ...] = field(default_factory=tuple)
    false_negatives: int = 0


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _measure(
    method: str,
    model: Any,
    build: float,
    keys: np.ndarray,
    test: np.ndarray,
    names: tuple[str, ...],
    calibration: np.ndarray | None,
) -> MethodResult:
    accepted, query = _timed(
        lambda: model.predict(test) if hasattr(model, "predict") else model.contains(test)
    )
    missed = int(np.sum(~(model.predict(keys) if hasattr(model, "predict") else model.contains(keys))))
    if not hasattr(model, "analytic_fpr_"):
        analytic = model.expected_fpr()  # a plain Bloom filter: no oracle
    elif calibration is not None:
        analytic = model.analytic_fpr(calibration)
    else:
        analytic = model.analytic_fpr_
    size = model.size_in_bits_ if hasattr(model, "size_in_bits_") else model.size_in_bits
    return MethodResult(
        method, float(np.mean(accepted)), float(analytic), int(size), build, query, names, missed
    )


def compare_methods(
    oracles: Sequence[Any],
    groups: Sequence[int],
    keys: Any,
    holdout: Any,
    test: Any,
    bits_per_key: float,
    *,
    methods: Sequence[str] = METHODS,
    seed: int = 0,
    calibration: Any = None,
) -> list[MethodResult]:
    """Build every method in ``methods`` at ``bits_per_key`` and measure it; skip those that do not fit.

    ``calibration``: fresh non-keys (neither held out nor tested) on which the
    analytic FPR is evaluated; without them it uses the held-out non-keys, where it
    is optimistic because the thresholds were chosen there.

    Raises:
        ConfigError: an unknown method name.
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ConfigError(f"unknown method {unknown[0]!r}", hint=f"methods are {', '.join(METHODS)}")
    keys, holdout, test = np.asarray(keys), np.asarray(holdout), np.asarray(test)
    if calibration is not None:
        calibration = np.asarray(calibration)
    X = np.concatenate([keys, holdout])
    y = np.r_[np.ones(len(keys), dtype=int), np.zeros(len(holdout), dtype=int)]
    out = []
    for method in methods:
        if method == "bloom":
            bf, build = _timed(
                lambda: BloomFilter.with_bits(int(bits_per_key * len(keys)), len(keys), seed=seed).add(keys)
            )
            out.append(_measure(method, bf, build, keys, test, (), calibration))
        elif method in _SINGLE:
            best, best_build = None, 0.0
            for oracle in oracles:
                single = _SINGLE[method](oracle, bits_per_key=bits_per_key, seed=seed)
                try:
                    model, build = _timed(lambda: single.fit(X, y))  # noqa: B023
                except BudgetError:
                    continue  # this oracle alone exceeds the budget
                if best is None or model.analytic_fpr_ < best.analytic_fpr_:
                    best, best_build = model, build
            if best is not None:
                out.append(
                    _measure(
                        method, best, best_build, keys, test, (getattr(best.oracle, "name", ""),), calibration
                    )
                )
        else:
            ensemble = EnsembleLearnedBloomFilter(
                oracles, groups=groups, bits_per_key=bits_per_key, seed=seed, **_ENSEMBLE[method]
            )
            try:
                model, build = _timed(lambda: ensemble.fit(X, y))  # noqa: B023
            except BudgetError:
                continue
            names = tuple(getattr(o, "name", "") for o in model.oracles_)
            out.append(_measure(method, model, build, keys, test, names, calibration))
    return out
