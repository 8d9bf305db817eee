"""CRPS, the region-of-interest CRPS (RCRPS) and the benchmark's capped weighted aggregate.

Williams et al. (ICML 2025), §4 and App. E:

* per-step CRPS, unbiased probability-weighted-moment form on n ascending samples
  X_(0) ≤ … ≤ X_(n−1) (i = 0..n−1)::

      CRPS_t = (1/n) Σ_i |X_(i),t − x_t| + (1/n) Σ_i X_(i),t − 2/(n(n−1)) Σ_i i·X_(i),t

* with a region of interest I: C = ½ mean_{t∈I} CRPS_t + ½ mean_{t∉I} CRPS_t
  (else the mean over all t);
* constraint violation of sample j: v_j = Σ_c mean_t max(0, α (X_jt − thr_c))
  (sign flipped for minima; per-step bounds averaged over their steps only);
* RCRPS = α · C + CRPS({β v_j}, 0), β = 10;
* aggregate: each instance capped at 5 (missing = 5), Σ w·RCRPS / Σ w.

Standard errors, as in the paper: the RCRPS estimator is a U-statistic of order 2 over
the n sample paths, U = mean_{i≠j} H(X_i, X_j) with
H = Σ_t w_t (½|X_it − x_t| + ½|X_jt − x_t| − ½|X_it − X_jt|) + (the same for β v, target 0),
w_t the ROI weights times α. Its variance E[U²] − θ² is estimated without bias by
U² − mean_{i,j,k,l distinct} H_ij H_kl; the aggregate's is Σ w² var / (Σ w)², capped
instances counting 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paperzoo.errors import ConfigError

if TYPE_CHECKING:
    from paperzoo_cik.tasks import Constraint, TaskInstance

__all__ = [
    "BETA",
    "CAP",
    "Aggregate",
    "aggregate",
    "breakdown",
    "check_samples",
    "constraint_violation",
    "crps",
    "rcrps",
    "rcrps_instance",
    "rcrps_variance",
]

BETA = 10.0
CAP = 5.0


def check_samples(samples, horizon: int, where: str = "forecast") -> np.ndarray:
    """``samples`` as a finite float array of shape (n, horizon) with n ≥ 2, or one clear error."""
    arr = np.asarray(samples, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != horizon or arr.shape[0] < 2:
        raise ConfigError(
            f"{where}: samples must have shape (n_samples ≥ 2, horizon={horizon}), got {arr.shape}",
            hint="return one row per sample path and one column per future step",
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        rows = sorted(set(np.nonzero(bad)[0].tolist()))
        raise ConfigError(f"{where}: {int(bad.sum())} non-finite sample value(s) in sample(s) {rows[:5]}")
    return arr


def crps(samples, target) -> np.ndarray:
    """Unbiased (PWM) CRPS of each step: ``samples`` (..., n, T), ``target`` (T,) → (..., T).

    No loop over samples: one sort along the sample axis and three weighted sums.
    """
    x = np.sort(np.asarray(samples, dtype=float), axis=-2)
    y = np.asarray(target, dtype=float)
    n = x.shape[-2]
    if n < 2:
        raise ConfigError(f"the unbiased CRPS needs at least 2 samples, got {n}")
    i = np.arange(n, dtype=float)[:, None]
    abs_term = np.abs(x - y).mean(axis=-2)
    beta0 = x.mean(axis=-2)
    beta1 = (i * x).sum(axis=-2) / (n * (n - 1))
    return abs_term + beta0 - 2.0 * beta1


def constraint_violation(samples, constraints: Sequence[Constraint], scaling: float) -> np.ndarray:
    """v_j = Σ_c mean_t max(0, α (X_jt − thr)) (minima: α (thr − X_jt)); ``samples`` (..., n, T) → (..., n)."""
    x = np.asarray(samples, dtype=float)
    total = np.zeros(x.shape[:-1])
    for c in constraints:
        part = x if c.steps is None else x[..., list(c.steps)]
        thr = np.asarray(c.threshold, dtype=float)
        gap = part - thr if c.kind == "max" else thr - part
        total = total + np.maximum(0.0, scaling * gap).mean(axis=-1)
    return total


def rcrps(
    samples,
    target,
    *,
    scaling: float = 1.0,
    region_of_interest: Sequence[int] = (),
    constraints: Sequence[Constraint] = (),
    beta: float = BETA,
) -> np.ndarray:
    """RCRPS = α · C + CRPS({β v_j}, 0) for ``samples`` (..., n, T) → (...)."""
    per_step = crps(samples, target)
    T = per_step.shape[-1]
    roi = np.zeros(T, dtype=bool)
    if len(region_of_interest):
        roi[list(region_of_interest)] = True
    if roi.any() and not roi.all():
        c = 0.5 * per_step[..., roi].mean(axis=-1) + 0.5 * per_step[..., ~roi].mean(axis=-1)
    else:
        c = per_step.mean(axis=-1)
    score = scaling * c
    if constraints:
        v = constraint_violation(samples, constraints, scaling)
        score = score + crps(beta * v[..., None], np.zeros(1))[..., 0]
    return score


def _kwargs(instance: TaskInstance) -> dict:
    return {
        "scaling": instance.metric_scaling,
        "region_of_interest": instance.region_of_interest,
        "constraints": instance.constraints,
    }


def rcrps_instance(samples, instance: TaskInstance) -> float:
    """RCRPS of one forecast (n × horizon samples) on a task instance."""
    x = check_samples(samples, instance.horizon, instance.key)
    return float(rcrps(x, instance.future_values, **_kwargs(instance)))


def rcrps_variance(samples, instance: TaskInstance) -> float:
    """Unbiased estimate of the variance of :func:`rcrps_instance` over the n sample paths (n ≥ 4).

    With H the n × n kernel matrix (zero diagonal), S = Σ H, r_i = Σ_j H_ij:
    Σ_{i,j,k,l distinct} H_ij H_kl = S² − 4 Σ r_i² + 2 Σ H_ij², so
    var = (S / n(n−1))² − (S² − 4 Σ r² + 2 Σ H²) / (n(n−1)(n−2)(n−3)).
    """
    x = check_samples(samples, instance.horizon, instance.key)
    n = len(x)
    if n < 4:
        return float("nan")
    H = _rcrps_kernel(x, instance)
    S, r = H.sum(), H.sum(axis=1)
    pairs, quads = n * (n - 1), n * (n - 1) * (n - 2) * (n - 3)
    return float((S / pairs) ** 2 - (S**2 - 4.0 * (r**2).sum() + 2.0 * (H**2).sum()) / quads)


def _pair_kernel(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """H_ij = Σ_t w_t (½|x_it − y_t| + ½|x_jt − y_t| − ½|x_it − x_jt|), zero on the diagonal."""
    a = np.abs(x - y) @ w  # (n,)
    b = np.einsum("ijt,t->ij", np.abs(x[:, None, :] - x[None, :, :]), w)
    H = 0.5 * (a[:, None] + a[None, :] - b)
    np.fill_diagonal(H, 0.0)
    return H


def _rcrps_kernel(x: np.ndarray, instance: TaskInstance) -> np.ndarray:
    """The RCRPS estimator's U-statistic kernel on sample paths: mean_{i≠j} H_ij = RCRPS."""
    T = instance.horizon
    roi = np.zeros(T, dtype=bool)
    if instance.region_of_interest:
        roi[list(instance.region_of_interest)] = True
    if roi.any() and not roi.all():
        w = np.where(roi, 0.5 / roi.sum(), 0.5 / (~roi).sum())
    else:
        w = np.full(T, 1.0 / T)
    H = _pair_kernel(x, instance.future_values, instance.metric_scaling * w)
    if instance.constraints:
        v = BETA * constraint_violation(x, instance.constraints, instance.metric_scaling)
        H = H + _pair_kernel(v[:, None], np.zeros(1), np.ones(1))
    return H


