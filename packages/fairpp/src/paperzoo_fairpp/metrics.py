"""Unfairness and risk (Fukuchi, ICML 2025, §2; Chzhen et al. 2020).

Demographic parity asks the distribution of predictions to be the same in every
group. Both measures below are the maximum over pairs of groups ``(a, b)``:

* Kolmogorov–Smirnov: ``KS = max_{a,b} sup_t |F_a(t) − F_b(t)|``;
* Wasserstein-2: ``W2 = max_{a,b} (∫_0^1 |Q_a(u) − Q_b(u)|² du)^{1/2}``,

with ``F_g`` and ``Q_g`` the empirical CDF and quantile function of the
predictions of group ``g``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_fairpp.groups import encode_groups

__all__ = ["ks_distance", "ks_unfairness", "mse", "risk_unfairness_curve", "w2_distance", "w2_unfairness"]


def _by_group(y_pred: Any, sensitive_features: Any) -> list[np.ndarray]:
    pred = np.asarray(y_pred, dtype=np.float64).ravel()
    codes, groups = encode_groups(sensitive_features, pred.size)
    if groups.size < 2:
        raise ConfigError("unfairness needs at least two groups")
    return [np.sort(pred[codes == g]) for g in range(groups.size)]


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov–Smirnov statistic ``sup_t |F_a(t) − F_b(t)|``."""
    a, b = np.sort(a), np.sort(b)
    points = np.concatenate([a, b])
    fa = np.searchsorted(a, points, side="right") / a.size
    fb = np.searchsorted(b, points, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def w2_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Exact Wasserstein-2 distance between two empirical distributions.

    The quantile functions are step functions; ``∫ |Q_a − Q_b|²`` is summed over
    the union of their breakpoints ``i/n_a`` and ``j/n_b``.
    """
    a, b = np.sort(a), np.sort(b)
    levels = np.union1d(np.arange(1, a.size + 1) / a.size, np.arange(1, b.size + 1) / b.size)
    widths = np.diff(np.r_[0.0, levels])
    qa = a[np.minimum(np.ceil(levels * a.size - 1e-9).astype(np.int64) - 1, a.size - 1)]
    qb = b[np.minimum(np.ceil(levels * b.size - 1e-9).astype(np.int64) - 1, b.size - 1)]
    return float(np.sqrt(np.sum(widths * (qa - qb) ** 2)))


def _max_pairwise(
    y_pred: Any, sensitive_features: Any, distance: Callable[[np.ndarray, np.ndarray], float]
) -> float:
    groups = _by_group(y_pred, sensitive_features)
    return max(distance(a, b) for a, b in itertools.combinations(groups, 2))


def ks_unfairness(y_pred: Any, sensitive_features: Any) -> float:
    """``max_{a,b} KS(F_a, F_b)``: 0 under demographic parity, 1 for disjoint predictions."""
    return _max_pairwise(y_pred, sensitive_features, ks_distance)


def w2_unfairness(y_pred: Any, sensitive_features: Any) -> float:
    """``max_{a,b} W2(P_a, P_b)`` between the groups' prediction distributions."""
    return _max_pairwise(y_pred, sensitive_features, w2_distance)


def mse(y_true: Any, y_pred: Any) -> float:
    """Mean squared error ``(1/n) Σ (y_i − ŷ_i)²``."""
    t, p = np.asarray(y_true, dtype=np.float64).ravel(), np.asarray(y_pred, dtype=np.float64).ravel()
    if t.shape != p.shape:
        raise ConfigError(f"{t.size} targets for {p.size} predictions")
    return float(np.mean((t - p) ** 2))


def risk_unfairness_curve(
    model: Any,
    X: Any,
    y: Any,
    sensitive_features: Any,
    levels: Sequence[float] = tuple(np.linspace(0, 1, 11)),
) -> dict[str, list[float]]:
    """MSE and KS/W2 unfairness of a fitted ``DemographicParityRegressor`` per fairness level.

    Returns:
        ``{"fairness": [...], "mse": [...], "ks": [...], "w2": [...]}``.
    """
    out: dict[str, list[float]] = {"fairness": [], "mse": [], "ks": [], "w2": []}
    for level in levels:
        pred = model.predict(X, sensitive_features, fairness=float(level))
        out["fairness"].append(float(level))
        out["mse"].append(mse(y, pred))
        out["ks"].append(ks_unfairness(pred, sensitive_features))
        out["w2"].append(w2_unfairness(pred, sensitive_features))
    return out
