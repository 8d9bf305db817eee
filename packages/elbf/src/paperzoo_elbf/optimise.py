"""Choosing thresholds and backup-filter sizes under a total bit budget.

Everything here works on scores only: an oracle's scores on the keys and on
held-out non-keys (never on test queries). A backup filter of ``b`` bits holding
``n`` keys is costed at the optimal Bloom filter FPR

    ε(b, n) = exp(−(b / n) · ln² 2)          (ε = 0 when n = 0; ε = 1 when b = 0 < n),

and the structures are:

* learned BF (Kraska et al. 2018): ``FPR = p(τ) + (1 − p(τ)) · ε(B − z, n⁻(τ))``;
* sandwiched LBF (Mitzenmacher 2018): ``FPR = ε(b₀, n) · [p(τ) + (1 − p(τ)) · ε(b₁, n⁻(τ))]``;
* partitioned LBF (Vaidya et al. 2021): regions ``i`` of the score range with key
  share ``n_i`` and non-key share ``g_i``; ``FPR = Σ g_i f_i`` with the optimal
  ``f_i = min(1, λ n_i / g_i)``, λ set by the budget;
* ensemble LBF [reconstructed from the note]: oracles ``j`` with thresholds ``τ_j``
  and backups ``B_j`` holding the keys oracle ``j`` rejects; a query passes iff for
  every ``j``: ``f_j(x) ≥ τ_j`` or ``x ∈ B_j``. For independent oracles
  ``FPR = Π_j [p_j + (1 − p_j) ε_j]`` (log-separable: a knapsack dynamic programme
  over a discretised budget); in general
  ``FPR = E_x Π_j [1{f_j(x) ≥ τ_j} + 1{f_j(x) < τ_j} ε_j]`` over held-out non-keys,
  minimised by coordinate descent.

Here ``p(τ)`` is the share of held-out non-keys scoring ``≥ τ``, ``n⁻(τ)`` the
number of keys scoring ``< τ``, ``z`` the oracle's size in bits and ``B`` the budget.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paperzoo.errors import ConfigError

__all__ = [
    "EnsemblePlan",
    "LBFPlan",
    "PLBFPlan",
    "SandwichPlan",
    "ScoreCurve",
    "bloom_bits",
    "bloom_fpr",
    "ensemble_fpr",
    "optimise_correlated",
    "optimise_independent",
    "optimise_lbf",
    "optimise_plbf",
    "optimise_sandwich",
    "optimise_shared",
]

LN2_SQUARED = math.log(2) ** 2


def bloom_fpr(bits: np.ndarray | float, n: np.ndarray | float) -> np.ndarray:
    """ε(b, n) = exp(−(b/n)·ln²2): the FPR of an optimal Bloom filter of ``b`` bits for ``n`` keys."""
    bits, n = np.broadcast_arrays(np.asarray(bits, dtype=float), np.asarray(n, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.exp(-np.maximum(bits, 0.0) / n * LN2_SQUARED)
    return np.where(n > 0, eps, 0.0)


def bloom_bits(fpr: np.ndarray | float, n: np.ndarray | float) -> np.ndarray:
    """Bits for ``n`` keys at FPR ``fpr``: ``n · ln(1/ε) / ln²2`` (0 when ε = 1 or n = 0)."""
    fpr, n = np.broadcast_arrays(np.asarray(fpr, dtype=float), np.asarray(n, dtype=float))
    needed = (n > 0) & (fpr < 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        bits = n * -np.log(np.clip(fpr, 0.0, 1.0)) / LN2_SQUARED
    return np.where(needed, bits, 0.0)


@dataclass(frozen=True)
class ScoreCurve:
    """An oracle's pass rate and rejected keys at candidate thresholds.

    Attributes:
        thresholds: Candidate τ, ascending; the first is −∞ (the oracle passes
            everything), the last +∞ (it passes nothing).
        pass_rate: p(τ), the share of held-out non-keys with score ≥ τ.
        rejected: n⁻(τ), the number of keys with score < τ.
        n_keys: Number of keys.
    """

    thresholds: np.ndarray
    pass_rate: np.ndarray
    rejected: np.ndarray
    n_keys: int

    @classmethod
    def from_scores(
        cls, key_scores: np.ndarray, nonkey_scores: np.ndarray, n_thresholds: int = 256
    ) -> ScoreCurve:
        """Candidates at quantiles of both the key and the non-key scores (``n_thresholds`` in all)."""
        keys = np.sort(np.asarray(key_scores, dtype=float))
        nonkeys = np.sort(np.asarray(nonkey_scores, dtype=float))
        if not len(keys) or not len(nonkeys):
            raise ConfigError("a score curve needs at least one key and one held-out non-key")
        if not (np.isfinite(keys).all() and np.isfinite(nonkeys).all()):
            raise ConfigError("oracle scores must be finite numbers")
        levels = np.linspace(0.0, 1.0, max(2, n_thresholds // 2))
        inner = np.unique(np.concatenate([np.quantile(keys, levels), np.quantile(nonkeys, levels)]))
        # Thresholds sit just above each candidate value, so "score ≥ τ" splits exactly there.
        thresholds = np.concatenate([[-np.inf], np.nextafter(inner, np.inf), [np.inf]])
        passed = len(nonkeys) - np.searchsorted(nonkeys, thresholds, side="left")
        return cls(
            thresholds=thresholds,
            pass_rate=passed / len(nonkeys),
            rejected=np.searchsorted(keys, thresholds, side="left"),
            n_keys=len(keys),
        )


@dataclass(frozen=True)
class LBFPlan:
    """Learned BF: threshold, backup bits and the predicted FPR."""

    threshold: float
    backup_bits: int
    fpr: float


def optimise_lbf(curve: ScoreCurve, budget_bits: float, oracle_bits: int) -> LBFPlan | None:
    """min_τ p(τ) + (1 − p(τ)) ε(B − z, n⁻(τ)); None if the oracle alone exceeds the budget."""
    backup = math.floor(budget_bits - oracle_bits)
    if backup < 0:
        return None
    fpr = curve.pass_rate + (1 - curve.pass_rate) * bloom_fpr(backup, curve.rejected)
    t = int(np.argmin(fpr))
    return LBFPlan(float(curve.thresholds[t]), backup, float(fpr[t]))


@dataclass(frozen=True)
class SandwichPlan:
    """Sandwiched LBF: initial-filter bits, threshold, backup bits and the predicted FPR."""

    initial_bits: int
    threshold: float
    backup_bits: int
    fpr: float


def optimise_sandwich(
    curve: ScoreCurve, budget_bits: float, oracle_bits: int, n_splits: int = 64
) -> SandwichPlan | None:
    """min over τ and the split b₀ + b₁ = B − z of ε(b₀, n)·[p(τ) + (1 − p(τ)) ε(b₁, n⁻(τ))]."""
    free = math.floor(budget_bits - oracle_bits)
    if free < 0:
        return None
    initial = np.unique(np.round(np.linspace(0, free, n_splits + 1)).astype(np.int64))
    backup = free - initial
    fpr = bloom_fpr(initial, curve.n_keys)[:, None] * (
        curve.pass_rate[None, :]
        + (1 - curve.pass_rate[None, :]) * bloom_fpr(backup[:, None], curve.rejected[None, :])
    )
    s, t = np.unravel_index(int(np.argmin(fpr)), fpr.shape)
    return SandwichPlan(int(initial[s]), float(curve.thresholds[t]), int(backup[s]), float(fpr[s, t]))


@dataclass(frozen=True)
class PLBFPlan:
    """Partitioned LBF: region boundaries, per-region FPRs and backup bits, predicted FPR."""

    boundaries: np.ndarray
    region_fpr: np.ndarray
    region_bits: np.ndarray
    fpr: float


def optimise_plbf(
    key_scores: np.ndarray,
    nonkey_scores: np.ndarray,
    budget_bits: float,
    oracle_bits: int,
    n_regions: int = 16,
    boundary_bits: int = 32,
) -> PLBFPlan | None:
    """Regions with equal key counts; ``f_i = min(1, λ n_i / g_i)`` with λ meeting the budget.

    The region boundaries are stored at ``boundary_bits`` each and count in the
    budget. A region without non-keys gets ``f_i = 1`` (free); one without keys
    ``f_i = 0`` (an empty filter, free).
    """
    keys = np.asarray(key_scores, dtype=float)
    nonkeys = np.asarray(nonkey_scores, dtype=float)
    free = budget_bits - oracle_bits - boundary_bits * (n_regions - 1)
    if free < 0:
        return None
    boundaries = np.unique(np.quantile(keys, np.linspace(0, 1, n_regions + 1)[1:-1]))
    n_i = np.bincount(np.searchsorted(boundaries, keys, side="right"), minlength=len(boundaries) + 1)
    g_i = np.bincount(
        np.searchsorted(boundaries, nonkeys, side="right"), minlength=len(boundaries) + 1
    ) / len(nonkeys)

    def region_fpr(log_lam: float) -> np.ndarray:
        with np.errstate(divide="ignore"):
            f = np.where(g_i > 0, np.exp(log_lam) * n_i / np.where(g_i > 0, g_i, 1), 1.0)
        return np.where(n_i > 0, np.minimum(f, 1.0), 0.0)

    lo, hi = -200.0, 50.0  # log λ: tiny λ spends every bit, large λ none
    for _ in range(200):
        mid = (lo + hi) / 2
        if bloom_bits(region_fpr(mid), n_i).sum() > free:
            lo = mid
        else:
            hi = mid
    f = region_fpr(hi)
    bits = np.floor(bloom_bits(f, n_i)).astype(np.int64)
    fpr = float(np.sum(g_i * np.where(n_i > 0, bloom_fpr(bits, n_i), 0.0)))
    return PLBFPlan(boundaries, f, bits, fpr)


@dataclass(frozen=True)
class EnsemblePlan:
    """Ensemble LBF: which oracles, their thresholds and backup bits, predicted FPR."""

    oracles: tuple[int, ...]
    thresholds: tuple[float, ...]
    backup_bits: tuple[int, ...]
    fpr: float


def optimise_independent(
    curves: Sequence[ScoreCurve],
    oracle_bits: Sequence[int],
    budget_bits: float,
    *,
    groups: Sequence[int] | None = None,
    units: int = 512,
    use_all_groups: bool = False,
) -> EnsemblePlan | None:
    """Knapsack DP minimising Σ_j log[p_j + (1 − p_j) ε_j] subject to Σ_j (z_j + b_j) ≤ B.

    The budget is cut into ``units`` equal steps. Oracles in the same ``group``
    (e.g. one model at several sizes) are alternatives: at most one is used — or,
    with ``use_all_groups``, exactly one of every group. Returns None if no
    admissible choice fits in the budget.
    """
    if budget_bits <= 0:
        return None
    groups = list(range(len(curves))) if groups is None else list(groups)
    step = budget_bits / units
    levels = np.arange(units + 1) * step
    # Per oracle: best log-term and threshold index at each budget level.
    best_cost, best_t = [], []
    for curve, z in zip(curves, oracle_bits):
        backup = np.floor(levels - z)
        term = np.log(
            curve.pass_rate[:, None]
            + (1 - curve.pass_rate[:, None]) * bloom_fpr(backup[None, :], curve.rejected[:, None])
        )
        term = np.where(backup[None, :] >= 0, term, np.inf)
        best_t.append(np.argmin(term, axis=0))
        best_cost.append(term.min(axis=0))
    table = np.zeros(units + 1)  # F(u): best total log-FPR within u steps
    choices: list[tuple[np.ndarray, np.ndarray, list[int]]] = []
    for g in sorted(set(groups)):
        members = [c for c in range(len(curves)) if groups[c] == g]
        unused = np.full(units + 1, np.inf if use_all_groups else 0.0)
        stacked = np.vstack([unused] + [best_cost[c] for c in members])  # row 0: the group unused
        value, pick = stacked.min(axis=0), stacked.argmin(axis=0)
        # F'(u) = min_v F(u − v) + W(v)
        u, v = np.meshgrid(np.arange(units + 1), np.arange(units + 1), indexing="ij")
        total = np.where(v <= u, table[np.clip(u - v, 0, None)] + value[v], np.inf)
        spend = total.argmin(axis=1)
        table = total[np.arange(units + 1), spend]
        choices.append((spend, pick, members))
    if not np.isfinite(table[units]) or table[units] >= 0:
        return None
    used, thresholds, backups = [], [], []
    u = units
    for spend, pick, members in reversed(choices):
        v = int(spend[u])
        if pick[v] > 0:
            c = members[pick[v] - 1]
            used.append(c)
            thresholds.append(float(curves[c].thresholds[best_t[c][v]]))
            backups.append(math.floor(levels[v] - oracle_bits[c]))
        u -= v
    order = np.argsort(used)
    return EnsemblePlan(
        tuple(used[i] for i in order),
        tuple(thresholds[i] for i in order),
        tuple(backups[i] for i in order),
        float(np.exp(table[units])),
    )


def ensemble_fpr(nonkey_scores: np.ndarray, thresholds: Sequence[float], eps: Sequence[float]) -> float:
    """E_x Π_j [1{s_j(x) ≥ τ_j} + 1{s_j(x) < τ_j} ε_j] over held-out non-keys (rows of ``nonkey_scores``)."""
    s = np.asarray(nonkey_scores, dtype=float)
    passed = s >= np.asarray(thresholds, dtype=float)[None, :]
    return float(np.mean(np.prod(np.where(passed, 1.0, np.asarray(eps, dtype=float)[None, :]), axis=1)))


def _best_threshold(
    order: np.ndarray, below: np.ndarray, other: np.ndarray, curve: ScoreCurve, backup_bits: int
) -> tuple[int, float]:
    """argmin_τ mean(other · [1{s ≥ τ} + 1{s < τ} ε(b, n⁻(τ))]), by prefix sums over sorted scores.

    ``order`` sorts the scores; ``below[t]`` counts those under threshold ``t``.
    """
    prefix = np.concatenate([[0.0], np.cumsum(other[order])])
    eps = bloom_fpr(backup_bits, curve.rejected)
    value = (prefix[-1] - prefix[below] + eps * prefix[below]) / len(order)
    t = int(np.argmin(value))
    return t, float(value[t])


def optimise_correlated(
    curves: Sequence[ScoreCurve],
    nonkey_scores: np.ndarray,
    oracle_bits: Sequence[int],
    budget_bits: float,
    *,
    groups: Sequence[int] | None = None,
    units: int = 512,
    rounds: int = 20,
    min_oracles: int = 1,
) -> EnsemblePlan | None:
    """Minimise the empirical joint FPR by coordinate descent, started from the DP plans.

    For every admissible subset of at least ``min_oracles`` oracles (at most one
    per group), the independent DP gives a start; then, in turn, each threshold
    is set to its best value given the others (exact, by prefix sums) and bits
    are moved between pairs of oracles in halving steps while that lowers the
    FPR. The best plan over the subsets is returned (None if none fits).
    """
    s = np.asarray(nonkey_scores, dtype=float)
    if s.ndim != 2 or s.shape[1] != len(curves):
        raise ConfigError(
            f"nonkey_scores must have one column per oracle ({len(curves)}), got shape {s.shape}"
        )
    groups = list(range(len(curves))) if groups is None else list(groups)
    orders = [np.argsort(s[:, j], kind="stable") for j in range(len(curves))]
    belows = [np.searchsorted(s[orders[j], j], curves[j].thresholds, side="left") for j in range(len(curves))]
    best: EnsemblePlan | None = None
    candidates = range(len(curves))
    for size in range(max(1, min_oracles), len(curves) + 1):
        for subset in itertools.combinations(candidates, size):
            if len({groups[c] for c in subset}) < size:
                continue
            start = optimise_independent(
                [curves[c] for c in subset], [oracle_bits[c] for c in subset], budget_bits, units=units
            )
            if start is None or len(start.oracles) < size:
                continue
            free = budget_bits - sum(oracle_bits[c] for c in subset)
            plan = _descend(
                [curves[c] for c in subset], s[:, list(subset)], [orders[c] for c in subset],
                [belows[c] for c in subset], start, free, rounds,
            )  # fmt: skip
            plan = EnsemblePlan(tuple(subset), plan.thresholds, plan.backup_bits, plan.fpr)
            if best is None or plan.fpr < best.fpr:
                best = plan
    return best


def _descend(
    curves: Sequence[ScoreCurve],
    scores: np.ndarray,
    orders: Sequence[np.ndarray],
    belows: Sequence[np.ndarray],
    start: EnsemblePlan,
    free_bits: float,
    rounds: int,
) -> EnsemblePlan:
    m = len(curves)
    t_idx = [int(np.searchsorted(c.thresholds, tau)) for c, tau in zip(curves, start.thresholds)]
    bits = list(start.backup_bits)

    def terms() -> np.ndarray:
        eps = [float(bloom_fpr(bits[j], curves[j].rejected[t_idx[j]])) for j in range(m)]
        passed = scores >= np.array([curves[j].thresholds[t_idx[j]] for j in range(m)])[None, :]
        return np.where(passed, 1.0, np.array(eps)[None, :])

    def sweep() -> float:
        value = float(np.mean(np.prod(terms(), axis=1)))
        for j in range(m):
            other = np.prod(np.delete(terms(), j, axis=1), axis=1)
            t_idx[j], value = _best_threshold(orders[j], belows[j], other, curves[j], bits[j])
        return value

    value = sweep()
    step = max(1, int(free_bits // 8))
    for _ in range(rounds):
        improved = False
        for gain, give in itertools.permutations(range(m), 2):
            if bits[give] < step:
                continue
            saved = (list(t_idx), list(bits))
            bits[gain] += step
            bits[give] -= step
            trial = sweep()
            if trial < value - 1e-15:
                value, improved = trial, True
            else:
                t_idx[:], bits[:] = saved
        if not improved:
            if step == 1:
                break
            step = max(1, step // 2)
    return EnsemblePlan(
        start.oracles, tuple(float(curves[j].thresholds[t_idx[j]]) for j in range(m)), tuple(bits), value
    )


def optimise_shared(
    curves: Sequence[ScoreCurve],
    key_scores: np.ndarray,
    nonkey_scores: np.ndarray,
    backup_bits: int,
    start: Sequence[float],
    rounds: int = 20,
) -> tuple[tuple[float, ...], float]:
    """Thresholds for one shared backup: accept iff every ``f_j(x) ≥ τ_j``, or ``x ∈ B``.

    ``FPR = P(all pass) + (1 − P(all pass)) · ε(b, n⁻)``, with ``n⁻`` the keys that
    some oracle rejects (all of them go to ``B``). Coordinate descent from
    ``start``: each ``τ_j`` in turn takes its exact best value given the others.
    Returns the thresholds and the FPR on the held-out non-keys.
    """
    keys = np.asarray(key_scores, dtype=float)
    held = np.asarray(nonkey_scores, dtype=float)
    t_idx = [int(np.searchsorted(c.thresholds, tau)) for c, tau in zip(curves, start)]
    m, value = len(curves), math.inf
    for _ in range(rounds):
        before = list(t_idx)
        for j in range(m):
            taus = np.array([curves[i].thresholds[t_idx[i]] for i in range(m)])
            others_held = np.delete(held >= taus, j, axis=1).all(axis=1)
            others_keys = np.delete(keys >= taus, j, axis=1).all(axis=1)
            held_j = np.sort(held[others_held, j])
            keys_j = np.sort(keys[others_keys, j])
            thresholds = curves[j].thresholds
            all_pass = (len(held_j) - np.searchsorted(held_j, thresholds, side="left")) / len(held)
            rejected = len(keys) - (len(keys_j) - np.searchsorted(keys_j, thresholds, side="left"))
            fpr = all_pass + (1 - all_pass) * bloom_fpr(backup_bits, rejected)
            t_idx[j] = int(np.argmin(fpr))
            value = float(fpr[t_idx[j]])
        if t_idx == before:
            break
    return tuple(float(curves[j].thresholds[t_idx[j]]) for j in range(m)), value