@dataclass(frozen=True)
class Aggregate:
    """Capped weighted mean RCRPS, its standard error and how many instances it covers."""

    score: float
    stderr: float
    n_instances: int
    n_capped: int


def aggregate(scores, weights, variances=None, *, cap: float = CAP) -> Aggregate:
    """Σ w·min(RCRPS, cap) / Σ w, a missing (NaN) score counting as ``cap``.

    Standard error: √(Σ w² var) / Σ w, with capped or missing instances counting 0.
    """
    s = np.asarray(scores, dtype=float)
    w = np.asarray([float(x) for x in weights], dtype=float)
    if s.shape != w.shape or s.ndim != 1 or len(s) == 0:
        raise ConfigError(f"need one weight per score, got {s.shape} scores and {w.shape} weights")
    if (w < 0).any() or w.sum() <= 0:
        raise ConfigError("weights must be non-negative with a positive sum")
    capped = ~np.isfinite(s) | (s > cap)
    s = np.where(capped, cap, s)
    var = np.zeros_like(s) if variances is None else np.nan_to_num(np.asarray(variances, dtype=float))
    var = np.where(capped, 0.0, var)
    return Aggregate(
        score=float((w * s).sum() / w.sum()),
        stderr=float(np.sqrt((w**2 * var).sum()) / w.sum()),
        n_instances=len(s),
        n_capped=int(capped.sum()),
    )


def breakdown(
    instances: Sequence[TaskInstance],
    scores: Mapping[str, float],
    variances: Mapping[str, float] | None = None,
    *,
    by: str = "context_type",
) -> dict[str, Aggregate]:
    """Aggregate per context type (an instance counts in each of its types) or per domain."""
    groups: dict[str, list[TaskInstance]] = {}
    for inst in instances:
        labels = inst.context_types if by == "context_type" else (inst.domain,) if by == "domain" else None
        if labels is None:
            raise ConfigError(f"by must be 'context_type' or 'domain', got {by!r}")
        for label in labels:
            groups.setdefault(label, []).append(inst)
    out = {}
    for label in sorted(groups):
        members = groups[label]
        out[label] = aggregate(
            [scores.get(i.key, np.nan) for i in members],
            [i.weight for i in members],
            None if variances is None else [variances.get(i.key, 0.0) for i in members],
        )
    return out
