"""Learned Bloom filters: single (LBF), sandwiched, partitioned (PLBF) and the ensemble.

Each is a scikit-learn-style estimator: ``fit(X, y)`` stores the items with
``y == 1`` (the keys) and uses the items with ``y == 0`` as *held-out non-keys*
to choose thresholds and filter sizes (never the queries you will measure on);
``predict(X)`` (alias ``contains``) answers membership with no false negatives.
The oracles must be fitted already, on other data. The budget is
``budget_bits`` or ``bits_per_key × number of keys`` and counts the oracles' own
bits; the optimisers are in :mod:`paperzoo_elbf.optimise`.

Fitted attributes: ``size_in_bits_`` (everything: oracles, filters, thresholds at
32 bits each), ``analytic_fpr_`` (the FPR the built filters imply on the held-out
non-keys), ``predicted_fpr_`` (the optimiser's objective), and the parts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from paperzoo.base import BaseEstimator, check_is_fitted
from paperzoo.errors import ConfigError
from paperzoo.settings import Setting
from paperzoo_elbf.bloom import BloomFilter
from paperzoo_elbf.optimise import (
    ScoreCurve,
    ensemble_fpr,
    optimise_correlated,
    optimise_independent,
    optimise_lbf,
    optimise_plbf,
    optimise_sandwich,
    optimise_shared,
)
from paperzoo_elbf.oracles import Oracle

__all__ = [
    "BudgetError",
    "EnsembleLearnedBloomFilter",
    "LearnedBloomFilter",
    "PartitionedLearnedBloomFilter",
    "SandwichedLearnedBloomFilter",
]

THRESHOLD_BITS = 32


class BudgetError(ConfigError):
    """The bit budget cannot hold the oracle(s) a structure needs."""


def _items(X: Any) -> np.ndarray:
    items = np.asarray(X)
    if items.ndim != 1:
        raise ConfigError(
            f"X must be a 1-d collection of items (ints, str or bytes), got shape {items.shape}"
        )
    return items


def _split(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    items = _items(X)
    labels = np.asarray(y)
    if labels.shape != items.shape:
        raise ConfigError(f"X has {len(items)} items but y has shape {labels.shape}")
    if not np.isin(labels, (0, 1)).all():
        raise ConfigError("y must be 1 for keys and 0 for held-out non-keys")
    keys, nonkeys = items[labels == 1], items[labels == 0]
    if not len(keys):
        raise ConfigError("no keys: y has no 1s")
    if not len(nonkeys):
        raise ConfigError("no held-out non-keys (y == 0): they are needed to choose the thresholds")
    return keys, nonkeys


def _check_oracle(oracle: Any, name: str = "oracle") -> Oracle:
    if not isinstance(oracle, Oracle):
        raise ConfigError(
            f"{name} must have score(items) and size_in_bits, got {type(oracle).__name__}",
            hint="wrap a fitted scikit-learn model in SklearnOracle",
        )
    return oracle


class _Learned(BaseEstimator):
    """Budget, scoring and querying shared by the learned filters."""

    bits_per_key: float
    budget_bits: int | None
    seed: int

    _parameters: ClassVar[Mapping[str, Setting]] = {
        "bits_per_key": Setting(low=0, low_open=True),
        "budget_bits": Setting(None, type="float", low=0, low_open=True, allow_none=True),
    }

    def _budget(self, n_keys: int) -> float:
        """The bit budget (parameters already checked by ``_validate_params``)."""
        if self.budget_bits is not None:
            return float(self.budget_bits)
        return float(self.bits_per_key) * n_keys

    @staticmethod
    def _filter(keys: np.ndarray, bits: int, seed: int) -> BloomFilter:
        """A filter of ``bits`` bits holding ``keys`` (≥ 1 bit when empty, so it rejects all)."""
        bits = max(int(bits), 0 if len(keys) else 1)
        return BloomFilter.with_bits(bits, len(keys), seed=seed).add(keys)

    @staticmethod
    def _scores(oracle: Oracle, items: np.ndarray) -> np.ndarray:
        scores = np.asarray(oracle.score(items), dtype=float)
        if scores.shape != (len(items),):
            raise ConfigError(f"oracle {oracle!r} returned {scores.shape} scores for {len(items)} items")
        return scores

    def contains(self, X: Any) -> np.ndarray:
        """Alias of :meth:`predict`."""
        return self.predict(X)

    def predict(self, X: Any) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def false_positive_rate(self, nonkeys: Any) -> float:
        """Share of ``nonkeys`` (items known not to be keys) that the filter accepts."""
        return float(np.mean(self.predict(nonkeys)))

    def analytic_fpr(self, nonkeys: Any) -> float:
        """The FPR the built structure implies for ``nonkeys``: the oracles' pass rates on them, each
        backup filter at its analytic (1 − e^(−kn/m))^k.

        ``analytic_fpr_`` is this on the held-out non-keys the thresholds were chosen on, which is
        optimistic when thresholds are tight; on a fresh sample it is an unbiased prediction.
        """
        check_is_fitted(self, "size_in_bits_")
        items = _items(nonkeys)
        return self._analytic_from_scores(
            np.column_stack([self._scores(o, items) for o in self._used_oracles()])
        )

    def _used_oracles(self) -> list[Oracle]:
        return [self.oracle]

    def _analytic_from_scores(self, scores: np.ndarray) -> float:  # pragma: no cover - overridden
        raise NotImplementedError


def _too_small(budget: float, oracle_bits: int) -> BudgetError:
    return BudgetError(
        f"the budget of {budget:.0f} bits does not fit the oracle ({oracle_bits} bits)",
        hint="raise bits_per_key, use a smaller oracle, or a plain BloomFilter",
    )


class LearnedBloomFilter(_Learned):
    """Kraska et al. (2018): accept iff ``f(x) ≥ τ`` or ``x ∈ B``; B holds the keys with ``f < τ``.

    FPR = p(τ) + (1 − p(τ)) · ε_B, minimised over τ with the backup taking the
    budget left after the oracle.
    """

    def __init__(
        self, oracle: Any = None, *, bits_per_key: float = 8.0, budget_bits: int | None = None,
        n_thresholds: int = 256, seed: int = 0,
    ) -> None:  # fmt: skip
        self.oracle = oracle
        self.bits_per_key = bits_per_key
        self.budget_bits = budget_bits
        self.n_thresholds = n_thresholds
        self.seed = seed

    def fit(self, X: Any, y: Any) -> LearnedBloomFilter:
        self._validate_params()
        oracle = _check_oracle(self.oracle)
        keys, nonkeys = _split(X, y)
        budget = self._budget(len(keys))
        key_scores, nonkey_scores = self._scores(oracle, keys), self._scores(oracle, nonkeys)
        curve = ScoreCurve.from_scores(key_scores, nonkey_scores, self.n_thresholds)
        plan = optimise_lbf(curve, budget - THRESHOLD_BITS, oracle.size_in_bits)
        if plan is None:
            raise _too_small(budget, oracle.size_in_bits)
        self.threshold_ = plan.threshold
        self.backup_ = self._filter(keys[key_scores < plan.threshold], plan.backup_bits, self.seed)
        self.size_in_bits_ = oracle.size_in_bits + THRESHOLD_BITS + self.backup_.size_in_bits
        self.analytic_fpr_ = self._analytic_from_scores(nonkey_scores[:, None])
        self.predicted_fpr_ = plan.fpr
        return self

    def _analytic_from_scores(self, scores: np.ndarray) -> float:
        p = float(np.mean(scores[:, 0] >= self.threshold_))
        return p + (1 - p) * self.backup_.expected_fpr()

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "backup_")
        items = _items(X)
        out = self._scores(self.oracle, items) >= self.threshold_
        if not out.all():
            out[~out] = self.backup_.contains(items[~out])
        return out


class SandwichedLearnedBloomFilter(_Learned):
    """Mitzenmacher (2018): an initial filter of all keys, then an LBF.

    FPR = ε₀ · [p(τ) + (1 − p(τ)) ε₁], minimised over τ and the split of the
    budget between the two filters.
    """

    def __init__(
        self, oracle: Any = None, *, bits_per_key: float = 8.0, budget_bits: int | None = None,
        n_thresholds: int = 256, n_splits: int = 64, seed: int = 0,
    ) -> None:  # fmt: skip
        self.oracle = oracle
        self.bits_per_key = bits_per_key
        self.budget_bits = budget_bits
        self.n_thresholds = n_thresholds
        self.n_splits = n_splits
        self.seed = seed

    def fit(self, X: Any, y: Any) -> SandwichedLearnedBloomFilter:
        self._validate_params()
        oracle = _check_oracle(self.oracle)
        keys, nonkeys = _split(X, y)
        budget = self._budget(len(keys))
        key_scores, nonkey_scores = self._scores(oracle, keys), self._scores(oracle, nonkeys)
        curve = ScoreCurve.from_scores(key_scores, nonkey_scores, self.n_thresholds)
        plan = optimise_sandwich(curve, budget - THRESHOLD_BITS, oracle.size_in_bits, self.n_splits)
        if plan is None:
            raise _too_small(budget, oracle.size_in_bits)
        self.threshold_ = plan.threshold
        self.initial_ = self._filter(keys, plan.initial_bits, self.seed)
        self.backup_ = self._filter(keys[key_scores < plan.threshold], plan.backup_bits, self.seed + 1)
        self.size_in_bits_ = (
            oracle.size_in_bits + THRESHOLD_BITS + self.initial_.size_in_bits + self.backup_.size_in_bits
        )
        self.analytic_fpr_ = self._analytic_from_scores(nonkey_scores[:, None])
        self.predicted_fpr_ = plan.fpr
        return self

    def _analytic_from_scores(self, scores: np.ndarray) -> float:
        p = float(np.mean(scores[:, 0] >= self.threshold_))
        return self.initial_.expected_fpr() * (p + (1 - p) * self.backup_.expected_fpr())

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "backup_")
        items = _items(X)
        out = self.initial_.contains(items)
        if out.any():
            idx = np.flatnonzero(out)
            passed = self._scores(self.oracle, items[idx]) >= self.threshold_
            if not passed.all():
                passed[~passed] = self.backup_.contains(items[idx[~passed]])
            out[idx] = passed
        return out


class PartitionedLearnedBloomFilter(_Learned):
    """Vaidya et al. (2021): score regions, each with its own backup filter at FPR ``f_i``.

    Regions hold equal numbers of keys; ``f_i = min(1, λ n_i / g_i)`` (the
    optimum of Σ g_i f_i under the bit budget); a region with ``f_i = 1`` needs
    no filter. Region boundaries count ``32`` bits each.
    """

    def __init__(
        self, oracle: Any = None, *, bits_per_key: float = 8.0, budget_bits: int | None = None,
        n_regions: int = 16, seed: int = 0,
    ) -> None:  # fmt: skip
        self.oracle = oracle
        self.bits_per_key = bits_per_key
        self.budget_bits = budget_bits
        self.n_regions = n_regions
        self.seed = seed

    _parameters: ClassVar[Mapping[str, Setting]] = {**_Learned._parameters, "n_regions": Setting(low=1)}

    def fit(self, X: Any, y: Any) -> PartitionedLearnedBloomFilter:
        self._validate_params()
        oracle = _check_oracle(self.oracle)
        keys, nonkeys = _split(X, y)
        budget = self._budget(len(keys))
        key_scores, nonkey_scores = self._scores(oracle, keys), self._scores(oracle, nonkeys)
        plan = optimise_plbf(
            key_scores, nonkey_scores, budget, oracle.size_in_bits, self.n_regions, THRESHOLD_BITS
        )
        if plan is None:
            raise _too_small(budget, oracle.size_in_bits)
        self.boundaries_ = plan.boundaries
        region = np.searchsorted(plan.boundaries, key_scores, side="right")
        self.filters_ = [
            self._filter(keys[region == i], int(plan.region_bits[i]), self.seed + i)
            for i in range(len(plan.boundaries) + 1)
        ]
        self.size_in_bits_ = (
            oracle.size_in_bits
            + THRESHOLD_BITS * len(plan.boundaries)
            + sum(f.size_in_bits for f in self.filters_)
        )
        self.analytic_fpr_ = self._analytic_from_scores(nonkey_scores[:, None])
        self.predicted_fpr_ = plan.fpr
        return self

    def _analytic_from_scores(self, scores: np.ndarray) -> float:
        region = np.searchsorted(self.boundaries_, scores[:, 0], side="right")
        g = np.bincount(region, minlength=len(self.filters_)) / len(scores)
        return float(sum(g_i * f.expected_fpr() for g_i, f in zip(g, self.filters_)))

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "filters_")
        items = _items(X)
        region = np.searchsorted(self.boundaries_, self._scores(self.oracle, items), side="right")
        out = np.zeros(len(items), dtype=bool)
        for i, f in enumerate(self.filters_):
            mask = region == i
            if mask.any():
                out[mask] = f.contains(items[mask])
        return out


class EnsembleLearnedBloomFilter(_Learned):
    """Several oracles, each with a threshold and a backup of the keys it rejects [reconstructed].

    Accept iff for every used oracle ``j``: ``f_j(x) ≥ τ_j`` or ``x ∈ B_j`` — no
    false negatives. ``correlated=False`` chooses oracles, thresholds and backup
    sizes by the knapsack DP of the independent model
    ``FPR = Π_j [p_j + (1 − p_j) ε_j]``; ``correlated=True`` (default) then
    minimises the empirical joint FPR on the held-out non-keys by coordinate
    descent. ``groups`` marks alternatives (one model family at several sizes):
    at most one per group is used; ``min_oracles`` forces at least that many.
    ``shared_backup=True`` is the ablation with one backup for every key some
    oracle rejects: accept iff all oracles pass or ``x ∈ B`` (same oracles and
    bits as the plan; thresholds re-optimised for the shared backup).
    """

    def __init__(
        self, oracles: Sequence[Any] = (), *, bits_per_key: float = 8.0, budget_bits: int | None = None,
        groups: Sequence[int] | None = None, correlated: bool = True, min_oracles: int = 1,
        shared_backup: bool = False, n_thresholds: int = 256, units: int = 512, seed: int = 0,
    ) -> None:  # fmt: skip
        self.oracles = oracles
        self.bits_per_key = bits_per_key
        self.budget_bits = budget_bits
        self.groups = groups
        self.correlated = correlated
        self.min_oracles = min_oracles
        self.shared_backup = shared_backup
        self.n_thresholds = n_thresholds
        self.units = units
        self.seed = seed

    _parameters: ClassVar[Mapping[str, Setting]] = {**_Learned._parameters, "min_oracles": Setting(low=1)}

    def fit(self, X: Any, y: Any) -> EnsembleLearnedBloomFilter:
        self._validate_params()
        oracles = [_check_oracle(o, f"oracles[{i}]") for i, o in enumerate(self.oracles)]
        if not oracles:
            raise ConfigError("no oracles", hint="pass oracles=[...] (fitted SklearnOracle or any scorer)")
        groups = list(range(len(oracles))) if self.groups is None else list(self.groups)
        if len(groups) != len(oracles):
            raise ConfigError(f"groups has {len(groups)} entries for {len(oracles)} oracles")
        if self.min_oracles > len(set(groups)):  # its lower bound is in _parameters
            raise ConfigError(f"min_oracles must lie in [1, {len(set(groups))}], got {self.min_oracles}")
        keys, nonkeys = _split(X, y)
        budget = self._budget(len(keys))
        key_scores = np.column_stack([self._scores(o, keys) for o in oracles])
        held = np.column_stack([self._scores(o, nonkeys) for o in oracles])
        curves = [
            ScoreCurve.from_scores(key_scores[:, j], held[:, j], self.n_thresholds)
            for j in range(len(oracles))
        ]
        sizes = [o.size_in_bits + THRESHOLD_BITS for o in oracles]
        if self.correlated:
            plan = optimise_correlated(curves, held, sizes, budget, groups=groups, units=self.units,
                                       min_oracles=self.min_oracles)  # fmt: skip
        else:
            plan = optimise_independent(curves, sizes, budget, groups=groups, units=self.units,
                                        use_all_groups=self.min_oracles >= len(set(groups)))  # fmt: skip
        if plan is None or len(plan.oracles) < self.min_oracles:
            raise BudgetError(
                f"the budget of {budget:.0f} bits does not fit {self.min_oracles} oracle(s) with backups "
                f"(sizes {sorted(o.size_in_bits for o in oracles)} bits)",
                hint="raise bits_per_key or use smaller oracles",
            )
        self.oracles_ = [oracles[j] for j in plan.oracles]
        self.used_ = plan.oracles
        self.thresholds_ = np.array(plan.thresholds)
        passed = key_scores[:, list(plan.oracles)] >= self.thresholds_[None, :]
        held_used = held[:, list(plan.oracles)]
        if self.shared_backup:
            bits = sum(plan.backup_bits)
            used = list(plan.oracles)
            thresholds, _ = optimise_shared(
                [curves[j] for j in used], key_scores[:, used], held[:, used], bits, plan.thresholds
            )
            self.thresholds_ = np.array(thresholds)
            passed = key_scores[:, used] >= self.thresholds_[None, :]
            self.backups_ = [self._filter(keys[~passed.all(axis=1)], bits, self.seed)]
        else:
            self.backups_ = [
                self._filter(keys[~passed[:, j]], b, self.seed + j) for j, b in enumerate(plan.backup_bits)
            ]
        self.analytic_fpr_ = self._analytic_from_scores(held_used)
        self.size_in_bits_ = sum(sizes[j] for j in plan.oracles) + sum(b.size_in_bits for b in self.backups_)
        self.predicted_fpr_ = self.analytic_fpr_ if self.shared_backup else plan.fpr
        return self

    def _used_oracles(self) -> list[Oracle]:
        return list(self.oracles_)

    def _analytic_from_scores(self, scores: np.ndarray) -> float:
        passed = scores >= self.thresholds_[None, :]
        if self.shared_backup:
            all_pass = float(np.mean(passed.all(axis=1)))
            return all_pass + (1 - all_pass) * self.backups_[0].expected_fpr()
        return ensemble_fpr(scores, self.thresholds_, [b.expected_fpr() for b in self.backups_])

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "backups_")
        items = _items(X)
        scores = np.column_stack([self._scores(o, items) for o in self.oracles_])
        passed = scores >= self.thresholds_[None, :]
        if self.shared_backup:
            out = passed.all(axis=1)
            if not out.all():
                out[~out] = self.backups_[0].contains(items[~out])
            return out
        out = np.ones(len(items), dtype=bool)
        for j, backup in enumerate(self.backups_):
            ask = out & ~passed[:, j]  # only items still accepted need the backup
            if ask.any():
                out[ask] = backup.contains(items[ask])
        return out
