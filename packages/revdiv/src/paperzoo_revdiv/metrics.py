"""Fairness metrics (Ghosh et al., ICML 2025, §4–§5)."""

from __future__ import annotations

from typing import Any

import numpy as np

from paperzoo.errors import ConfigError

__all__ = ["max_envy", "pay_per_stream", "relative_pps"]


def _streams(W: Any) -> np.ndarray:
    return np.asarray(W.sum(axis=0), dtype=np.float64).ravel()


def pay_per_stream(payments: np.ndarray, W: Any) -> np.ndarray:
    """Pay-per-stream of every artist: ``PPS_j = φ(j) / Σ_i w_ij``.

    Undefined (NaN) for artists nobody streamed.
    """
    streams = _streams(W)
    payments = np.asarray(payments, dtype=np.float64)
    if payments.shape != streams.shape:
        raise ConfigError(f"{payments.size} payments for {streams.size} artists")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(streams > 0, payments / streams, np.nan)


def relative_pps(
    payments: np.ndarray, W: Any, baseline_payments: np.ndarray, k: int = 10
) -> tuple[float, float]:
    """Pay-per-stream of the top-k and bottom-k artists relative to GlobalProp.

    ``PPS_j = φ(j) / Σ_i w_ij`` (§5). Artists are ranked by the rule's PPS (those
    with streams only); returned is the mean of ``PPS_j / PPS_j^GP`` over the ``k``
    highest and over the ``k`` lowest. GlobalProp pays every streamed artist the
    same PPS, so 1 means "paid like GlobalProp".

    Returns:
        ``(top, bottom)``.
    """
    pps = pay_per_stream(payments, W)
    base = pay_per_stream(baseline_payments, W)
    streamed = np.flatnonzero(~np.isnan(pps))
    if not 1 <= k <= streamed.size:
        raise ConfigError(f"k must be in [1, {streamed.size}] (artists with streams), got {k}")
    ratio = pps[streamed] / base[streamed]
    order = np.argsort(pps[streamed], kind="stable")
    return float(ratio[order[-k:]].mean()), float(ratio[order[:k]].mean())


def max_envy(payments: np.ndarray, W: Any) -> float:
    """Maximum envy ``ME = max_j PPS_j / min_j PPS_j`` over artists with streams (§4).

    1 for GlobalProp; Prop. 4.1: a rule with bounded envy cannot be fraud- or
    bribery-proof. ``inf`` when some streamed artist is paid nothing.
    """
    pps = pay_per_stream(payments, W)
    pps = pps[~np.isnan(pps)]
    if pps.size == 0:
        raise ConfigError("no artist has any stream")
    low = pps.min()
    return float("inf") if low == 0 else float(pps.max() / low)
