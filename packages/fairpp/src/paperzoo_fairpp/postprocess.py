"""The Wasserstein-barycenter post-processing (Chzhen et al. 2020; Fukuchi, ICML 2025, Alg. 1).

Every group's distribution of predictions is mapped onto the groups' W2 barycenter:

    ĝ(x, s) = Σ_{s′} ŵ_{s′} · Q̂_{s′}( F̂_s( f̂(x, s) + ζ ) ),     ζ ~ U[−σ, σ],

with ŵ_s the group frequencies, F̂_s the empirical CDF and Q̂_s the empirical
quantile function of the jittered predictions of group ``s`` on calibration data.
The jitter breaks ties, without which atoms of the prediction distribution break
the CDF → quantile map. With ``fairness = α`` the result is
``(1 − α) f̂ + α ĝ``: α = 1 is demographic parity, α = 0 the base predictor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from paperzoo.errors import ConfigError
from paperzoo_fairpp.groups import encode_groups, lookup_groups

__all__ = ["BarycenterPostProcessor", "check_fairness", "hash_uniform"]


def check_fairness(fairness: Any) -> float:
    """The interpolation level α must be a number in [0, 1]."""
    try:
        value = float(fairness)
    except (TypeError, ValueError):
        raise ConfigError(f"fairness must be a number in [0, 1], got {fairness!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ConfigError(
            f"fairness must be in [0, 1], got {fairness!r}", hint="1 = demographic parity, 0 = no change"
        )
    return value


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _splitmix(z: np.ndarray) -> np.ndarray:
    z = z + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def hash_uniform(keys: np.ndarray, *, seed: int = 0) -> np.ndarray:
    """A uniform number in [0, 1) per row of ``keys``, a deterministic hash of the row.

    SplitMix64 over the rows' float64 bits: equal rows get equal numbers, and the
    numbers do not depend on the other rows or their order.
    """
    keys = np.ascontiguousarray(np.atleast_2d(np.asarray(keys, dtype=np.float64).T).T)
    bits = keys.view(np.uint64)
    with np.errstate(over="ignore"):
        h = np.full(keys.shape[0], np.uint64(seed & 0xFFFFFFFFFFFFFFFF)) ^ _GOLDEN
        for column in bits.T:
            h = _splitmix(h ^ column)
    return (h >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _tie_rank(values: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... among equal values (order-free: equal values are interchangeable)."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_values)) + 1]
    rank = np.arange(values.size) - np.repeat(starts, np.diff(np.r_[starts, values.size]))
    out = np.empty(values.size)
    out[order] = rank
    return out


def _predictions(y_pred: Any) -> np.ndarray:
    values = np.asarray(y_pred, dtype=np.float64)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ConfigError(f"predictions must be 1-d, got shape {values.shape}")
    if not np.isfinite(values).all():
        raise ConfigError("predictions contain NaN or infinite values")
    return values


class BarycenterPostProcessor(BaseEstimator):  # type: ignore[misc]
    """Demographic-parity post-processing of any regressor's predictions.

    Args:
        fairness: Interpolation level α in [0, 1] (1 = exact demographic parity).
        jitter: Half-width σ of the uniform jitter added to predictions (1e-5 as in
            the paper).
        random_state: Seed of the jitter. The jitter of each sample is a hash of
            the sample, so the same input always gets the same output.

    Attributes:
        groups_: The group labels, sorted.
        weights_: ``ŵ_s``, the groups' frequencies in the calibration data.
        quantiles_: Per group, the sorted jittered calibration predictions.

    Example:
        >>> pp = BarycenterPostProcessor().fit(pred_calib, groups_calib)    # doctest: +SKIP
        >>> fair = pp.transform(pred_test, groups_test)                      # doctest: +SKIP
    """

    def __init__(self, fairness: float = 1.0, jitter: float = 1e-5, random_state: int | None = 0) -> None:
        self.fairness = fairness
        self.jitter = jitter
        self.random_state = random_state

    def _jitter(self, keys: np.ndarray, stream: int) -> np.ndarray:
        """``ζ ~ U[−σ, σ]`` drawn by hashing each sample's ``keys`` (see :func:`hash_uniform`)."""
        if not (isinstance(self.jitter, (int, float)) and self.jitter >= 0):
            raise ConfigError(f"jitter must be a number >= 0, got {self.jitter!r}")
        seed = 0 if self.random_state is None else int(self.random_state)
        return self.jitter * (2.0 * hash_uniform(keys, seed=seed * 2 + stream) - 1.0)

    def fit(self, y_pred: Any, sensitive_features: Any, *, keys: Any = None) -> BarycenterPostProcessor:
        """Learn the groups' prediction distributions from calibration predictions.

        Args:
            y_pred: Calibration predictions (held out from the base regressor's fit).
            sensitive_features: Their group labels.
            keys: Per-sample values the jitter is drawn from (the samples' features);
                by default the prediction and its rank among equal predictions.
        """
        check_fairness(self.fairness)
        pred = _predictions(y_pred)
        if pred.size == 0:
            raise ConfigError("no calibration predictions")
        codes, groups = encode_groups(sensitive_features, pred.size)
        if keys is None:
            keys = np.column_stack([pred, _tie_rank(pred)])
        jittered = pred + self._jitter(np.asarray(keys, dtype=np.float64), 0)
        self.groups_ = groups
        self.weights_ = np.bincount(codes, minlength=groups.size) / pred.size
        self.quantiles_ = [np.sort(jittered[codes == g]) for g in range(groups.size)]
        return self

    def transform(
        self, y_pred: Any, sensitive_features: Any, *, fairness: float | None = None, keys: Any = None
    ) -> np.ndarray:
        """Fair predictions ``(1 − α) f + α Σ_{s′} ŵ_{s′} Q̂_{s′}(F̂_s(f + ζ))``.

        The jitter of a sample is a hash of its ``keys`` (default: its prediction
        and group), so the output does not depend on the order or the batch the
        sample comes in, and identical inputs get identical outputs.
        """
        check_is_fitted(self, "quantiles_")
        alpha = check_fairness(self.fairness if fairness is None else fairness)
        pred = _predictions(y_pred)
        codes = lookup_groups(sensitive_features, pred.size, self.groups_)
        if keys is None:
            keys = np.column_stack([pred, codes])
        jittered = pred + self._jitter(np.asarray(keys, dtype=np.float64), 1)
        levels = np.empty(pred.size)
        for g, sorted_g in enumerate(self.quantiles_):  # F̂_s of each sample's own group
            members = codes == g
            levels[members] = np.searchsorted(sorted_g, jittered[members], side="right") / sorted_g.size
        fair = np.zeros(pred.size)
        for weight, sorted_g in zip(self.weights_, self.quantiles_):  # Σ_{s′} ŵ_{s′} Q̂_{s′}(u)
            index = np.clip(np.ceil(levels * sorted_g.size).astype(np.int64) - 1, 0, sorted_g.size - 1)
            fair += weight * sorted_g[index]
        return (1.0 - alpha) * pred + alpha * fair

    def fit_transform(self, y_pred: Any, sensitive_features: Any) -> np.ndarray:  # type: ignore[override]
        """Fit on ``y_pred`` and transform it (in-sample: prefer held-out predictions)."""
        return self.fit(y_pred, sensitive_features).transform(y_pred, sensitive_features)
